"""Calibrate websim's URL-convention mix on real URL pairs, and compare generated pairs with them.

Real pairs: the ParaCrawl human-evaluation samples (``paracrawl-human-evals/*/sorted.L1-L2``,
URL columns 1-2, languages from the file name) and the WMT16 test pairs with their manual classes
(``wmt16/test.pairs.manually_classified``: label, class, en URL, fr URL). Every pair is classified
by :func:`~smartcrawl.web.websim.classify.classify_pair`; shares are *domain-weighted* (each web
domain counts once, split over the conventions of its pairs), because websim draws one convention
per site. The pooled real shares become the default mix (``default_mix.json``), together with the
share of marked pairs whose one side carries no mark (the site's main language left unmarked; also
domain-weighted), the forms of language codes and the names of language query parameters (over
marks, pair-weighted).
"""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from smartcrawl.langs import to_iso3
from smartcrawl.urls import BadURL, registered_domain
from smartcrawl.web.websim.classify import LanguageTokens, classify_pair
from smartcrawl.web.websim.config import WebsimConfig, default_mix_path
from smartcrawl.web.websim.conventions import CODE_FORMS, CONVENTIONS, MARKER_CONVENTIONS
from smartcrawl.web.websim.generate import plan_web

DEFAULT_SHARED_DATA = Path("../shared/data")
_TOP_PARAMS = 6


@dataclass(frozen=True)
class RealPair:
    """A URL pair of translated documents from a real data set."""

    url1: str
    url2: str
    lang1: str
    lang2: str
    source: str
    label: str = ""  # WMT16 manual class (id, tr, cd)


def iter_paracrawl(root: str | Path) -> Iterator[RealPair]:
    """Pairs of every ``sorted.L1-L2`` file under ``root`` (first two tab-separated columns)."""
    for path in sorted(Path(root).rglob("sorted.*")):
        codes = path.name.removeprefix("sorted.").split("-")
        if len(codes) != 2:
            continue
        l1, l2 = to_iso3(codes[0]), to_iso3(codes[1])
        if not l1 or not l2:
            continue
        with path.open(encoding="utf-8", errors="replace") as fh:
            for line in fh:
                cols = line.rstrip("\n").split("\t")
                if len(cols) >= 2 and cols[0] and cols[1]:
                    yield RealPair(cols[0], cols[1], l1, l2, "paracrawl")


def iter_wmt16(path: str | Path) -> Iterator[RealPair]:
    """Pairs of ``test.pairs.manually_classified`` (label, class, en URL, fr URL)."""
    with Path(path).open(encoding="utf-8", errors="replace") as fh:
        for line in fh:
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 4:
                yield RealPair(cols[2], cols[3], "eng", "fra", "wmt16", cols[1])


def _domain(url: str) -> str:
    try:
        return registered_domain(url)
    except BadURL:
        return url[:40]


@dataclass
class Measurement:
    """Convention statistics of a set of URL pairs."""

    n_pairs: int = 0
    pair_counts: Counter[str] = field(default_factory=Counter)
    domain_counts: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    marked: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))  # domain -> [marked, one side]
    code_forms: Counter[str] = field(default_factory=Counter)
    query_params: Counter[str] = field(default_factory=Counter)
    by_label: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))

    def add(self, url1: str, lang1: str, url2: str, lang2: str, domain: str, label: str,
            tokens: LanguageTokens) -> str:
        """Classify and count one pair; returns its convention."""
        pc = classify_pair(url1, lang1, url2, lang2, tokens)
        self.n_pairs += 1
        self.pair_counts[pc.convention] += 1
        self.domain_counts[domain][pc.convention] += 1
        if label:
            self.by_label[label][pc.convention] += 1
        if pc.convention in MARKER_CONVENTIONS:
            self.marked[domain][0] += 1
            self.marked[domain][1] += (not pc.marks1) != (not pc.marks2)
            for mark in pc.marks1 + pc.marks2:
                if mark.form in CODE_FORMS and mark.place != "dir_name":
                    self.code_forms[mark.form] += 1
                if mark.place == "query" and mark.key:
                    self.query_params[mark.key] += 1
        return pc.convention

    @property
    def n_domains(self) -> int:
        """Number of distinct web domains."""
        return len(self.domain_counts)

    def domain_shares(self) -> dict[str, float]:
        """Share of each convention, each domain weighing 1 (split over its pairs' conventions)."""
        totals: dict[str, float] = defaultdict(float)
        for counts in self.domain_counts.values():
            n = sum(counts.values())
            for conv, c in counts.items():
                totals[conv] += c / n
        return {c: totals[c] / max(1, self.n_domains) for c in CONVENTIONS}

    def pair_shares(self) -> dict[str, float]:
        """Share of each convention over pairs."""
        return {c: self.pair_counts[c] / max(1, self.n_pairs) for c in CONVENTIONS}

    @property
    def unmarked_share(self) -> float:
        """Share of marked pairs whose one URL carries no mark, averaged over domains (like the mix)."""
        return sum(one / n for n, one in self.marked.values()) / max(1, len(self.marked))

    def code_form_shares(self) -> dict[str, float]:
        """Share of each form among the language codes found in marks."""
        n = sum(self.code_forms.values())
        return {f: self.code_forms[f] / max(1, n) for f in CODE_FORMS}

    def param_shares(self) -> dict[str, float]:
        """Shares of the most common language query parameter names (renormalised over the top ones)."""
        top = self.query_params.most_common(_TOP_PARAMS)
        n = sum(c for _, c in top)
        return {k: c / max(1, n) for k, c in top}


def measure_pairs(pairs: Iterable[RealPair], tokens: LanguageTokens | None = None) -> Measurement:
    """Classify real pairs (deduplicated) and collect their statistics."""
    tokens = tokens or LanguageTokens()
    m = Measurement()
    seen: set[tuple[str, str]] = set()
    for p in pairs:
        if (p.url1, p.url2) in seen:
            continue
        seen.add((p.url1, p.url2))
        m.add(p.url1, p.lang1, p.url2, p.lang2, _domain(p.url1), p.label, tokens)
    return m


def measure_websim(cfg: WebsimConfig, tokens: LanguageTokens | None = None) -> Measurement:
    """Classify the URL pairs (pair languages only) of a planned websim web; each site is one domain."""
    tokens = tokens or LanguageTokens()
    m = Measurement()
    l1, l2 = cfg.pair
    for site in plan_web(cfg):
        for _, members in site.groups():
            urls = dict((lang, url) for url, lang in members)
            if l1 in urls and l2 in urls:
                m.add(urls[l1], l1, urls[l2], l2, site.label, "", tokens)
    return m


@dataclass
class Calibration:
    """Real-data measurements per source and pooled."""

    sources: dict[str, Measurement]
    pooled: Measurement

    def defaults(self) -> dict[str, Any]:
        """The content of ``default_mix.json``."""
        return {
            "_comment": "Produced by `python -m smartcrawl.web websim-calibrate --write-default`; do not edit by hand.",
            "weighting": "domain",
            "sources": {k: {"pairs": m.n_pairs, "domains": m.n_domains} for k, m in self.sources.items()},
            "mix": {k: round(v, 5) for k, v in self.pooled.domain_shares().items()},
            "unmarked_main_share": round(self.pooled.unmarked_share, 5),
            "code_forms": {k: round(v, 5) for k, v in self.pooled.code_form_shares().items()},
            "query_params": {k: round(v, 5) for k, v in self.pooled.param_shares().items()},
        }


def calibrate(shared_data: str | Path = DEFAULT_SHARED_DATA) -> Calibration:
    """Measure the real pairs found under ``shared_data`` (raises when neither source is there)."""
    root = Path(shared_data)
    groups: dict[str, list[RealPair]] = {}
    if (root / "paracrawl-human-evals").is_dir():
        groups["paracrawl"] = list(iter_paracrawl(root / "paracrawl-human-evals"))
    wmt = root / "wmt16" / "test.pairs.manually_classified"
    if wmt.is_file():
        groups["wmt16"] = list(iter_wmt16(wmt))
    if not groups:
        raise FileNotFoundError(f"no ParaCrawl or WMT16 pairs under {root}")
    tokens = LanguageTokens()
    sources = {k: measure_pairs(v, tokens) for k, v in groups.items()}
    pooled = measure_pairs((p for v in groups.values() for p in v), tokens)
    return Calibration(sources, pooled)


def write_defaults(calibration: Calibration, path: str | Path | None = None) -> Path:
    """Write ``default_mix.json`` (the package's copy unless ``path`` is given)."""
    p = Path(path) if path else default_mix_path()
    tmp = p.with_suffix(".tmp")
    tmp.write_text(json.dumps(calibration.defaults(), indent=1, sort_keys=False) + "\n", encoding="utf-8")
    os.replace(tmp, p)
    return p


def calibration_table(calibration: Calibration, generated: Measurement, mix: dict[str, float]) -> str:
    """Real vs generated convention shares (domain-weighted, in %), plus the secondary statistics."""
    cols = list(calibration.sources) + ["real"]
    shares = {k: m.domain_shares() for k, m in calibration.sources.items()}
    shares["real"] = calibration.pooled.domain_shares()
    gen = generated.domain_shares()
    total = sum(mix.values()) or 1.0
    head = f"{'convention':<16}" + "".join(f"{c:>11}" for c in cols) + f"{'websim mix':>12}{'websim':>9}"
    lines = ["URL-convention shares, % (domain-weighted; real = pooled target)", head, "-" * len(head)]
    for conv in CONVENTIONS:
        row = f"{conv:<16}" + "".join(f"{100 * shares[c][conv]:>11.1f}" for c in cols)
        lines.append(row + f"{100 * mix.get(conv, 0.0) / total:>12.1f}{100 * gen[conv]:>9.1f}")
    lines.append("-" * len(head))
    n_row = f"{'pairs':<16}" + "".join(f"{(calibration.sources[c] if c != 'real' else calibration.pooled).n_pairs:>11}" for c in cols)
    lines.append(n_row + f"{'':>12}{generated.n_pairs:>9}")
    d_row = f"{'domains':<16}" + "".join(f"{(calibration.sources[c] if c != 'real' else calibration.pooled).n_domains:>11}" for c in cols)
    lines.append(d_row + f"{'':>12}{generated.n_domains:>9}")
    lines.append("")
    lines.append(f"one URL unmarked among marked pairs: real {100 * calibration.pooled.unmarked_share:.1f} %, "
                 f"websim {100 * generated.unmarked_share:.1f} %")
    rf, gf = calibration.pooled.code_form_shares(), generated.code_form_shares()
    lines.append("code forms, % real/websim: " + ", ".join(f"{f} {100 * rf[f]:.1f}/{100 * gf[f]:.1f}" for f in CODE_FORMS))
    rp, gp = calibration.pooled.param_shares(), generated.param_shares()
    lines.append("query parameters, % real/websim: " + ", ".join(f"{k} {100 * v:.1f}/{100 * gp.get(k, 0.0):.1f}" for k, v in rp.items()))
    wmt = calibration.sources.get("wmt16")
    if wmt and wmt.by_label:
        lines.append("")
        lines.append("WMT16 manual class (rows) vs this classifier (columns), pairs:")
        used = [c for c in CONVENTIONS if any(wmt.by_label[lab][c] for lab in wmt.by_label)]
        lines.append(f"{'':<6}" + "".join(f"{c[:10]:>11}" for c in used))
        for lab in sorted(wmt.by_label):
            lines.append(f"{lab:<6}" + "".join(f"{wmt.by_label[lab][c]:>11}" for c in used))
    return "\n".join(lines)


def generated_measurement(mix_source: dict[str, Any], pair: tuple[str, str] = ("eng", "mlt"), n_sites: int = 1000,
                          n_pages: int = 60_000, seed: int = 0) -> Measurement:
    """Plan a web with the calibrated defaults in ``mix_source`` and measure its pairs."""
    cfg = WebsimConfig(pair=pair, n_sites=n_sites, n_pages=n_pages, seed=seed)
    cfg = replace(cfg, mix=mix_source["mix"], unmarked_main_share=mix_source["unmarked_main_share"],
                  code_forms=mix_source["code_forms"], query_params=mix_source["query_params"])
    return measure_websim(cfg)
