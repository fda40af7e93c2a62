"""URL-rules language baseline (paper, Section 3.1): language codes found in four parts of a URL.

The four parts are the query-parameter values (``params``), the directory names (``dirs``), the public
suffix (``suffix``) and the subdomain (``subdomain``). Each part is compared with the ISO 639-1 and
ISO 639-2 codes of the languages the classifier knows (the label set of the training data); the parts
are examined in a fixed order and the first part that holds a code decides; nothing found gives
:data:`~smartcrawl.langs.UNKNOWN`. The order is chosen on dev by trying all 24 orders
(:func:`fit_order`); the paper's best is params, dirs, suffix, subdomain.

Matching follows the authors' ``url2lang/evaluation/baseline.py``:

- a query-parameter value, a directory name, the whole subdomain or the whole public suffix must
  *equal* a code (``?lang=fr``, ``/fr/``, ``fr.example.com``, ``example.fr``); ``www.fr.x.com`` or
  ``/fr-fr/`` do not match;
- the public suffix is compared with the *language codes* themselves, not mapped through countries:
  ``.fi`` -> fin and ``.is`` -> isl because ``fi``/``is`` are those languages' ISO 639-1 codes, ``.de``
  -> deu, ``.ca`` -> cat, ``.uk`` -> ukr, and ``.co.uk`` or ``.dk`` match nothing
  (``suffix_mode="code"``, the default). ``suffix_mode="country"`` is an alternative that maps a
  country-code suffix to the language official there (from :mod:`smartcrawl.langs`' country tables),
  taking the language whose own code is the suffix when several are official;
- matching is case-sensitive unless ``lowercase=True`` (the authors' ``--lowercase`` flag, off by default).

Within one part the leftmost code wins (the authors break such ties by their language-list order).
Besides the ISO 639-3 code and the ISO 639-1 code the authors check, the ISO 639-2/B code (``fre``,
``ger``, ``ice``...) is also a code of the language here, as the paper says "ISO 639-2"
(``bibliographic=False`` turns it off).

CLI::

    python -m smartcrawl.models.baselines.url_rules --data data/prepared/langid --out results/langid/url_rules
"""

from __future__ import annotations

import argparse
import itertools
import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qsl, urlsplit

import pandas as pd

from smartcrawl.eval.metrics import Metrics, classification_metrics, summary_line, write_metrics
from smartcrawl.langs import LANGUAGES, UNKNOWN, LanguageInfo, info
from smartcrawl.urls import BadURL, host_parts, url_host

log = logging.getLogger(__name__)

PARTS: tuple[str, ...] = ("params", "dirs", "suffix", "subdomain")
PAPER_ORDER: tuple[str, ...] = ("params", "dirs", "suffix", "subdomain")
SuffixMode = Literal["code", "country"]

# Detections of one URL: part -> language found there (or None).
Detections = dict[str, str | None]


def all_orders() -> list[tuple[str, ...]]:
    """The 24 orders of the four URL parts, the paper's order first."""
    rest = [o for o in itertools.permutations(PARTS) if o != PAPER_ORDER]
    return [PAPER_ORDER, *rest]


def order_key(order: Sequence[str]) -> str:
    """A stable string name of an order, e.g. ``params>dirs>suffix>subdomain``."""
    return ">".join(order)


def _check_order(order: Sequence[str]) -> tuple[str, ...]:
    t = tuple(order)
    if sorted(t) != sorted(PARTS):
        raise ValueError(f"an order must be a permutation of {PARTS}, got {t}")
    return t


def _lang_info(iso3: str) -> LanguageInfo | None:
    try:
        return info(iso3)
    except KeyError:
        return None


def language_codes(labels: Iterable[str], bibliographic: bool = True) -> dict[str, str]:
    """Map every ISO 639-1 / 639-2 code of ``labels`` (ISO 639-3) to its label.

    ISO 639-3 codes come first, then ISO 639-1, then ISO 639-2/B, so a code never steals another
    label's own code. Labels that are not ISO 639 codes map only to themselves; ``und`` is skipped.
    """
    langs = sorted(set(labels) - {UNKNOWN})
    codes: dict[str, str] = {}
    for lang in langs:
        codes.setdefault(lang, lang)
    infos = {lang: _lang_info(lang) for lang in langs}
    for lang in langs:
        li = infos[lang]
        if li is not None and li.iso1:
            codes.setdefault(li.iso1, lang)
    if bibliographic:
        for lang in langs:
            li = infos[lang]
            if li is not None and li.iso2b:
                codes.setdefault(li.iso2b, lang)
    return codes


def country_languages(labels: Iterable[str]) -> dict[str, str]:
    """Map a country-code TLD to the one language of ``labels`` official in that country.

    From the country tables of :data:`smartcrawl.langs.LANGUAGES`. When several known languages are
    official in a country, the one whose ISO 639-1 or 639-3 code equals the TLD wins (``.es`` -> spa),
    otherwise the TLD is left out (``.ch``). ``.uk`` is the TLD of ``gb``.
    """
    known = set(labels) - {UNKNOWN}
    by_country: dict[str, list[str]] = {}
    for iso3, li in LANGUAGES.items():
        if iso3 in known:
            for cc in li.countries:
                by_country.setdefault(cc, []).append(iso3)
    out: dict[str, str] = {}
    for cc, langs in by_country.items():
        if len(langs) == 1:
            out[cc] = langs[0]
        else:
            own = [lang for lang in langs if cc in (lang, LANGUAGES[lang].iso1)]
            if len(own) == 1:
                out[cc] = own[0]
    if "gb" in out:
        out.setdefault("uk", out["gb"])
    return out


class UrlRulesClassifier:
    """Language of a URL from language codes in its parts, first part in ``order`` wins."""

    def __init__(
        self,
        labels: Iterable[str],
        order: Sequence[str] = PAPER_ORDER,
        *,
        lowercase: bool = False,
        suffix_mode: SuffixMode = "code",
        bibliographic: bool = True,
    ) -> None:
        self.labels: frozenset[str] = frozenset(labels) - {UNKNOWN}
        self.order = _check_order(order)
        self.lowercase = lowercase
        self.suffix_mode = suffix_mode
        self.bibliographic = bibliographic
        self._codes = language_codes(self.labels, bibliographic)
        if suffix_mode == "code":
            self._suffixes: Mapping[str, str] = self._codes
        elif suffix_mode == "country":
            self._suffixes = country_languages(self.labels)
        else:
            raise ValueError(f"unknown suffix_mode {suffix_mode!r} (use 'code' or 'country')")

    def with_order(self, order: Sequence[str]) -> UrlRulesClassifier:
        """A copy of this classifier that examines the parts in another order."""
        return UrlRulesClassifier(
            self.labels, order, lowercase=self.lowercase, suffix_mode=self.suffix_mode,
            bibliographic=self.bibliographic,
        )

    def _first(self, candidates: Iterable[str], table: Mapping[str, str]) -> str | None:
        for cand in candidates:
            lang = table.get(cand)
            if lang is not None:
                return lang
        return None

    def detect(self, url: str) -> Detections:
        """The language each URL part points to (``None`` where the part holds no known code)."""
        text = url.strip()
        if self.lowercase:
            text = text.lower()
        split_url = text if "://" in text else "http://" + text
        try:
            parts = urlsplit(split_url, allow_fragments=False)
            path, query = parts.path, parts.query
        except ValueError:
            path, query = "", ""
        try:
            hp = host_parts(url_host(text))
            subdomain, suffix = hp.subdomain, hp.suffix
        except BadURL:
            subdomain, suffix = "", ""
        values = (v for _, v in parse_qsl(query, keep_blank_values=False))
        return {
            "params": self._first(values, self._codes),
            "dirs": self._first((seg for seg in path.split("/") if seg), self._codes),
            "suffix": self._first([suffix] if suffix else [], self._suffixes),
            "subdomain": self._first([subdomain] if subdomain else [], self._codes),
        }

    def decide(self, detections: Detections) -> str:
        """The language of the first part, in this classifier's order, that holds a code."""
        return decide(detections, self.order)

    def predict_one(self, url: str) -> str:
        """Language (ISO 639-3) of one URL, or ``und``."""
        return self.decide(self.detect(url))

    def predict(self, urls: Iterable[str]) -> list[str]:
        """Languages (ISO 639-3, or ``und``) of many URLs."""
        return [self.predict_one(u) for u in urls]


def decide(detections: Detections, order: Sequence[str]) -> str:
    """First language found along ``order`` in a URL's per-part detections, else ``und``."""
    for part in order:
        lang = detections[part]
        if lang is not None:
            return lang
    return UNKNOWN


def score_orders(
    dev_urls: Sequence[str],
    dev_labels: Sequence[str],
    labels: Iterable[str],
    *,
    lowercase: bool = False,
    suffix_mode: SuffixMode = "code",
    bibliographic: bool = True,
) -> dict[tuple[str, ...], Metrics]:
    """Dev metrics of every one of the 24 orders (the URLs are parsed once, then each order decides).

    The keyword options are those of :class:`UrlRulesClassifier`.
    """
    clf = UrlRulesClassifier(labels, lowercase=lowercase, suffix_mode=suffix_mode, bibliographic=bibliographic)
    detections = [clf.detect(u) for u in dev_urls]
    return {
        order: classification_metrics(list(dev_labels), [decide(d, order) for d in detections])
        for order in all_orders()
    }


def best_order(scores: Mapping[tuple[str, ...], Metrics]) -> tuple[str, ...]:
    """The order of highest macro-F1; ties go to the paper's order, then to :func:`all_orders` order."""
    best: tuple[str, ...] | None = None
    for order in all_orders():
        if order in scores and (best is None or scores[order]["macro"]["f1"] > scores[best]["macro"]["f1"]):
            best = order
    if best is None:
        raise ValueError("no order was scored")
    return best


def fit_order(
    dev_urls: Sequence[str],
    dev_labels: Sequence[str],
    labels: Iterable[str],
    *,
    lowercase: bool = False,
    suffix_mode: SuffixMode = "code",
    bibliographic: bool = True,
) -> tuple[str, ...]:
    """The order of the four URL parts with the best dev macro-F1, trying all 24 orders.

    Ties go to the paper's order (params, dirs, suffix, subdomain).
    """
    scores = score_orders(
        dev_urls, dev_labels, labels, lowercase=lowercase, suffix_mode=suffix_mode, bibliographic=bibliographic
    )
    return best_order(scores)


def _read_split(data_dir: Path, split: str, columns: list[str]) -> pd.DataFrame:
    path = data_dir / f"{split}.parquet"
    if not path.is_file():
        raise FileNotFoundError(f"missing split file {path}")
    return pd.read_parquet(path, columns=columns)


def run(
    data_dir: str | Path,
    out_dir: str | Path,
    *,
    order: Sequence[str] | None = None,
    lowercase: bool = False,
    suffix_mode: SuffixMode = "code",
    bibliographic: bool = True,
) -> dict[str, Any]:
    """Fit the order on dev (unless given), evaluate on test, write ``metrics.json`` and ``predictions.parquet``.

    The label set is that of ``train.parquet``. Returns the results dict written to ``metrics.json``.
    """
    data, out = Path(data_dir), Path(out_dir)
    labels = sorted(set(_read_split(data, "train", ["lang"])["lang"].astype(str)))
    dev = _read_split(data, "dev", ["url", "lang"])
    test = _read_split(data, "test", ["url", "lang"])
    options: dict[str, object] = {"lowercase": lowercase, "suffix_mode": suffix_mode, "bibliographic": bibliographic}
    scores = score_orders(
        dev["url"].tolist(), dev["lang"].astype(str).tolist(), labels,
        lowercase=lowercase, suffix_mode=suffix_mode, bibliographic=bibliographic,
    )
    chosen = _check_order(order) if order is not None else best_order(scores)
    clf = UrlRulesClassifier(labels, chosen, lowercase=lowercase, suffix_mode=suffix_mode, bibliographic=bibliographic)
    pred = clf.predict(test["url"].tolist())
    test_metrics = classification_metrics(test["lang"].astype(str).tolist(), pred)
    results: dict[str, Any] = {
        "model": "url_rules",
        "order": list(chosen),
        "options": options,
        "labels": labels,
        "dev_f1_by_order": {order_key(o): m["macro"]["f1"] for o, m in scores.items()},
        "dev": scores[chosen],
        "test": test_metrics,
        "test_unknown_rate": 100.0 * sum(p == UNKNOWN for p in pred) / len(pred),
    }
    out.mkdir(parents=True, exist_ok=True)
    write_metrics(out / "metrics.json", results)
    pd.DataFrame({"url": test["url"], "lang": test["lang"], "pred": pred}).to_parquet(
        out / "predictions.parquet", index=False
    )
    log.info("order %s | dev %s", order_key(chosen), summary_line(scores[chosen]))
    log.info("test %s | unknown %.1f%%", summary_line(test_metrics), results["test_unknown_rate"])
    return results


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: ``--data DIR --out RESULTS_DIR`` (see :func:`run`)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--data", required=True, type=Path, help="prepared langid dir with {train,dev,test}.parquet")
    p.add_argument("--out", required=True, type=Path, help="results dir (metrics.json, predictions.parquet)")
    p.add_argument("--order", help="fixed order, e.g. params,dirs,suffix,subdomain (default: best on dev)")
    p.add_argument("--lowercase", action="store_true", help="lower-case URLs before matching")
    p.add_argument("--suffix-mode", choices=["code", "country"], default="code",
                   help="public suffix compared with language codes (authors) or mapped by country")
    p.add_argument("--no-bibliographic", action="store_true", help="ignore ISO 639-2/B codes (fre, ger, ...)")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    res = run(
        args.data, args.out,
        order=args.order.split(",") if args.order else None,
        lowercase=args.lowercase, suffix_mode=args.suffix_mode, bibliographic=not args.no_bibliographic,
    )
    print(f"order {'>'.join(res['order'])}; test {summary_line(res['test'])}")


if __name__ == "__main__":
    main()
