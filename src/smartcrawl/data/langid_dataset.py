"""Build the language-ID data set: (url, lang, domain) rows, capped per language, split by domain.

Input is streamed from the configured sources. Memory is bounded by the per-language cap (a
bottom-k sample by a stable hash of the URL, so which URLs are kept does not depend on input order)
plus one 64-bit key per distinct URL for de-duplication.
"""

from __future__ import annotations

import heapq
import logging
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from smartcrawl.data.parquet_io import SplitWriter, write_card
from smartcrawl.data.records import LangRecord, Rejects, SourceSpec
from smartcrawl.data.splits import SPLITS, SplitFractions, stable_hash32
from smartcrawl.urls import BadURL, registered_domain

log = logging.getLogger(__name__)

LANGID_SCHEMA = pa.schema(
    [("url", pa.string()), ("lang", pa.string()), ("domain", pa.string()), ("source", pa.string())]
)


@dataclass
class _Kept:
    """A capped per-language sample: a max-heap on the hash priority (stored negated)."""

    cap: int
    heap: list[tuple[int, str, str, str]]
    seen: int = 0

    def offer(self, priority: int, url: str, domain: str, source: str) -> None:
        self.seen += 1
        item = (-priority, url, domain, source)
        if len(self.heap) < self.cap:
            self.heap.append(item)
            if len(self.heap) == self.cap:
                heapq.heapify(self.heap)
        elif -priority > self.heap[0][0]:
            heapq.heapreplace(self.heap, item)


def held_out_domains(sources: Iterable[SourceSpec], rejects: Rejects) -> frozenset[str]:
    """Registered domains of every URL of the held-out sources (kept out of all splits)."""
    domains = set()
    for rec in iter_source_records(sources, rejects):
        try:
            domains.add(registered_domain(rec.url))
        except BadURL as exc:
            rejects.add(exc.reason, rec.url)
    return frozenset(domains)


def iter_source_records(sources: Iterable[SourceSpec], rejects: Rejects) -> Iterator[LangRecord]:
    """Stream the language records of every source, in order."""
    from smartcrawl.data.sources import iter_lang_records

    for spec in sources:
        yield from iter_lang_records(spec.kind, spec.path, rejects, **spec.options)


def build_langid_dataset(
    records: Iterable[LangRecord],
    out_dir: str | Path,
    fractions: SplitFractions,
    max_per_lang: int = 600_000,
    rejects: Rejects | None = None,
    config: dict[str, object] | None = None,
    exclude_domains: frozenset[str] = frozenset(),
) -> dict[str, object]:
    """Write ``{train,dev,test}.parquet`` and ``card.json`` into ``out_dir``; return the card.

    URLs are de-duplicated (the first language seen wins; a later, different label is counted as
    ``conflicting_language``), URLs without a registered domain are counted by reason, at most
    ``max_per_lang`` URLs per language are kept (a uniform sample, independent of input order), and
    each web domain goes to exactly one split. URLs of ``exclude_domains`` (held-out test sets such
    as WMT16 test) are left out and counted.
    """
    if max_per_lang <= 0:
        raise ValueError(f"data.max_per_lang must be a positive integer, got {max_per_lang}")
    rejects = rejects if rejects is not None else Rejects()
    out = Path(out_dir)
    started = time.perf_counter()
    salt = fractions.salt
    # In-process 64-bit key per distinct URL (collisions are negligible at 2**64); the stable
    # CRC-32 priority decides which URLs the cap keeps and the order of rows in each split.
    first_lang: dict[int, str] = {}
    kept: dict[str, _Kept] = {}
    n_in = 0
    duplicates = 0
    excluded = 0
    by_source: Counter[str] = Counter()
    for rec in records:
        n_in += 1
        key = hash(rec.url)
        prev = first_lang.get(key)
        if prev is not None:
            if prev != rec.lang:
                rejects.add("conflicting_language", f"{rec.url} {prev}/{rec.lang}")
            else:
                duplicates += 1
            continue
        try:
            domain = registered_domain(rec.url)
        except BadURL as exc:
            rejects.add(exc.reason, rec.url)
            continue
        first_lang[key] = rec.lang
        if domain in exclude_domains:
            excluded += 1
            continue
        by_source[rec.source] += 1
        sample = kept.get(rec.lang)
        if sample is None:
            sample = kept[rec.lang] = _Kept(max_per_lang, [])
        sample.offer(stable_hash32(rec.url, salt), rec.url, domain, rec.source)
    del first_lang

    # Rows of every language, each split ordered by the URL's hash: a deterministic shuffle, so any
    # prefix of a split is a uniform sample (the training curriculum and the caps rely on it).
    per_split: dict[str, list[tuple[int, str, str, str, str]]] = {s: [] for s in SPLITS}
    per_lang: dict[str, dict[str, int]] = {}
    for lang in sorted(kept):
        counts = per_lang[lang] = dict.fromkeys(SPLITS, 0)
        for neg_prio, url, domain, source in kept[lang].heap:
            split = fractions.split_of(domain)
            per_split[split].append((-neg_prio, url, lang, domain, source))
            counts[split] += 1
        kept[lang].heap = []
    writer = SplitWriter(out, LANGID_SCHEMA, SPLITS)
    domains: dict[str, set[str]] = defaultdict(set)
    for split, rows in per_split.items():
        rows.sort()
        for i in range(0, len(rows), writer.batch_rows):
            chunk = rows[i : i + writer.batch_rows]
            cols = {
                "url": [r[1] for r in chunk], "lang": [r[2] for r in chunk],
                "domain": [r[3] for r in chunk], "source": [r[4] for r in chunk],
            }
            writer.write_columns(split, cols)
            domains[split].update(cols["domain"])
        rows.clear()
    paths = writer.close()
    elapsed = time.perf_counter() - started

    card: dict[str, object] = {
        "task": "langid",
        "splits": {s: {"urls": writer.rows[s], "domains": len(domains[s]), "file": str(paths[s])} for s in SPLITS},
        "languages": len(per_lang),
        "per_language": per_lang,
        "capped": {lang: s.seen - sum(per_lang[lang].values()) for lang, s in sorted(kept.items())
                   if s.seen > sum(per_lang[lang].values())},
        "input_records": n_in,
        "duplicates": duplicates,
        "excluded_held_out_domains": {"domains": len(exclude_domains), "urls": excluded},
        "kept_per_source": dict(by_source),
        "rejects": rejects.summary(),
        "rejected_total": rejects.total,
        "max_per_lang": max_per_lang,
        "fractions": fractions.fractions,
        "split_salt": salt,
        "seconds": round(elapsed, 2),
        "config": config or {},
    }
    write_card(out / "card.json", card)
    rejects.log_summary("langid data")
    log.info(
        "langid: %d records in, %d kept in %d languages (train %d / dev %d / test %d) in %.1f s -> %s",
        n_in, sum(writer.rows.values()), len(per_lang), writer.rows["train"], writer.rows["dev"],
        writer.rows["test"], elapsed, out,
    )
    return card
