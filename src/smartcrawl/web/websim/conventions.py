"""How a site marks languages in its URLs, and the URLs that follow from it.

The names in :data:`CONVENTIONS` are shared by the generator and by the real-web classifier
(:mod:`smartcrawl.web.websim.classify`), so the calibration compares like with like:

- ``dir_code``: a language code as a directory (``/es/``, ``/es-ES/``, ``/spa/``);
- ``dir_name``: a language name as a directory (``/spanish/``, ``/espanol/``);
- ``subdomain``: a code as a host label (``es.example.com``);
- ``query``: a code as a query value (``?lang=es``);
- ``suffix``: a code affixed to the file name (``index.es.html``, ``page_es.htm``);
- ``country_domain``: the same name under each language's country domain (``example.es``);
- ``no_marker``: no language mark; the translations have translated (or different) slugs;
- ``opaque_id``: pages addressed by ids and translations have different ids (``?id=123``);
- ``mixed``: the two languages are marked in different places (``es.example.com`` and ``/?lang=en``);
- ``other``: anything else (e.g. each language on an unrelated domain).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import quote

from smartcrawl.langs import info
from smartcrawl.web.websim.text import ascii_fold

MARKER_CONVENTIONS: tuple[str, ...] = ("dir_code", "dir_name", "subdomain", "query", "suffix")
CONVENTIONS: tuple[str, ...] = MARKER_CONVENTIONS + ("country_domain", "no_marker", "opaque_id", "mixed", "other")
CODE_FORMS: tuple[str, ...] = ("iso1", "iso1_upper", "iso1_region", "iso3", "country")

# Top-level domains of languages whose web uses a language (not country) TLD, or a generic one.
_LANGUAGE_TLD: dict[str, str] = {"eng": "com", "eus": "eus", "cat": "cat", "glg": "gal"}
GENERIC_TLDS: tuple[str, ...] = ("com", "org", "net", "eu", "info")

# Address kinds: where the marker of one language sits (host-level marks are folded into ``host``).
NONE, DIR, QUERY, SUFFIX = "none", "dir", "query", "suffix"


@dataclass(frozen=True)
class LangAddress:
    """Where the pages of one language of a site live: their host and the path/query marker."""

    lang: str
    host: str
    kind: str = NONE
    token: str = ""
    home_path: str = ""  # home page directory when languages would otherwise share "/" (``/etusivu/``)


@dataclass(frozen=True)
class UrlStyle:
    """Site-wide URL habits that do not depend on the language."""

    scheme: str = "http"
    ext: str = ".html"  # ".html", ".htm", ".php", "/" (directory per page) or "" (bare slug)
    param: str = "lang"  # query parameter of the ``query`` convention
    suffix_sep: str = "."  # separator of the ``suffix`` convention
    opaque: bool = False  # pages addressed by ids (``opaque_id`` convention)
    id_param: str = "id"  # "id", "p", "page_id" (``/index.php?id=N``) or "node" (``/node/N``)
    page_param: str | None = None  # pagination as ``?page=N`` instead of ``/page/N/``
    slug_id: str = "none"  # numeric doc id in slugs: "none", "prefix" (``/123/slug``), "suffix" (``slug-123``)


@dataclass(frozen=True)
class SiteUrls:
    """Builds every URL of one site from its language addresses and style."""

    addresses: Mapping[str, LangAddress]
    style: UrlStyle = field(default_factory=UrlStyle)

    def _compose(self, lang: str, segs: Sequence[str], leaf: str | None, query: Sequence[tuple[str, str]]) -> str:
        addr = self.addresses[lang]
        segs = list(segs)
        query = list(query)
        if addr.kind == DIR:
            segs.insert(0, addr.token)
        elif addr.kind == QUERY:
            query.append((self.style.param, addr.token))
        elif addr.kind == SUFFIX:
            sep = self.style.suffix_sep
            if leaf is None:
                ext = self.style.ext if self.style.ext in (".html", ".htm", ".php") else ".html"
                leaf = f"index{sep}{addr.token}{ext}"
            else:
                stem, dot, ext = leaf.rpartition(".")
                leaf = f"{stem}{sep}{addr.token}.{ext}" if dot else f"{leaf}{sep}{addr.token}"
        path = "/" + "/".join(segs)
        if segs and leaf is None:
            path += "/"
        elif leaf is not None:
            path = path.rstrip("/") + "/" + leaf
        qs = "&".join(f"{k}={quote(v, safe='-_.')}" for k, v in query)
        return f"{self.style.scheme}://{addr.host}{path}" + (f"?{qs}" if qs else "")

    def home(self, lang: str) -> str:
        """The home page of ``lang``."""
        home_path = self.addresses[lang].home_path
        return self._compose(lang, (home_path,) if home_path else (), None, ())

    def listing(self, lang: str, section_slug: str, section_id: int, page: int) -> str:
        """Page ``page`` (1-based) of a section's list of documents."""
        query: list[tuple[str, str]] = []
        if self.style.opaque:
            query = [("cat", str(section_id))] + ([("page", str(page))] if page > 1 else [])
            return self._compose(lang, (), "index.php", query)
        segs = [section_slug]
        if page > 1:
            if self.style.page_param:
                query.append((self.style.page_param, str(page)))
            else:
                segs += ["page", str(page)]
        return self._compose(lang, segs, None, query)

    def doc(self, lang: str, section_slug: str, slug: str, doc_id: int) -> str:
        """A document; ``doc_id`` is the page id (opaque sites) or the number used in slugs."""
        style = self.style
        if style.opaque:
            if style.id_param == "node":
                return self._compose(lang, ("node",), str(doc_id), ())
            return self._compose(lang, (), "index.php", [(style.id_param, str(doc_id))])
        segs = [section_slug]
        if style.slug_id == "prefix":
            segs.append(str(doc_id))
        elif style.slug_id == "suffix":
            slug = f"{slug}-{doc_id}"
        if style.ext == "/":
            return self._compose(lang, segs + [slug], None, ())
        return self._compose(lang, segs, slug + style.ext, ())


def language_tld(lang: str) -> str:
    """The top-level domain a site uses for ``lang`` under the country-domain convention."""
    if lang in _LANGUAGE_TLD:
        return _LANGUAGE_TLD[lang]
    countries = info(lang).countries
    return countries[0] if countries else "com"


def code_token(lang: str, form: str, rng: random.Random) -> str:
    """A language code of the given form (one of :data:`CODE_FORMS`) as a site would write it."""
    li = info(lang)
    iso1 = li.iso1 or li.iso3
    country = li.countries[0] if li.countries else iso1
    if form == "iso1_upper":
        return iso1.upper()
    if form == "iso1_region":
        return rng.choice((f"{iso1}-{country}", f"{iso1}-{country.upper()}", f"{iso1}_{country.upper()}"))
    if form == "iso3":
        return li.iso2b if li.iso2b and rng.random() < 0.5 else li.iso3
    if form == "country":
        return country
    return iso1


def name_token(lang: str, rng: random.Random) -> str:
    """A language name as a directory: the English name or the endonym, ASCII-folded."""
    li = info(lang)
    name = li.name if rng.random() < 0.5 else li.endonym
    return ascii_fold(name).replace(" ", "-")


def _draw(rng: random.Random, weights: Mapping[str, float]) -> str:
    keys = sorted(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys])[0]


def _unique_codes(langs: Sequence[str], form_weights: Mapping[str, float], rng: random.Random,
                  host_safe: bool) -> dict[str, str]:
    """One code per language, all distinct (a colliding form falls back to ISO 639-1, then 639-3)."""
    form = _draw(rng, form_weights)
    if host_safe and form == "iso1_upper":
        form = "iso1"
    used: set[str] = set()
    tokens: dict[str, str] = {}
    for lang in langs:
        for f in (form, "iso1", "iso3"):
            tok = code_token(lang, f, rng)
            if host_safe:
                tok = tok.lower().replace("_", "-")
            if tok.lower() not in used:
                break
        used.add(tok.lower())
        tokens[lang] = tok
    return tokens


@dataclass(frozen=True)
class AddressPlan:
    """The result of :func:`assign_addresses`: per-language addresses and a style."""

    addresses: dict[str, LangAddress]
    style: UrlStyle
    translated_slugs: bool


def assign_addresses(convention: str, langs: Sequence[str], main: str, label: str, tld: str,
                     rng: random.Random, code_forms: Mapping[str, float], query_params: Mapping[str, float],
                     unmarked_main: bool, other_label: LabelMaker, marker_mix: Mapping[str, float]) -> AddressPlan:
    """Decide how each language of a site is addressed under ``convention``.

    ``label`` and ``tld`` name the site (``www.<label>.<tld>``); ``other_label`` invents unrelated
    domain names for the ``other`` convention; ``marker_mix`` weighs the two conventions of ``mixed``.
    """
    www = "www." if rng.random() < 0.7 else ""
    base_host = f"{www}{label}.{tld}"
    style = UrlStyle(
        ext=rng.choice((".html", ".html", ".htm", ".php", "/", "/", "")),
        param=_draw(rng, query_params) if query_params else "lang",
        suffix_sep=rng.choice((".", "_", "-")),
        page_param=rng.choice((None, None, "page", "p")),
        slug_id=rng.choice(("none", "none", "prefix", "suffix")),
    )
    translated = rng.random() < 0.5
    addresses: dict[str, LangAddress] = {}

    def marked(conv: str, lang: str, token_of: Mapping[str, str]) -> LangAddress:
        """The address of ``lang`` marked the ``conv`` way with its token."""
        if conv == "dir_code" or conv == "dir_name":
            return LangAddress(lang, base_host, DIR, token_of[lang])
        if conv == "subdomain":
            return LangAddress(lang, f"{token_of[lang]}.{label}.{tld}", NONE, token_of[lang])
        if conv == "query":
            return LangAddress(lang, base_host, QUERY, token_of[lang])
        return LangAddress(lang, base_host, SUFFIX, token_of[lang])

    def tokens_for(conv: str) -> dict[str, str]:
        """One distinct marker token per language for ``conv``."""
        if conv == "dir_name":
            return {lang: name_token(lang, rng) for lang in langs}
        return _unique_codes(langs, code_forms, rng, host_safe=conv == "subdomain")

    if convention in MARKER_CONVENTIONS:
        if convention == "suffix" and style.ext in ("/", ""):
            style = _replace_ext(style, rng.choice((".html", ".htm", ".php")))
        token_of = tokens_for(convention)
        for lang in langs:
            if lang == main and unmarked_main:
                addresses[lang] = LangAddress(lang, base_host)
            else:
                addresses[lang] = marked(convention, lang, token_of)
    elif convention == "mixed":
        weights = {c: w for c, w in marker_mix.items() if c in MARKER_CONVENTIONS and w > 0}
        first = _draw(rng, weights) if weights else "dir_code"
        rest = {c: w for c, w in weights.items() if c != first} or {"query": 1.0}
        second = _draw(rng, rest)
        if "suffix" in (first, second) and style.ext in ("/", ""):
            style = _replace_ext(style, ".html")
        tok1, tok2 = tokens_for(first), tokens_for(second)
        others = [lang for lang in langs if lang != main]
        for i, lang in enumerate([main] + others):
            conv, toks = (first, tok1) if i == 0 or (i > 1 and rng.random() < 0.5) else (second, tok2)
            addresses[lang] = marked(conv, lang, toks)
    elif convention == "country_domain":
        used: set[str] = set()
        for lang in langs:
            ltld = language_tld(lang)
            host = f"{www}{label}.{ltld}" if ltld not in used else f"{www}{label}-{code_token(lang, 'iso1', rng)}.{ltld}"
            used.add(ltld)
            addresses[lang] = LangAddress(lang, host)
        translated = rng.random() < 0.7
    elif convention == "other":
        for lang in langs:
            host = base_host if lang == main else f"{www}{other_label.new()}.{rng.choice((language_tld(lang),) + GENERIC_TLDS)}"
            addresses[lang] = LangAddress(lang, host)
        translated = True
    elif convention == "opaque_id":
        addresses = {lang: LangAddress(lang, base_host) for lang in langs}
        style = UrlStyle(ext=style.ext, opaque=True, id_param=rng.choice(("id", "id", "p", "page_id", "node")))
    else:  # no_marker: one host, no marker, translated slugs keep the URLs apart
        addresses = {lang: LangAddress(lang, base_host) for lang in langs}
        translated = True
    return AddressPlan(addresses, style, translated)


def _replace_ext(style: UrlStyle, ext: str) -> UrlStyle:
    return UrlStyle(style.scheme, ext, style.param, style.suffix_sep, style.opaque, style.id_param,
                    style.page_param, style.slug_id)


class LabelMaker:
    """Invents distinct, pronounceable domain labels (``velmora``, ``kantosa-travel``)."""

    _ONSETS = ("b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "tr", "st", "gr")
    _NUCLEI = ("a", "e", "i", "o", "u", "ai", "ou", "ea")
    _CODAS = ("", "", "n", "r", "s", "l", "x", "m")
    _WORDS = ("travel", "news", "shop", "group", "media", "online", "info", "hotel", "studio", "design", "press", "web")

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._used: set[str] = set()

    def new(self) -> str:
        """A label not handed out before by this maker."""
        rng = self._rng
        while True:
            word = "".join(rng.choice(self._ONSETS) + rng.choice(self._NUCLEI) for _ in range(rng.randint(2, 3)))
            word += rng.choice(self._CODAS)
            if rng.random() < 0.3:
                word += "-" + rng.choice(self._WORDS)
            if word not in self._used:
                self._used.add(word)
                return word
