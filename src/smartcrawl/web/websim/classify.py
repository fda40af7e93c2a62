"""Classify a pair of translated URLs by how their site marks languages (see :mod:`.conventions`).

The classifier looks for tokens of each URL's own language (ISO codes, locale tags, country codes
where the language is official, English name and endonym) in the host labels, the directories,
the file name and the query values; the places where the two URLs carry a mark decide the class.
It is applied identically to real pairs (ParaCrawl, WMT16) and to websim's own pairs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from urllib.parse import parse_qsl, unquote, urlsplit

from smartcrawl.langs import LANGUAGES, info
from smartcrawl.urls import BadURL, host_parts, url_host
from smartcrawl.web.websim.text import ascii_fold

# Marker places, in the order that decides a pair marked in several places.
PLACES: tuple[str, ...] = ("subdomain", "query", "dir_code", "dir_name", "suffix")
_GROUP: dict[str, str] = {"dir_code": "dir", "dir_name": "dir"}
_SPLIT_FILE = re.compile(r"[._-]")
_DIGITS = re.compile(r"\d+")
_KNOWN_ISO3: frozenset[str] = frozenset(c for li in LANGUAGES.values() for c in li.iso2_codes)
_RUNS = re.compile(r"[^\W\d_]+|\d+")
_COUNTRY_AS_LANGUAGE: dict[str, tuple[str, ...]] = {
    # Country codes that sites write for a language although it is not official there.
    "eng": ("uk", "us", "int"), "ell": ("gr",), "ces": ("cz",), "dan": ("dk",), "swe": ("se",),
    "est": ("ee",), "slv": ("si",), "jpn": ("jp",), "kor": ("kr",), "zho": ("cn", "tw"), "ukr": ("ua",),
}


@dataclass(frozen=True)
class Mark:
    """A language mark found in a URL: where, the token as written, and its form."""

    place: str  # one of PLACES
    token: str
    form: str  # "iso1", "iso1_upper", "iso1_region", "iso3", "country" or "name"
    key: str = ""  # query parameter name for ``query`` marks


@dataclass(frozen=True)
class PairClass:
    """The convention of a URL pair and the marks it was decided from."""

    convention: str
    marks1: tuple[Mark, ...]
    marks2: tuple[Mark, ...]


class LanguageTokens:
    """Tokens that mark each language in URLs, built on demand per language (per instance cache)."""

    def __init__(self) -> None:
        self._codes: dict[str, dict[str, str]] = {}
        self._names: dict[str, set[str]] = {}

    def codes(self, lang: str) -> dict[str, str]:
        """Lower-cased code token -> its form, for ``lang``."""
        if lang not in self._codes:
            self._build(lang)
        return self._codes[lang]

    def names(self, lang: str) -> set[str]:
        """Lower-cased ASCII-folded language names of ``lang``."""
        if lang not in self._names:
            self._build(lang)
        return self._names[lang]

    def _build(self, lang: str) -> None:
        try:
            li = info(lang)
        except KeyError:
            self._codes[lang], self._names[lang] = {}, set()
            return
        codes: dict[str, str] = {}
        countries = li.countries + _COUNTRY_AS_LANGUAGE.get(lang, ())
        for cc in countries:
            codes.setdefault(cc, "country")
        for code in li.iso2_codes:
            codes[code] = "iso3"
        if li.iso1:
            codes[li.iso1] = "iso1"
            for cc in set(countries) | {li.iso1}:
                for sep in ("-", "_"):
                    codes[f"{li.iso1}{sep}{cc}"] = "iso1_region"
        if lang in ("nob", "nno"):
            codes.setdefault("no", "iso1")
        names = {ascii_fold(li.name), ascii_fold(li.endonym)}
        names |= {n.replace(" ", sep) for n in list(names) for sep in ("-", "_")}
        self._codes[lang] = codes
        self._names[lang] = {n for n in names if len(n) > 3}


def _form(token: str, form: str) -> str:
    return "iso1_upper" if form == "iso1" and token.isupper() else form


def find_marks(url: str, lang: str, tokens: LanguageTokens) -> tuple[Mark, ...]:
    """Every mark of ``lang`` in ``url`` (host labels, directories, file name, query values)."""
    codes = tokens.codes(lang)
    names = tokens.names(lang)
    marks: list[Mark] = []
    try:
        parts = urlsplit(url.strip())
        host = url_host(url)
    except (BadURL, ValueError):
        return ()
    sub = host_parts(host).subdomain
    for label in sub.split(".") if sub else ():
        low = label.lower()
        if low in codes:
            marks.append(Mark("subdomain", label, _form(label, codes[low])))
        elif low in names:
            marks.append(Mark("subdomain", label, "name"))
    segments = [unquote(s) for s in parts.path.split("/")]
    directories = segments[1:-1] if len(segments) > 1 else []
    filename = segments[-1] if segments else ""
    stem = filename.rsplit(".", 1)[0] if "." in filename else filename
    if stem and stem.lower() in codes and "." not in filename:
        directories = directories + [filename]  # "/en" without a trailing slash is a directory
        filename = ""
    for i, seg in enumerate(directories):
        low = seg.lower()
        if low in codes and (i == 0 or codes[low] != "country"):  # deeper country codes are places
            marks.append(Mark("dir_code", seg, _form(seg, codes[low])))
        elif ascii_fold(low) in names:
            marks.append(Mark("dir_name", seg, "name"))
        else:  # a code affixed to a directory name: "/Croatia-en/", "/en_docs/"
            pieces = [p for p in _SPLIT_FILE.split(seg) if p]
            for piece in (pieces[0], pieces[-1]) if len(pieces) > 1 else ():
                if piece.lower() in codes and codes[piece.lower()] != "country":
                    marks.append(Mark("dir_code", piece, _form(piece, codes[piece.lower()])))
                    break
    if filename:
        pieces = [p for p in _SPLIT_FILE.split(stem) if p]
        candidates = [stem] if len(pieces) <= 1 else [pieces[0], pieces[-1]]
        if len(pieces) >= 3:  # a locale at the end: "page_es-ES", "index.en_GB"
            candidates.insert(0, f"{pieces[-2]}-{pieces[-1]}")
        for piece in candidates:
            if piece.lower() in codes:
                marks.append(Mark("suffix", piece, _form(piece, codes[piece.lower()])))
                break
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        low = value.lower()
        if low in codes:
            marks.append(Mark("query", value, _form(value, codes[low]), key.lower()))
        elif ascii_fold(low) in names:
            marks.append(Mark("query", value, "name", key.lower()))
    return tuple(marks)


def _digits_free(url: str) -> str:
    parts = urlsplit(url)
    return _DIGITS.sub("0", parts.path + "?" + parts.query)


def classify_pair(url1: str, lang1: str, url2: str, lang2: str, tokens: LanguageTokens | None = None) -> PairClass:
    """The convention (one of :data:`~smartcrawl.web.websim.conventions.CONVENTIONS`) of a URL pair.

    ``lang1``/``lang2`` are the ISO 639-3 languages of the documents behind ``url1``/``url2``.
    """
    tokens = tokens or LanguageTokens()
    m1, m2 = find_marks(url1, lang1, tokens), find_marks(url2, lang2, tokens)
    try:
        h1, h2 = url_host(url1), url_host(url2)
    except BadURL:
        return PairClass("other", m1, m2)
    p1, p2 = host_parts(h1), host_parts(h2)
    if p1.registered_domain != p2.registered_domain:
        if p1.domain and p1.domain == p2.domain:
            return PairClass("country_domain", m1, m2)
        return PairClass("other", m1, m2)
    places1, places2 = {m.place for m in m1}, {m.place for m in m2}
    groups1, groups2 = {_GROUP.get(p, p) for p in places1}, {_GROUP.get(p, p) for p in places2}
    if groups1 and groups2 and not groups1 & groups2:
        return PairClass("mixed", m1, m2)
    places = (places1 & places2) or (places1 | places2)
    for place in PLACES:
        if place in places:
            return PairClass(place, m1, m2)
    if h1.removeprefix("www.") != h2.removeprefix("www."):
        return PairClass("other", m1, m2)
    s1, s2 = urlsplit(url1), urlsplit(url2)
    if (s1.path, s1.query) == (s2.path, s2.query):
        return PairClass("other", m1, m2)
    if _digits_free(url1) == _digits_free(url2):
        return PairClass("opaque_id", m1, m2)
    short = short_token_place(url1, url2)
    if short:
        return PairClass(short, m1, m2)
    return PairClass("no_marker", m1, m2)


def _place_tokens(url: str) -> list[tuple[str, str]]:
    """Lower-cased letter runs and digit runs of a URL's path and query, each with its place."""
    parts = urlsplit(url)
    segs = parts.path.split("/")[1:]
    out: list[tuple[str, str]] = []
    for i, seg in enumerate(segs):
        place = "suffix" if i == len(segs) - 1 else "dir_code"
        out += [(t, place) for t in _RUNS.findall(unquote(seg).lower())]
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        out += [(t, "query") for t in _RUNS.findall(f"{key} {value}".lower())]
    return out


def short_token_place(url1: str, url2: str) -> str | None:
    """Where two same-host URLs differ, when they differ only by code-like letter tokens (one or two
    letters, or an ISO 639-2 code of a tabled language): ``news-e``/``news-f``, ``LANG=E``/``LANG=F``,
    ``Let03en``/``Let03fr``, ``page``/``page_f``. ``None`` when they differ otherwise."""
    a, b = _place_tokens(url1), _place_tokens(url2)
    ops = SequenceMatcher(None, [t for t, _ in a], [t for t, _ in b], autojunk=False).get_opcodes()
    place: str | None = None
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            continue
        changed = [t for t, _ in a[i1:i2]] + [t for t, _ in b[j1:j2]]
        if max(i2 - i1, j2 - j1) != 1 or not all(t.isalpha() and (len(t) <= 2 or t in _KNOWN_ISO3) for t in changed):
            return None
        place = place or (a[i1][1] if i2 > i1 else b[j1][1])
    return place
