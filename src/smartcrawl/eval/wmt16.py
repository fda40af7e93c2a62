"""WMT16 document-alignment evaluation of URL-pair scorers: recall and soft recall with 1-1 alignments.

The paper (Table 3) scores the Cartesian product of the English x French URLs of each web site of the
WMT16 test set and keeps 1-1 alignments. This module does the same for any scorer object with
``parallel_probs(pairs) -> np.ndarray`` (P(parallel) per ``(src_url, trg_url)`` pair):

1. **Candidates** (one set per web domain, the registered domain of the URL). With ``.lett`` files,
   every ``src_lang`` document x every ``trg_lang`` document of the domain (the task's
   "all pairs of documents from the same webdomain"). Without them only the gold URLs are known, so
   the candidates are the gold English x gold French URLs of each domain: an easier task than the
   paper's, and the written metrics say so. ``candidates="gold_touching"`` keeps only pairs with at
   least one gold URL, as the paper authors' evaluation script does to save time.
2. **Scoring** in batches; a pair is *positive* when its score is ``>= threshold`` (0.5, the authors'
   ``--parallel-threshold`` default; the URL-matching baseline gives 1.0 or 0.0).
3. **1-1 alignment**, greedy: positives in descending score, ties by ``(src_url, trg_url)`` (the
   authors' script sorts the pairs as strings before a stable sort by score). ``one_to_one="official"``
   is the task's ``eval.py``: a pair is kept when neither URL is in an already kept pair.
   ``one_to_one="authors"`` is the authors' ``evaluation/wmt16.py``: a positive pair also uses up
   its URLs when it is itself rejected.
4. **Recall** = gold pairs among the kept pairs / all gold pairs (``eval.py``: found / reference
   pairs, in percent). **Soft recall** (Buck & Koehn 2016's near matches, as implemented in the
   authors' script): a kept pair that is not gold but shares exactly one URL with a gold pair
   (the other URL not being a gold URL) also finds that gold pair when the text of its other
   document is a near duplicate of the gold document on the same side: ``1 - lev(a, b) / max(|a|, |b|)
   >= 0.95`` on the ``.lett`` texts (stripped), and neither URL of that gold pair was used by an
   earlier pair. Each gold pair counts once. Without ``.lett`` texts soft recall is ``None``.
   The authors' script reports ``tp / (tp + fn)`` with ``fn`` = gold pairs scored below the
   threshold, which leaves gold pairs lost to the 1-1 rule out of the denominator; that figure is
   written as ``recall_tp_fn`` / ``soft_recall_tp_fn``.

CLI::

    python -m smartcrawl.eval.wmt16 --pairs ../shared/data/wmt16/test.pairs --scorer matching \\
        --out results/wmt16/url-matching
    python -m smartcrawl.eval.wmt16 --pairs test.pairs --lett lett.test/ --scorer model \\
        --model-dir runs/parallel/model --out results/wmt16/ours
"""

from __future__ import annotations

import argparse
import itertools
import logging
import math
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

import numpy as np
import pandas as pd
import yaml

from smartcrawl.data.records import Rejects
from smartcrawl.data.sources import iter_pair_records
from smartcrawl.data.sources.lett import lett_files, read_lett
from smartcrawl.eval.metrics import write_metrics
from smartcrawl.models.baselines.url_matching import CachedUrlMatcher
from smartcrawl.urls import BadURL, registered_domain

log = logging.getLogger(__name__)

CandidateMode = Literal["all", "gold_touching"]
OneToOneRule = Literal["official", "authors"]
Pair = tuple[str, str]
ScoredPair = tuple[str, str, float]

NO_LETT_REASON = "no .lett files: candidates are the gold URLs only"
GOLD_ONLY_CANDIDATES = (
    "gold URLs only: Cartesian product of the English x French URLs of the gold pairs of each web domain "
    "(no .lett files; easier than the paper's candidate set of all documents of each site)"
)
LETT_CANDIDATES = "all documents: Cartesian product of the English x French documents of each web domain in the .lett files"
GOLD_TOUCHING_SUFFIX = ", restricted to pairs with at least one gold URL (the paper authors' script)"
STATUSES: tuple[str, ...] = ("found", "near_match", "blocked_by_1_1", "below_threshold", "not_a_candidate")


class PairScorer(Protocol):
    """Anything that gives P(parallel) for ``(src_url, trg_url)`` pairs."""

    def parallel_probs(self, pairs: Sequence[Pair]) -> np.ndarray:
        """One probability per pair, shape ``(len(pairs),)``."""
        ...


# ----------------------------------------------------------------------------------------- scorers


class UrlMatchingScorer:
    """The WMT16 URL-matching baseline as a scorer: 1.0 for matching pairs, 0.0 otherwise."""

    def __init__(self, src_lang: str = "eng", trg_lang: str = "fra", *, strip_host: bool = False,
                 wmt16_tokens: bool = True) -> None:
        self.src_lang, self.trg_lang = src_lang, trg_lang
        self._matcher = CachedUrlMatcher(src_lang, trg_lang, strip_host=strip_host, wmt16_tokens=wmt16_tokens)

    def parallel_probs(self, pairs: Sequence[Pair]) -> np.ndarray:
        """1.0 where removing language tokens makes the two URLs identical, else 0.0."""
        return np.fromiter((float(self._matcher.parallel(s, t)) for s, t in pairs), dtype=np.float32,
                           count=len(pairs))


class CombinedScorer:
    """URL matching first, then a model: 1.0 for pairs that URL matching accepts, the model's probability for the rest.

    The greedy 1-1 alignment takes the URL-matching pairs before any model pair (the model's
    probabilities stay below 1.0 in practice), and the model aligns what URL matching leaves over.
    """

    def __init__(self, model: PairScorer, matching: UrlMatchingScorer) -> None:
        self.model, self.matching = model, matching

    def parallel_probs(self, pairs: Sequence[Pair]) -> np.ndarray:
        """The larger of the URL-matching decision (0 or 1) and the model's probability."""
        return np.maximum(self.matching.parallel_probs(pairs), np.asarray(self.model.parallel_probs(pairs)))


# ------------------------------------------------------------------------------------ gold and sites


def web_domain(url: str) -> str:
    """The web domain candidates are grouped by: the registered domain (the host when it has none)."""
    try:
        return registered_domain(url)
    except BadURL:
        return (urlsplit(url).hostname or "").lower()


def read_gold(path: str | Path, rejects: Rejects, src_lang: str = "eng", trg_lang: str = "fra") -> list[Pair]:
    """The gold ``(src_url, trg_url)`` pairs of a WMT16 pairs file, duplicates dropped (counted in ``rejects``)."""
    seen: dict[Pair, None] = {}
    for rec in iter_pair_records("wmt16", path, rejects, src_lang=src_lang, trg_lang=trg_lang):
        pair = (rec.src_url, rec.trg_url)
        if pair in seen:
            rejects.add("duplicate_gold_pair", "\t".join(pair))
            continue
        seen[pair] = None
    return list(seen)


@dataclass(frozen=True)
class Site:
    """The candidate URLs of one web domain; ``texts`` (URL -> document text) only with ``.lett`` files."""

    domain: str
    src_urls: tuple[str, ...]
    trg_urls: tuple[str, ...]
    texts: Mapping[str, str] | None = None

    @property
    def n_candidates(self) -> int:
        """Size of the Cartesian product of the site's source and target URLs."""
        return len(self.src_urls) * len(self.trg_urls)


def sites_from_gold(gold: Iterable[Pair]) -> list[Site]:
    """One site per web domain (of the source URL) whose candidates are that domain's gold URLs, sorted by domain."""
    src: dict[str, dict[str, None]] = defaultdict(dict)
    trg: dict[str, dict[str, None]] = defaultdict(dict)
    for s, t in gold:
        d = web_domain(s)
        src[d][s] = None
        trg[d][t] = None
    return [Site(d, tuple(src[d]), tuple(trg[d])) for d in sorted(src)]


def sites_from_lett(path: str | Path, rejects: Rejects, src_lang: str = "eng", trg_lang: str = "fra") -> Iterator[Site]:
    """The sites of ``.lett`` files (one file, or all under a directory), one file at a time.

    Each file is split by web domain (a WMT16 file holds one). Documents in other languages are
    counted as ``other_language``, repeated URLs as ``duplicate_url`` (the first one is kept).
    """
    for f in lett_files(path):
        by_domain: dict[str, tuple[dict[str, None], dict[str, None], dict[str, str]]] = {}
        for doc in read_lett(f, rejects):
            if doc.lang not in (src_lang, trg_lang):
                rejects.add("other_language", f"{doc.lang}\t{doc.url}")
                continue
            src, trg, texts = by_domain.setdefault(web_domain(doc.url), ({}, {}, {}))
            if doc.url in texts:
                rejects.add("duplicate_url", doc.url)
                continue
            (src if doc.lang == src_lang else trg)[doc.url] = None
            texts[doc.url] = doc.text.strip()
        for d in sorted(by_domain):
            src, trg, texts = by_domain[d]
            yield Site(d, tuple(src), tuple(trg), texts)


# ------------------------------------------------------------------------------ candidates, scoring


def candidate_pairs(site: Site, gold_src: Mapping[str, Any], gold_trg: Mapping[str, Any],
                    mode: CandidateMode = "all") -> Iterator[Pair]:
    """The site's ``(src_url, trg_url)`` candidates: all, or only those with a gold URL (``gold_touching``)."""
    for s in site.src_urls:
        s_gold = s in gold_src
        for t in site.trg_urls:
            if mode == "all" or s_gold or t in gold_trg:
                yield s, t


def _batches(items: Iterator[Pair], size: int) -> Iterator[list[Pair]]:
    while batch := list(itertools.islice(items, size)):
        yield batch


@dataclass
class ScoredSite:
    """What scoring a site keeps: the positive pairs, every gold candidate's score, the candidate count."""

    positives: list[ScoredPair] = field(default_factory=list)
    gold_scores: dict[Pair, float] = field(default_factory=dict)
    n_candidates: int = 0


def score_site(site: Site, scorer: PairScorer, gold: Mapping[Pair, Any], gold_src: Mapping[str, Any],
               gold_trg: Mapping[str, Any], *, threshold: float = 0.5, mode: CandidateMode = "all",
               batch_size: int = 4096) -> ScoredSite:
    """Score the site's candidates in batches; keep pairs scoring ``>= threshold`` and the gold pairs' scores."""
    out = ScoredSite()
    for batch in _batches(candidate_pairs(site, gold_src, gold_trg, mode), batch_size):
        probs = np.asarray(scorer.parallel_probs(batch), dtype=np.float64).reshape(-1)
        if len(probs) != len(batch):
            raise ValueError(f"scorer returned {len(probs)} scores for {len(batch)} pairs")
        out.n_candidates += len(batch)
        for (s, t), p in zip(batch, probs.tolist()):
            if (s, t) in gold:
                out.gold_scores[(s, t)] = p
            if p >= threshold:
                out.positives.append((s, t, p))
    return out


# ---------------------------------------------------------------------------------- 1-1 alignment


def alignment_order(scored: Iterable[ScoredPair]) -> list[ScoredPair]:
    """Pairs by descending score, ties by ``(src_url, trg_url)``: the order the greedy 1-1 rule takes them in."""
    return sorted(scored, key=lambda x: (-x[2], x[0], x[1]))


class OneToOne:
    """The greedy 1-1 rule, one pair at a time (see the module notes for ``official`` and ``authors``)."""

    def __init__(self, rule: OneToOneRule = "official") -> None:
        if rule not in ("official", "authors"):
            raise ValueError(f"unknown 1-1 rule {rule!r}; allowed: official, authors")
        self.rule = rule
        self.used_src: set[str] = set()
        self.used_trg: set[str] = set()

    def is_free(self, src_url: str, trg_url: str) -> bool:
        """Whether neither URL has been used yet."""
        return src_url not in self.used_src and trg_url not in self.used_trg

    def offer(self, src_url: str, trg_url: str) -> bool:
        """Offer the next pair; returns whether it is kept, and marks the URLs the rule marks as used."""
        kept = self.is_free(src_url, trg_url)
        if kept or self.rule == "authors":
            self.used_src.add(src_url)
            self.used_trg.add(trg_url)
        return kept


def align_one_to_one(scored: Iterable[ScoredPair], rule: OneToOneRule = "official") -> list[ScoredPair]:
    """The kept pairs of a greedy 1-1 alignment of (already thresholded) scored pairs, in alignment order."""
    one = OneToOne(rule)
    return [p for p in alignment_order(scored) if one.offer(p[0], p[1])]


# ---------------------------------------------------------------------------------- text similarity


def levenshtein(a: str, b: str, max_distance: int | None = None) -> int:
    """Character edit distance (insertions, deletions, substitutions of cost 1) of two strings.

    Bit-parallel (Myers 1999 / Hyyrö 2001): one pass over the shorter string with the longer one's
    positions as the bits of Python integers. With ``max_distance`` it may stop early and return
    any value ``> max_distance`` once the distance is known to exceed it.
    """
    if len(a) < len(b):
        a, b = b, a
    m, n = len(a), len(b)
    if max_distance is not None and m - n > max_distance:
        return max_distance + 1
    if n == 0:
        return m
    peq: dict[str, int] = {}
    for i, ch in enumerate(a):
        peq[ch] = peq.get(ch, 0) | (1 << i)
    mask = (1 << m) - 1
    high = 1 << (m - 1)
    pv, mv, score = mask, 0, m
    for j, ch in enumerate(b):
        eq = peq.get(ch, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | (~(xh | pv) & mask)
        mh = pv & xh
        if ph & high:
            score += 1
        elif mh & high:
            score -= 1
        ph = ((ph << 1) | 1) & mask
        mh = (mh << 1) & mask
        pv = mh | (~(xv | ph) & mask)
        mv = ph & xv
        # Each remaining column lowers the last row by at most 1.
        if max_distance is not None and score - (n - j - 1) > max_distance:
            return max_distance + 1
    return score


def text_similarity(a: str, b: str, min_similarity: float = 0.0) -> float:
    """``1 - levenshtein(a, b) / max(len(a), len(b))`` (1.0 for two empty texts).

    Exact when the result is ``>= min_similarity``; below it, the value is only guaranteed to be
    below ``min_similarity`` (the computation stops as soon as the threshold cannot be reached).
    """
    n = max(len(a), len(b))
    if n == 0:
        return 1.0
    max_d = math.floor((1.0 - min_similarity) * n + 1e-9) if min_similarity > 0 else None
    return 1.0 - levenshtein(a, b, max_d) / n


# ------------------------------------------------------------------------------------- evaluation


@dataclass
class SiteCounts:
    """Per-domain counts (gold pairs are counted under the web domain of their source URL)."""

    gold: int = 0
    gold_candidates: int = 0
    candidates: int = 0
    positives: int = 0
    aligned: int = 0
    found: int = 0
    near_match: int = 0
    blocked_by_1_1: int = 0
    below_threshold: int = 0
    src_urls: int = 0
    trg_urls: int = 0

    def add(self, other: SiteCounts) -> None:
        """Add another count record in place."""
        for k, v in asdict(other).items():
            setattr(self, k, getattr(self, k) + v)


@dataclass(frozen=True)
class Aligned:
    """One kept pair of the 1-1 alignment and how it was judged."""

    domain: str
    rank: int
    src_url: str
    trg_url: str
    score: float
    gold: bool
    near_match_of: Pair | None = None
    similarity: float | None = None  # to the gold document it was compared with; exact when >= the threshold


@dataclass(frozen=True)
class SiteResult:
    """The alignment of one site and the gold pairs it found exactly or as near matches."""

    aligned: list[Aligned]
    found: set[Pair]
    near: set[Pair]
    blocked: set[Pair]


class GoldIndex:
    """Gold pairs with look-ups by source and by target URL."""

    def __init__(self, gold: Iterable[Pair]) -> None:
        self.pairs: dict[Pair, None] = dict.fromkeys(gold)
        self.by_src: dict[str, list[str]] = {}
        self.by_trg: dict[str, list[str]] = {}
        for s, t in self.pairs:
            self.by_src.setdefault(s, []).append(t)
            self.by_trg.setdefault(t, []).append(s)

    def near_match_candidates(self, s: str, t: str) -> list[tuple[Pair, str, str]]:
        """Gold pairs a non-gold ``(s, t)`` may near-match: ``(gold pair, predicted doc URL, gold doc URL)``.

        Only when exactly one of ``s``, ``t`` is a gold URL (both gold = a plain error).
        """
        s_gold, t_gold = s in self.by_src, t in self.by_trg
        if s_gold and not t_gold:
            return [((s, gt), t, gt) for gt in self.by_src[s]]
        if t_gold and not s_gold:
            return [((gs, t), s, gs) for gs in self.by_trg[t]]
        return []


def evaluate_site(domain: str, positives: Iterable[ScoredPair], gold: GoldIndex,
                  texts: Mapping[str, str] | None = None, *, rule: OneToOneRule = "official",
                  min_similarity: float = 0.95, credited: set[Pair] | None = None) -> SiteResult:
    """Align a site's positive pairs 1-1 and find gold pairs exactly and (with ``texts``) as near matches.

    ``credited`` holds gold pairs already found elsewhere (a domain split over several files); it is
    updated in place.
    """
    credited = set() if credited is None else credited
    one = OneToOne(rule)
    aligned: list[Aligned] = []
    found: set[Pair] = set()
    near: set[Pair] = set()
    blocked: set[Pair] = set()
    for s, t, score in alignment_order(positives):
        near_of: Pair | None = None
        sim: float | None = None
        is_gold = (s, t) in gold.pairs
        if not is_gold and texts is not None and one.is_free(s, t):
            for g, pred_doc, gold_doc in gold.near_match_candidates(s, t):
                if g in credited or not one.is_free(*g) or pred_doc not in texts or gold_doc not in texts:
                    continue
                sim = text_similarity(texts[pred_doc], texts[gold_doc], min_similarity)
                if sim >= min_similarity:
                    near_of = g
                    break
        if not one.offer(s, t):
            if is_gold:
                blocked.add((s, t))
            continue
        if is_gold and (s, t) not in credited:
            found.add((s, t))
            credited.add((s, t))
        elif near_of is not None:
            near.add(near_of)
            credited.add(near_of)
        aligned.append(Aligned(domain, len(aligned), s, t, score, is_gold, near_of, sim))
    return SiteResult(aligned, found, near, blocked - found)


def gold_status(pair: Pair, found: set[Pair], near: set[Pair], blocked: set[Pair], scores: Mapping[Pair, float],
                threshold: float) -> str:
    """The one :data:`STATUSES` entry of a gold pair, in that order of precedence."""
    if pair in found:
        return "found"
    if pair in near:
        return "near_match"
    if pair in blocked or (pair in scores and scores[pair] >= threshold):
        return "blocked_by_1_1"
    return "below_threshold" if pair in scores else "not_a_candidate"


def _pct(num: int, den: int) -> float | None:
    return 100.0 * num / den if den else None


def evaluate(gold_pairs: Sequence[Pair], sites: Iterable[Site], scorer: PairScorer, *, with_texts: bool,
             candidates: CandidateMode = "all", rule: OneToOneRule = "official", threshold: float = 0.5,
             min_similarity: float = 0.95, batch_size: int = 4096) -> tuple[dict[str, Any], pd.DataFrame, pd.DataFrame]:
    """Run the whole evaluation; returns ``(metrics, predictions, gold status)``.

    ``with_texts`` says whether the sites carry document texts (``.lett``), which makes soft recall
    computable; metrics are in percent. ``predictions`` holds the kept pairs, ``gold status`` one
    row per gold pair with one of :data:`STATUSES` and its score when it was a candidate.
    """
    gold = GoldIndex(gold_pairs)
    gold_domain = {p: web_domain(p[0]) for p in gold.pairs}
    counts: dict[str, SiteCounts] = defaultdict(SiteCounts)
    for d in gold_domain.values():
        counts[d].gold += 1
    credited: set[Pair] = set()
    found: set[Pair] = set()
    near: set[Pair] = set()
    blocked: set[Pair] = set()
    scores: dict[Pair, float] = {}
    rows: list[Aligned] = []
    n_sites = 0
    for site in sites:
        n_sites += 1
        scored = score_site(site, scorer, gold.pairs, gold.by_src, gold.by_trg, threshold=threshold,
                            mode=candidates, batch_size=batch_size)
        res = evaluate_site(site.domain, scored.positives, gold, site.texts if with_texts else None,
                            rule=rule, min_similarity=min_similarity, credited=credited)
        c = counts[site.domain]
        c.add(SiteCounts(candidates=scored.n_candidates, positives=len(scored.positives), aligned=len(res.aligned),
                         src_urls=len(site.src_urls), trg_urls=len(site.trg_urls)))
        scores.update(scored.gold_scores)
        found |= res.found
        near |= res.near
        blocked |= res.blocked
        rows.extend(res.aligned)
        log.info("%s: %d x %d URLs, %d candidates, %d positive, %d aligned, %d gold found (+%d near)",
                 site.domain, len(site.src_urls), len(site.trg_urls), scored.n_candidates,
                 len(scored.positives), len(res.aligned), len(res.found), len(res.near))
    status = {p: gold_status(p, found, near, blocked, scores, threshold) for p in gold.pairs}
    for p, st in status.items():
        c = counts[gold_domain[p]]
        c.gold_candidates += p in scores
        if st != "not_a_candidate":
            setattr(c, st, getattr(c, st) + 1)
    n_gold = len(gold.pairs)
    n = {st: sum(1 for v in status.values() if v == st) for st in STATUSES}
    # The authors' fn: every gold candidate scored below the threshold, near-matched or not.
    below = sum(1 for v in scores.values() if v < threshold)
    tp_fn = n["found"] + below
    soft_tp_fn = n["found"] + n["near_match"] + below
    candidate_set = LETT_CANDIDATES if with_texts else GOLD_ONLY_CANDIDATES
    if candidates == "gold_touching":
        candidate_set += GOLD_TOUCHING_SUFFIX
    total = SiteCounts()
    for c in counts.values():
        total.add(c)
    metrics: dict[str, Any] = {
        "task": "wmt16_document_alignment",
        "recall": _pct(n["found"], n_gold),
        "soft_recall": _pct(n["found"] + n["near_match"], n_gold) if with_texts else None,
        "soft_recall_null_reason": None if with_texts else NO_LETT_REASON,
        "recall_tp_fn": _pct(n["found"], tp_fn),
        "soft_recall_tp_fn": _pct(n["found"] + n["near_match"], soft_tp_fn) if with_texts else None,
        "candidate_set": candidate_set,
        "n_gold": n_gold,
        "n_domains": len(counts),
        "n_sites_scored": n_sites,
        "n_candidates": total.candidates,
        "n_positive": total.positives,
        "n_aligned": total.aligned,
        "gold_status": n,
        "settings": {"candidates": candidates, "one_to_one": rule, "threshold": threshold,
                     "min_similarity": min_similarity, "with_texts": with_texts},
        "definitions": {
            "recall": "gold pairs among the 1-1 aligned pairs / all gold pairs (WMT16 eval.py), percent",
            "soft_recall": "as recall, also counting a gold pair found by a near match: an aligned non-gold pair "
                           "sharing one URL with it whose other document's text has "
                           f"1 - levenshtein / max length >= {min_similarity} with the gold document's "
                           "(Buck & Koehn 2016; the paper authors' evaluation/wmt16.py)",
            "recall_tp_fn": "found / (found + gold pairs scored below the threshold); soft: (found + near) / "
                            "(found + near + below): the paper authors' script's formula, which leaves gold pairs "
                            "lost to the 1-1 rule out of the denominator",
            "one_to_one": "greedy by descending score, ties by (src_url, trg_url); official: only kept pairs use up "
                          "their URLs; authors: every positive pair does",
        },
        "domains": {d: asdict(counts[d]) for d in sorted(counts)},
    }
    pred = pd.DataFrame(
        [{"domain": a.domain, "rank": a.rank, "src_url": a.src_url, "trg_url": a.trg_url, "score": a.score,
          "gold": a.gold, "near_match": a.near_match_of is not None,
          "near_match_src": a.near_match_of[0] if a.near_match_of else None,
          "near_match_trg": a.near_match_of[1] if a.near_match_of else None,
          "similarity": a.similarity} for a in rows],
        columns=["domain", "rank", "src_url", "trg_url", "score", "gold", "near_match", "near_match_src",
                 "near_match_trg", "similarity"],
    )
    gold_df = pd.DataFrame(
        [{"domain": gold_domain[p], "src_url": p[0], "trg_url": p[1], "status": status[p],
          "score": scores.get(p)} for p in gold.pairs],
        columns=["domain", "src_url", "trg_url", "status", "score"],
    )
    return metrics, pred, gold_df


# --------------------------------------------------------------------------------------------- run


SCORERS: tuple[str, ...] = ("matching", "model", "combined")


def build_scorer(kind: str, *, model_dir: str | Path | None = None, src_lang: str = "eng", trg_lang: str = "fra",
                 device: str | None = None, batch_size: int = 64, backend: str = "torch",
                 threads: int | None = None) -> PairScorer:
    """``matching`` (:class:`UrlMatchingScorer`), ``model`` (:class:`smartcrawl.models.scorer.ParallelScorer`
    of ``model_dir``) or ``combined`` (:class:`CombinedScorer`: URL matching, then the model).

    ``backend`` (``torch``, ``onnx``, ``onnx-int8``) and ``threads`` apply to the model only.
    """
    if kind not in SCORERS:
        raise ValueError(f"unknown scorer {kind!r}; allowed: {', '.join(SCORERS)}")
    if kind == "matching":
        return UrlMatchingScorer(src_lang, trg_lang)
    if model_dir is None:
        raise ValueError(f"--scorer {kind} needs --model-dir")
    from smartcrawl.models.scorer import ParallelScorer  # torch/transformers only when a model is used

    model = ParallelScorer(model_dir, device, batch_size, backend, threads)
    if kind == "model":
        return model
    return CombinedScorer(model, UrlMatchingScorer(src_lang, trg_lang))


def run(pairs_path: str | Path, out_dir: str | Path, scorer: PairScorer, *, lett: str | Path | None = None,
        scorer_name: str = "", src_lang: str = "eng", trg_lang: str = "fra", candidates: CandidateMode = "all",
        rule: OneToOneRule = "official", threshold: float = 0.5, min_similarity: float = 0.95,
        batch_size: int = 4096) -> dict[str, Any]:
    """Evaluate ``scorer`` on a WMT16 pairs file (and ``.lett`` files when given).

    Writes ``config.yaml`` (the arguments), ``metrics.json``, ``predictions.parquet`` (kept pairs) and
    ``gold.parquet`` (status of each gold pair) under ``out_dir``; returns the metrics.
    """
    rejects = Rejects()
    gold = read_gold(pairs_path, rejects, src_lang, trg_lang)
    if not gold:
        raise ValueError(f"no gold pairs in {pairs_path}")
    sites: Iterable[Site]
    sites = sites_from_lett(lett, rejects, src_lang, trg_lang) if lett is not None else sites_from_gold(gold)
    metrics, pred, gold_df = evaluate(gold, sites, scorer, with_texts=lett is not None, candidates=candidates,
                                      rule=rule, threshold=threshold, min_similarity=min_similarity,
                                      batch_size=batch_size)
    metrics = {"scorer": scorer_name, "pairs": str(pairs_path), "lett": None if lett is None else str(lett),
               "src_lang": src_lang, "trg_lang": trg_lang, **metrics, "rejects": rejects.summary()}
    config = {"scorer": scorer_name, "pairs": str(pairs_path), "lett": None if lett is None else str(lett),
              "src_lang": src_lang, "trg_lang": trg_lang, **metrics["settings"], "batch_size": batch_size}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
    write_metrics(out / "metrics.json", metrics)
    pred.to_parquet(out / "predictions.parquet", index=False)
    gold_df.to_parquet(out / "gold.parquet", index=False)
    return metrics


def summary(metrics: Mapping[str, Any]) -> str:
    """One line: recall, soft recall (or why not), candidates and domains."""
    def fmt(x: float | None) -> str:
        return "n/a" if x is None else f"{x:.2f}"

    soft = fmt(metrics["soft_recall"]) if metrics["soft_recall"] is not None else f"n/a ({metrics['soft_recall_null_reason']})"
    return (f"recall {fmt(metrics['recall'])} | soft recall {soft} | recall tp/(tp+fn) {fmt(metrics['recall_tp_fn'])} | "
            f"{metrics['n_gold']} gold pairs, {metrics['n_candidates']} candidates, {metrics['n_domains']} domains")


def main(argv: Sequence[str] | None = None) -> None:
    """Command line (see the module notes)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--pairs", required=True, type=Path, help="gold pairs file: src_url TAB trg_url")
    p.add_argument("--lett", type=Path, default=None, help=".lett(.gz) file or directory: all documents of each site")
    p.add_argument("--scorer", required=True, choices=SCORERS,
                   help="matching: the URL-matching baseline; model: a trained pair model; combined: URL "
                        "matching first, the model for the rest")
    p.add_argument("--model-dir", type=Path, default=None, help="trained parallel model dir (--scorer model|combined)")
    p.add_argument("--out", required=True, type=Path, help="results dir, e.g. results/wmt16/<name>/")
    p.add_argument("--candidates", choices=["all", "gold_touching"], default="all")
    p.add_argument("--one-to-one", choices=["official", "authors"], default="official")
    p.add_argument("--threshold", type=float, default=0.5, help="a pair is positive when its score is >= this")
    p.add_argument("--min-similarity", type=float, default=0.95, help="near-match text similarity (soft recall)")
    p.add_argument("--src-lang", default="eng")
    p.add_argument("--trg-lang", default="fra")
    p.add_argument("--batch-size", type=int, default=4096, help="pairs per scorer call")
    p.add_argument("--model-batch-size", type=int, default=64, help="pairs per model forward pass")
    p.add_argument("--device", default=None)
    p.add_argument("--backend", choices=["torch", "onnx", "onnx-int8"], default="torch",
                   help="model backend (onnx/onnx-int8 need `python -m smartcrawl.models.onnx_export MODEL_DIR --int8`)")
    p.add_argument("--threads", type=int, default=None, help="CPU threads of the model (default: the backend's)")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    scorer = build_scorer(args.scorer, model_dir=args.model_dir, src_lang=args.src_lang, trg_lang=args.trg_lang,
                          device=args.device, batch_size=args.model_batch_size, backend=args.backend,
                          threads=args.threads)
    name = {"matching": "url_matching", "model": f"model:{args.model_dir}",
            "combined": f"url_matching+model:{args.model_dir}"}[args.scorer]
    if args.scorer != "matching" and args.backend != "torch":
        name += f" ({args.backend})"
    metrics = run(args.pairs, args.out, scorer, lett=args.lett, scorer_name=name, src_lang=args.src_lang,
                  trg_lang=args.trg_lang, candidates=args.candidates, rule=args.one_to_one, threshold=args.threshold,
                  min_similarity=args.min_similarity, batch_size=args.batch_size)
    print(summary(metrics))


if __name__ == "__main__":
    main()
