"""WMT16 URL-matching baseline (Buck & Koehn 2016), extended to every language of the data.

Two URLs are predicted parallel when removing language tokens from them makes them identical. The
tokens of a language are those of :meth:`smartcrawl.langs.LanguageInfo.url_tokens` (English name,
endonym, ISO 639-1 and 639-2 codes, ISO 639-1 + ``-`` + ISO 3166-1 code of each country where the
language is official; for Albanian: albanian, shqip, sqi, alb, sq, sq-al, sq-xk), the ``_`` spelling
of hyphenated tokens (``fr_fr``) and the ASCII spelling of accented names (``francais``), as the
original task's list has them. The languages the original WMT16 list already covered keep its extra
tokens (:data:`WMT16_EXTRA_TOKENS`, e.g. ``gb``, ``us``, ``e`` for English and ``f`` for French, as the
paper extends that baseline rather than replacing it; ``wmt16_tokens=False`` leaves them out).

Token removal follows the task's ``languagestripper.py`` and ``match_url_pairs.py`` (facts
re-implemented, not copied):

- a token matches case-insensitively and only as a whole token, i.e. not preceded or followed by a
  letter or digit (``/fr/``, ``page-fr.html``, ``fr_FR``; not ``france``, ``free`` or ``page3fr``);
- in each path segment a token is removed together with one ``-``/``_`` before it (``lang-FR-foo``
  -> ``lang-foo``), then any remaining token; punctuation left dangling at the start or end of a
  segment is trimmed, empty segments dropped, runs of ``_`` and ``-`` collapsed; a trailing ``/`` is
  kept only where the original path had one;
- a query parameter whose name or value is entirely a token is dropped (``?lang=fr``); other
  parameters are kept unchanged, in order;
- each URL is stripped with a cascade, a later step only when the earlier ones removed nothing:
  (1) the tokens of the URL's own language; (2) the same, also dropping query parameters whose name
  starts or ends with ``lang``, ``clang``, ``language``, ``locale`` or ``selectedlocale``
  (``?Lang=2``); (3) the tokens of every known language, dropping those parameters too;
- a pair matches when a stripped URL equals the other URL, stripped or not (``site.fr/en/x`` <->
  ``site.fr/x``; ``site.com/en/x`` <-> ``site.com/fr/x``); identical URLs never match;
- the scheme and fragment are ignored and the host is kept as it is (``strip_host=True`` also drops
  subdomain labels that are tokens, an extension). Path segments are percent-decoded so that
  endonyms written in their own script can match.

CLI::

    python -m smartcrawl.models.baselines.url_matching --data data/prepared/parallel --out results/parallel/url_matching
"""

from __future__ import annotations

import argparse
import functools
import logging
import re
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple
from urllib.parse import parse_qsl, unquote, urlsplit

import pandas as pd

from smartcrawl.eval.metrics import classification_metrics, summary_line, write_metrics
from smartcrawl.langs import LANGUAGES, info

log = logging.getLogger(__name__)

# A token boundary: not a letter or digit of any script (``_`` and ``-`` are boundaries).
_NOT_AFTER_ALNUM = r"(?<![^\W_])"
_NOT_BEFORE_ALNUM = r"(?![^\W_])"
_LEAD_PUNCT = re.compile(r"^[\W_]+")
_TRAIL_PUNCT = re.compile(r"[\W_]+$")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")

# Tokens of the original WMT16 list that the general rule (name, endonym, ISO codes, official
# countries) does not produce, for the languages that list covered.
WMT16_EXTRA_TOKENS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "ces": ("cz",),
    "deu": ("tedesco", "allemand"),
    "eng": ("en-en", "en-uk", "en-bz", "en-ab", "en-jm", "en-tt", "gb", "us", "e", "inglese", "englisch"),
    "spa": ("esp",),
    "fra": ("fran", "f"),
    "ita": ("ital",),
    "ron": ("romlang", "rom"),
    "som": ("soma", "somal", "so-so", "af-soomaali", "soomaali"),
    "tur": ("turkic",),
    "fin": ("finnisch", "suomeksi", "suominen", "suomija"),
})

# Query parameters whose name starts or ends with one of these are dropped in the cascade's later steps.
LANG_QUERY_KEYS: tuple[str, ...] = ("lang", "clang", "language", "locale", "selectedlocale")


class UrlPair(NamedTuple):
    """A URL pair to classify, languages in ISO 639-3."""

    src_url: str
    trg_url: str
    src_lang: str
    trg_lang: str


def _ascii_fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def language_tokens(lang: str, wmt16_tokens: bool = True) -> tuple[str, ...]:
    """Lower-case URL tokens of one language (ISO 639-3), as the extended WMT16 baseline uses them.

    Unknown codes give just the code itself (plus the WMT16 extras when it has some).
    """
    try:
        base = list(info(lang).url_tokens())
    except KeyError:
        base = [lang.lower()]
    if wmt16_tokens:
        base.extend(WMT16_EXTRA_TOKENS.get(lang, ()))
    toks: list[str] = []
    for tok in base:
        tok = tok.lower()
        toks.append(tok)
        folded = _ascii_fold(tok)
        if folded != tok and folded.isascii():
            toks.append(folded)
    toks.extend(t.replace("-", "_") for t in list(toks) if "-" in t)
    return tuple(dict.fromkeys(t for t in toks if t))


def _alternation(tokens: Iterable[str]) -> str:
    return "|".join(re.escape(t) for t in sorted(set(tokens), key=lambda t: (-len(t), t)))


class StrippedUrl(NamedTuple):
    """A URL in canonical form (no scheme or fragment, lower-case host) with tokens removed, and how many."""

    text: str
    removed: int


class LanguageStripper:
    """Removes the URL tokens of a set of languages from URLs (one step of the WMT16 cascade)."""

    def __init__(
        self,
        langs: Iterable[str],
        *,
        drop_lang_keys: bool = False,
        strip_host: bool = False,
        wmt16_tokens: bool = True,
    ) -> None:
        self.langs = tuple(sorted(set(langs)))
        self.drop_lang_keys = drop_lang_keys
        self.strip_host = strip_host
        tokens = [t for lang in self.langs for t in language_tokens(lang, wmt16_tokens)]
        if not tokens:
            raise ValueError("no language tokens")
        self.tokens = frozenset(tokens)
        alt = _alternation(tokens)
        self._re_token = re.compile(f"{_NOT_AFTER_ALNUM}(?:{alt}){_NOT_BEFORE_ALNUM}", re.IGNORECASE)
        simple = [t for t in tokens if "-" not in t and "_" not in t]
        self._re_dash_token = (
            re.compile(f"[-_](?:{_alternation(simple)}){_NOT_BEFORE_ALNUM}", re.IGNORECASE) if simple else None
        )

    def _strip_segment(self, seg: str) -> tuple[str, int]:
        n = 0
        out = seg
        if self._re_dash_token is not None:
            out, k = self._re_dash_token.subn("", out)
            n += k
        out, k = self._re_token.subn("", out)
        n += k
        if n and out:
            if not _LEAD_PUNCT.match(seg):
                out = _LEAD_PUNCT.sub("", out)
            if not _TRAIL_PUNCT.search(seg):
                out = _TRAIL_PUNCT.sub("", out)
        return out, n

    def _strip_path(self, path: str) -> tuple[str, int]:
        removed = 0
        segments: list[str] = []
        for raw in path.split("/"):
            if not raw:
                continue
            seg, n = self._strip_segment(unquote(raw, errors="replace"))
            removed += n
            if seg:
                segments.append(seg)
        out = "/" + "/".join(segments)
        out = re.sub(r"__+", "_", out)
        out = re.sub(r"--+", "-", out)
        out = re.sub(r"/_+", "/", out)
        out = re.sub(r"_/", "/", out)
        if segments and path.endswith("/"):
            out += "/"
        return out, removed

    def _is_token(self, text: str) -> bool:
        return bool(text) and self._re_token.fullmatch(text) is not None

    def _is_lang_key(self, key: str) -> bool:
        k = key.lower()
        return self.drop_lang_keys and any(k.startswith(x) or k.endswith(x) for x in LANG_QUERY_KEYS)

    def _strip_query(self, query: str) -> tuple[str, int]:
        kept: list[str] = []
        removed = 0
        for key, value in parse_qsl(query, keep_blank_values=True):
            if self._is_lang_key(key) or self._is_token(key) or self._is_token(value):
                removed += 1
                continue
            kept.append(f"{key}={value}")
        return "&".join(kept), removed

    def _strip_host(self, host: str) -> tuple[str, int]:
        if not self.strip_host:
            return host, 0
        labels = host.split(".")
        # Only subdomain labels (never the last two labels, which hold the registered domain).
        keep = [lab for lab in labels[:-2] if not self._is_token(lab)]
        return ".".join(keep + labels[-2:]), len(labels[:-2]) - len(keep)

    def strip(self, url: str) -> StrippedUrl:
        """The URL in canonical form with this stripper's language tokens removed, and the count removed."""
        text = url.strip()
        if not _SCHEME.match(text):
            text = "http://" + text
        try:
            parts = urlsplit(text)
            host = (parts.netloc.rsplit("@", 1)[-1]).lower()
            path, query = parts.path, parts.query
        except ValueError:
            return StrippedUrl(url.strip(), 0)
        host, n_host = self._strip_host(host)
        path, n_path = self._strip_path(path)
        query, n_query = self._strip_query(query)
        out = host + path + (f"?{query}" if query else "")
        return StrippedUrl(out, n_host + n_path + n_query)


class UrlMatcher:
    """The WMT16 URL-matching decision for one language pair (see the module notes for the cascade).

    ``all_langs`` are the languages whose tokens the cascade's last step removes (default: every
    language of :data:`smartcrawl.langs.LANGUAGES`, plus the pair's).
    """

    def __init__(
        self,
        src_lang: str,
        trg_lang: str,
        *,
        all_langs: Iterable[str] | None = None,
        strip_host: bool = False,
        wmt16_tokens: bool = True,
    ) -> None:
        self.src_lang, self.trg_lang = src_lang, trg_lang
        everyone = (set(LANGUAGES) if all_langs is None else set(all_langs)) | {src_lang, trg_lang}

        def stripper(langs: Iterable[str], drop_lang_keys: bool) -> LanguageStripper:
            return LanguageStripper(
                langs, drop_lang_keys=drop_lang_keys, strip_host=strip_host, wmt16_tokens=wmt16_tokens
            )

        last = stripper(everyone, True)
        self._cascades: dict[str, tuple[LanguageStripper, ...]] = {
            lang: (stripper([lang], False), stripper([lang], True), last) for lang in {src_lang, trg_lang}
        }

    def canonical(self, url: str) -> str:
        """The URL in the form stripped URLs are compared in (the cascade's first step for the source language)."""
        return self._cascades[self.src_lang][0].strip(url).text

    def marks(self, url: str, lang: str) -> bool:
        """Whether the URL carries a token of ``lang`` (one of the pair), e.g. ``/fi/`` or ``?lang=fi`` for Finnish."""
        return self._cascades[lang][0].strip(url).removed > 0

    def strip(self, url: str, lang: str) -> str | None:
        """The URL stripped by the first cascade step (for its language ``lang``) that removes something, else ``None``."""
        for step in self._cascades[lang]:
            res = step.strip(url)
            if res.removed:
                return res.text
        return None

    def parallel(self, src_url: str, trg_url: str) -> bool:
        """Whether one URL, stripped, equals the other one, stripped or not; identical URLs never match."""
        if src_url.strip() == trg_url.strip():
            return False
        a, b = self.strip(src_url, self.src_lang), self.strip(trg_url, self.trg_lang)
        if a is not None and (a == b or a == self.canonical(trg_url)):
            return True
        return b is not None and b == self.canonical(src_url)


class CachedUrlMatcher(UrlMatcher):
    """:class:`UrlMatcher` remembering the stripped and canonical forms of its ``max_entries`` most recent URLs.

    A URL is stripped again and again where it recurs: across the candidate pairs of a web domain,
    or as a link that many pages of a crawled site offer.
    """

    def __init__(self, src_lang: str, trg_lang: str, *, max_entries: int = 200_000, **options: Any) -> None:
        super().__init__(src_lang, trg_lang, **options)
        self.max_entries = max_entries
        self._stripped: OrderedDict[tuple[str, str], str | None] = OrderedDict()
        self._canonical: OrderedDict[str, str] = OrderedDict()

    def strip(self, url: str, lang: str) -> str | None:
        """As :meth:`UrlMatcher.strip`, cached."""
        return _cached(self._stripped, (url, lang), lambda: super(CachedUrlMatcher, self).strip(url, lang),
                       self.max_entries)

    def canonical(self, url: str) -> str:
        """As :meth:`UrlMatcher.canonical`, cached."""
        return _cached(self._canonical, url, lambda: super(CachedUrlMatcher, self).canonical(url), self.max_entries)


def _cached(cache: OrderedDict[Any, Any], key: Any, compute: Callable[[], Any], max_entries: int) -> Any:
    """``cache[key]``, computed on a miss; the least recently used entries go beyond ``max_entries``."""
    if key in cache:
        cache.move_to_end(key)
        return cache[key]
    value = cache[key] = compute()
    while len(cache) > max_entries:
        cache.popitem(last=False)
    return value


@functools.lru_cache(maxsize=256)
def _matcher(src_lang: str, trg_lang: str, strip_host: bool, wmt16_tokens: bool) -> UrlMatcher:
    return UrlMatcher(src_lang, trg_lang, strip_host=strip_host, wmt16_tokens=wmt16_tokens)


def url_matching_parallel(
    src_url: str,
    trg_url: str,
    src_lang: str,
    trg_lang: str,
    strip_host: bool = False,
    wmt16_tokens: bool = True,
) -> bool:
    """WMT16 URL matching: does removing language tokens make the two URLs identical?"""
    return _matcher(src_lang, trg_lang, strip_host, wmt16_tokens).parallel(src_url, trg_url)


class UrlMatchingBaseline:
    """Batch scorer of URL pairs with the extended WMT16 URL-matching rule (1 = parallel)."""

    def __init__(self, strip_host: bool = False, wmt16_tokens: bool = True) -> None:
        self.strip_host = strip_host
        self.wmt16_tokens = wmt16_tokens

    def predict_one(self, pair: UrlPair | Sequence[str]) -> int:
        """1 when the pair ``(src_url, trg_url, src_lang, trg_lang)`` matches, else 0."""
        src_url, trg_url, src_lang, trg_lang = pair
        return int(url_matching_parallel(src_url, trg_url, src_lang, trg_lang, self.strip_host, self.wmt16_tokens))

    def predict(self, pairs: Iterable[UrlPair | Sequence[str]]) -> list[int]:
        """0/1 predictions for many ``(src_url, trg_url, src_lang, trg_lang)`` pairs."""
        return [self.predict_one(p) for p in pairs]


def evaluate_frame(df: pd.DataFrame, pred: Sequence[int]) -> dict[str, Any]:
    """Metrics over label 0/1 of one split, overall and per language pair (``pair`` column)."""
    y_true = [int(x) for x in df["label"]]
    res: dict[str, Any] = classification_metrics(y_true, list(pred))
    by_pair: dict[str, Any] = {}
    if "pair" in df.columns:
        for pair_name, idx in df.groupby("pair", sort=True).indices.items():
            by_pair[str(pair_name)] = classification_metrics([y_true[i] for i in idx], [pred[i] for i in idx])
    res["by_pair"] = by_pair
    return res


def run(
    data_dir: str | Path,
    out_dir: str | Path,
    *,
    splits: Sequence[str] = ("test", "wmt16_test"),
    strip_host: bool = False,
    wmt16_tokens: bool = True,
) -> dict[str, Any]:
    """Score the given splits of a prepared parallel data dir; write ``metrics.json`` and ``predictions.parquet``.

    Splits whose file is missing are skipped with a warning.
    """
    data, out = Path(data_dir), Path(out_dir)
    clf = UrlMatchingBaseline(strip_host=strip_host, wmt16_tokens=wmt16_tokens)
    results: dict[str, Any] = {
        "model": "url_matching", "options": {"strip_host": strip_host, "wmt16_tokens": wmt16_tokens}
    }
    frames: list[pd.DataFrame] = []
    for split in splits:
        path = data / f"{split}.parquet"
        if not path.is_file():
            log.warning("no %s split at %s: skipped", split, path)
            continue
        df = pd.read_parquet(path)
        cols = ["src_url", "trg_url", "src_lang", "trg_lang"]
        pred = clf.predict(zip(*(df[c].astype(str).tolist() for c in cols)))
        results[split] = evaluate_frame(df, pred)
        log.info("%s %s", split, summary_line(results[split]))
        keep = [c for c in ("src_url", "trg_url", "src_lang", "trg_lang", "pair", "kind", "label") if c in df.columns]
        frame = df[keep].copy()
        frame.insert(0, "split", split)
        frame["pred"] = pred
        frames.append(frame)
    if not frames:
        raise FileNotFoundError(f"none of the splits {list(splits)} found in {data}")
    out.mkdir(parents=True, exist_ok=True)
    write_metrics(out / "metrics.json", results)
    pd.concat(frames, ignore_index=True).to_parquet(out / "predictions.parquet", index=False)
    return results


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: ``--data DIR --out RESULTS_DIR [--splits ...] [--strip-host]`` (see :func:`run`)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--data", required=True, type=Path, help="prepared parallel dir with {test,wmt16_test}.parquet")
    p.add_argument("--out", required=True, type=Path, help="results dir (metrics.json, predictions.parquet)")
    p.add_argument("--splits", nargs="+", default=["test", "wmt16_test"], help="splits to score")
    p.add_argument("--strip-host", action="store_true", help="also remove language tokens from subdomain labels")
    p.add_argument("--no-wmt16-tokens", action="store_true", help="leave out the original WMT16 list's extra tokens")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    res = run(args.data, args.out, splits=args.splits, strip_host=args.strip_host,
              wmt16_tokens=not args.no_wmt16_tokens)
    for split in args.splits:
        if split in res:
            print(f"{split} {summary_line(res[split])}")


if __name__ == "__main__":
    main()
