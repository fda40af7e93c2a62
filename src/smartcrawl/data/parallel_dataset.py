"""The URL-pair (parallelism) data set: positives, synthetic and real negatives, domain splits, card.

``python prepare_data.py task=parallel negatives=rand+jaccard+remove`` ends here. Steps:

1. Positives are streamed from the configured sources; each is checked (languages known, both
   URLs parse, the two URLs differ; else counted in :class:`Rejects` by reason) and de-duplicated
   (a pair and its reverse are the same pair). The web domain is the registered domain of the
   source-side URL.
2. ``test_sources`` (WMT16 test) form their own output, ``wmt16_test.parquet``; every domain they
   touch is removed from the other sources (counted as ``domain_in_test_sources``), so nothing of
   those sites leaks into train/dev/test.
3. The other positives go to train/dev/test by :class:`SplitFractions` (a salted hash of the
   domain). A pair whose two URLs' domains fall into different outputs is dropped
   (``cross_split_domains``), so every URL of an output belongs to that output's domains.
4. Negatives are generated per output from groups of positives of one web domain and one
   language pair, with the fallback pool of the same language pair in the same output (see
   :mod:`smartcrawl.data.negatives`); ``.lett`` files add real link negatives
   (:mod:`smartcrawl.data.negatives_lett`). A negative is never a positive nor a repeat.
5. Each output is shuffled (seeded) and written as Parquet; ``card.json`` holds Table 2 (positives
   and negatives per language pair and split), per-generator counts, filters, rejects, config.

Scaling assumption: all positives (about 72k unique pairs for the shared data; ~200 bytes each)
and one output's rows at a time are held in memory; negatives are generated group by group. A
few million positives fit in a few GB; beyond that, shard the sources by domain hash.
"""

from __future__ import annotations

import json
import logging
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from smartcrawl.data.negatives import (
    FALLBACKS,
    GENERATION_ORDER,
    GENERATORS,
    NEGATIVE_NAMES,
    NegativeFilter,
    PositiveGroup,
    generate_groups,
)
from smartcrawl.data.negatives_lett import LettPage, lett_link_negatives
from smartcrawl.data.parquet_io import SplitWriter, write_card
from smartcrawl.data.records import PairRecord, Rejects, SourceSpec
from smartcrawl.data.splits import SPLITS, SplitFractions, stable_hash64
from smartcrawl.langs import UNKNOWN, to_iso3
from smartcrawl.urls import BadURL, registered_domain

log = logging.getLogger(__name__)

TEST_OUTPUT = "wmt16_test"
OUTPUTS: tuple[str, ...] = (*SPLITS, TEST_OUTPUT)
POSITIVE_KIND = "positive"
LETT_KIND = "lett_real"

PARALLEL_SCHEMA = pa.schema(
    [
        ("src_url", pa.string()),
        ("trg_url", pa.string()),
        ("src_lang", pa.string()),
        ("trg_lang", pa.string()),
        ("pair", pa.string()),  # src_lang-trg_lang of this row ("eng-eng" for a monolingual negative)
        ("label", pa.int8()),  # 1 parallel, 0 not
        ("kind", pa.string()),  # "positive", a generator name, or "lett_real"
        ("domain", pa.string()),  # web domain of the positive the row comes from (the split key)
        ("source", pa.string()),  # source of that positive
        ("origin_pair", pa.string()),  # language pair of that positive (Table 2 rows)
    ]
)
_WRITE_CHUNK = 65536


@dataclass(frozen=True, slots=True)
class _Positive:
    src_url: str
    trg_url: str
    src_lang: str
    trg_lang: str
    domain: str
    source: str

    @property
    def pair(self) -> str:
        return f"{self.src_lang}-{self.trg_lang}"


def check_options(generators: Sequence[str], per_positive: int, fallback: str, lett_per_positive: int) -> None:
    """Raise :class:`ValueError` naming the key and what is allowed when an option is wrong."""
    for g in generators:
        if g not in GENERATORS:
            raise ValueError(f"negatives: unknown generator {g!r}; allowed: {', '.join(NEGATIVE_NAMES)}")
    if isinstance(per_positive, bool) or not isinstance(per_positive, int) or per_positive < 0:
        raise ValueError(
            f"per_positive: must be an integer >= 0 (negatives per positive per generator), got {per_positive!r}"
        )
    if fallback not in FALLBACKS:
        raise ValueError(f"fallback: unknown value {fallback!r}; allowed: {', '.join(FALLBACKS)}")
    if isinstance(lett_per_positive, bool) or not isinstance(lett_per_positive, int) or lett_per_positive < 0:
        raise ValueError(f"lett_per_positive: must be an integer >= 0, got {lett_per_positive!r}")


def build_parallel_dataset(
    sources: Sequence[SourceSpec],
    test_sources: Sequence[SourceSpec],
    generators: Sequence[str],
    per_positive: int,
    fractions: SplitFractions,
    out_dir: str | Path,
    seed: int,
    lett_sources: Sequence[SourceSpec] = (),
    rejects: Rejects | None = None,
    *,
    fallback: str = "pair",
    lett_per_positive: int = 2,
    config: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Read the configured sources and build the parallel data set; returns the card.

    ``sources``/``test_sources`` are read with ``smartcrawl.data.sources.iter_pair_records``;
    ``lett_sources`` (kind ``lett``, a file or a directory of ``*.lett*`` files) with ``read_lett``.
    """
    from smartcrawl.data import sources as readers

    rejects = rejects if rejects is not None else Rejects()
    check_options(generators, per_positive, fallback, lett_per_positive)
    for i, spec in enumerate(lett_sources):
        if spec.kind != "lett":
            raise ValueError(f"lett_sources[{i}].kind: unknown kind {spec.kind!r}; allowed: lett")

    def records(specs: Sequence[SourceSpec]) -> Iterator[PairRecord]:
        for spec in specs:
            yield from readers.iter_pair_records(spec.kind, spec.path, rejects, **spec.options)

    lett_files = [f for spec in lett_sources for f in _lett_files(Path(spec.path))]
    pages = [readers.read_lett(f, rejects) for f in lett_files]
    run_config = {
        "sources": [_spec_dict(s) for s in sources],
        "test_sources": [_spec_dict(s) for s in test_sources],
        "lett_sources": [_spec_dict(s) for s in lett_sources],
        "lett_files": [str(f) for f in lett_files],
        **(dict(config) if config else {}),
    }
    return build_parallel_from_records(
        records(sources),
        records(test_sources),
        generators,
        per_positive,
        fractions,
        out_dir,
        seed,
        lett_pages=pages,
        rejects=rejects,
        fallback=fallback,
        lett_per_positive=lett_per_positive,
        config=run_config,
    )


def build_parallel_from_records(
    records: Iterable[PairRecord],
    test_records: Iterable[PairRecord],
    generators: Sequence[str],
    per_positive: int,
    fractions: SplitFractions,
    out_dir: str | Path,
    seed: int,
    *,
    lett_pages: Sequence[Iterable[LettPage]] = (),
    rejects: Rejects | None = None,
    fallback: str = "pair",
    lett_per_positive: int = 2,
    config: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Build the data set from positive records (and ``.lett`` pages, one iterable per file).

    Writes ``train/dev/test/wmt16_test.parquet`` and ``card.json`` into ``out_dir``; returns the card.
    """
    started = time.monotonic()
    rejects = rejects if rejects is not None else Rejects()
    generators = tuple(generators)
    check_options(generators, per_positive, fallback, lett_per_positive)
    collected = _collect(records, test_records, fractions, rejects)
    positive_set = {(p.src_url, p.trg_url) for out in collected.positives.values() for p in out}
    filters = {out: NegativeFilter(positive_set) for out in OUTPUTS}
    lett_rows, lett_counts = _lett_negatives(lett_pages, collected, filters, lett_per_positive, seed)

    writer = SplitWriter(out_dir, PARALLEL_SCHEMA, OUTPUTS)
    stats: dict[str, Counter[tuple[str, str, int]]] = {}
    fallback_counts: Counter[tuple[str, str]] = Counter()
    for out in OUTPUTS:
        cols = _empty_columns()
        for p in collected.positives[out]:
            _append(cols, p.src_url, p.trg_url, p.src_lang, p.trg_lang, 1, POSITIVE_KIND, p, p.pair)
        for row in lett_rows[out]:
            _append(cols, *row)
        _generate_output(out, collected.positives[out], generators, per_positive, fallback, seed, filters[out], cols,
                         fallback_counts)
        stats[out] = Counter(zip(cols["origin_pair"], cols["kind"], cols["label"]))
        _write_shuffled(writer, out, cols, seed)
        log.info("%s: %d positives, %d negatives", out, sum(cols["label"]), len(cols["label"]) - sum(cols["label"]))
    paths = writer.close()

    rejects.log_summary("parallel data set")
    for reason, n in collected.filtered.items():
        log.warning("parallel data set: dropped %d positive(s): %s", n, reason)
    card = _card(
        stats, paths, collected, generators, per_positive, fallback, lett_per_positive, fractions, seed,
        filters, fallback_counts, lett_counts, rejects, config, time.monotonic() - started,
    )
    write_card(Path(out_dir) / "card.json", card)
    log.info("parallel data set (positives/negatives):\n%s", table2_text(card))
    return card


def table2_text(card: Mapping[str, Any]) -> str:
    """The card's Table 2 as aligned text: one row per language pair, ``positives/negatives`` per output."""
    outs = [o for o in OUTPUTS if o in card["splits"]]
    rows = [["pair", *outs]]
    for pair, cells in card["table2"].items():
        rows.append([pair, *(f"{cells[o]['positives']}/{cells[o]['negatives']}" if o in cells else "-" for o in outs)])
    rows.append(["total", *(f"{card['splits'][o]['positives']}/{card['splits'][o]['negatives']}" for o in outs)])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows)
    return "\n".join(lines)


# --- positives --------------------------------------------------------------------------------


@dataclass
class _Collected:
    positives: dict[str, list[_Positive]]
    filtered: Counter[str]
    test_domains: set[str]
    fractions: SplitFractions
    cross_domain_pairs: int = 0

    def route(self, domain: str) -> str:
        """The output a web domain belongs to."""
        return TEST_OUTPUT if domain in self.test_domains else self.fractions.split_of(domain)


def _lang(code: str) -> str | None:
    iso3 = to_iso3(code) if isinstance(code, str) else None
    return None if iso3 in (None, UNKNOWN) else iso3


def _checked(rec: PairRecord, rejects: Rejects) -> tuple[_Positive, str] | None:
    """The record as a positive plus the target URL's domain, or ``None`` (counted)."""
    src_lang, trg_lang = _lang(rec.src_lang), _lang(rec.trg_lang)
    if src_lang is None or trg_lang is None:
        rejects.add("unknown_language", f"{rec.src_lang}\t{rec.trg_lang}\t{rec.src_url}")
        return None
    try:
        src_domain = registered_domain(rec.src_url)
        trg_domain = registered_domain(rec.trg_url)
    except BadURL as exc:
        rejects.add(exc.reason, exc.url)
        return None
    if rec.src_url.strip() == rec.trg_url.strip():
        rejects.add("identical_urls", rec.src_url)
        return None
    return _Positive(rec.src_url.strip(), rec.trg_url.strip(), src_lang, trg_lang, src_domain, rec.source), trg_domain


def _collect(
    records: Iterable[PairRecord], test_records: Iterable[PairRecord], fractions: SplitFractions, rejects: Rejects
) -> _Collected:
    got = _Collected({out: [] for out in OUTPUTS}, Counter(), set(), fractions)
    seen: set[tuple[str, str]] = set()

    def new_pair(p: _Positive) -> bool:
        key = (p.src_url, p.trg_url) if p.src_url <= p.trg_url else (p.trg_url, p.src_url)
        if key in seen:
            got.filtered["duplicate_pair"] += 1
            return False
        seen.add(key)
        return True

    for rec in test_records:
        checked = _checked(rec, rejects)
        if checked is None:
            continue
        p, trg_domain = checked
        if new_pair(p):
            got.test_domains.update((p.domain, trg_domain))
            got.positives[TEST_OUTPUT].append(p)
            got.cross_domain_pairs += p.domain != trg_domain
    for rec in records:
        checked = _checked(rec, rejects)
        if checked is None:
            continue
        p, trg_domain = checked
        out, trg_out = got.route(p.domain), got.route(trg_domain)
        if TEST_OUTPUT in (out, trg_out):
            got.filtered["domain_in_test_sources"] += 1
        elif out != trg_out:
            got.filtered["cross_split_domains"] += 1
        elif new_pair(p):
            got.positives[out].append(p)
            got.cross_domain_pairs += p.domain != trg_domain
    for out in OUTPUTS:
        got.positives[out].sort(key=lambda p: (p.pair, p.domain, p.src_url, p.trg_url))
    return got


# --- negatives --------------------------------------------------------------------------------


def _generate_output(
    out: str,
    positives: Sequence[_Positive],
    generators: Sequence[str],
    per_positive: int,
    fallback: str,
    seed: int,
    accept: NegativeFilter,
    cols: dict[str, list[Any]],
    fallback_counts: Counter[tuple[str, str]],
) -> None:
    if not generators or per_positive == 0:
        return
    by_pair: dict[str, list[_Positive]] = defaultdict(list)
    for p in positives:
        by_pair[p.pair].append(p)
    for pair in sorted(by_pair):
        members = by_pair[pair]
        src_lang, trg_lang = members[0].src_lang, members[0].trg_lang
        pool = (
            PositiveGroup(f"{out}|{pair}", src_lang, trg_lang, [(p.src_url, p.trg_url) for p in members])
            if fallback == "pair"
            else None
        )
        by_domain: dict[str, list[_Positive]] = defaultdict(list)
        for p in members:
            by_domain[p.domain].append(p)
        domains = sorted(by_domain)
        keys = [f"{out}|{pair}|{d}" for d in domains]
        groups = [
            PositiveGroup(key, src_lang, trg_lang, [(p.src_url, p.trg_url) for p in by_domain[d]])
            for key, d in zip(keys, domains)
        ]
        for gen in (g for g in GENERATION_ORDER if g in generators):
            rngs = [np.random.default_rng([seed, stable_hash64(f"{key}|{gen}")]) for key in keys]
            for neg in generate_groups(gen, groups, per_positive, rngs, accept, pool):
                origin = by_domain[domains[neg.group]][neg.origin]
                _append(cols, neg.src_url, neg.trg_url, neg.src_lang, neg.trg_lang, 0, neg.kind, origin, pair)
                if neg.from_fallback:
                    fallback_counts[(out, gen)] += 1


def _lett_negatives(
    lett_pages: Sequence[Iterable[LettPage]],
    collected: _Collected,
    filters: Mapping[str, NegativeFilter],
    per_gold_pair: int,
    seed: int,
) -> tuple[dict[str, list[tuple[Any, ...]]], Counter[str]]:
    rows: dict[str, list[tuple[Any, ...]]] = {out: [] for out in OUTPUTS}
    counts: Counter[str] = Counter()
    if not lett_pages:
        return rows, counts
    partners: dict[str, set[str]] = defaultdict(set)
    langs: dict[str, set[str]] = defaultdict(set)
    origin_of: dict[str, tuple[str, _Positive]] = {}
    for out in OUTPUTS:
        for p in collected.positives[out]:
            for a, b in ((p.src_url, p.trg_url), (p.trg_url, p.src_url)):
                partners[a].add(b)
                langs[a].update((p.src_lang, p.trg_lang))
                origin_of.setdefault(a, (out, p))
    gold_partners = {u: frozenset(v) for u, v in partners.items()}
    gold_langs = {u: frozenset(v) for u, v in langs.items()}
    for pages in lett_pages:
        counts["files"] += 1
        for neg in lett_link_negatives(pages, gold_partners, gold_langs, per_gold_pair, seed, counts):
            out, origin = origin_of[neg.src_url]
            try:
                linked_out = collected.route(registered_domain(neg.trg_url))
            except BadURL:
                counts["linked_bad_url"] += 1
                continue
            if linked_out != out:
                counts["linked_other_split"] += 1
            elif filters[out].admit(neg.src_url, neg.trg_url, LETT_KIND):
                row = (neg.src_url, neg.trg_url, neg.src_lang, neg.trg_lang, 0, LETT_KIND, origin, origin.pair)
                rows[out].append(row)
                counts["negatives"] += 1
    return rows, counts


# --- rows and output --------------------------------------------------------------------------


def _empty_columns() -> dict[str, list[Any]]:
    return {f.name: [] for f in PARALLEL_SCHEMA}


def _append(
    cols: dict[str, list[Any]], src: str, trg: str, src_lang: str, trg_lang: str, label: int, kind: str,
    origin: _Positive, origin_pair: str,
) -> None:
    cols["src_url"].append(src)
    cols["trg_url"].append(trg)
    cols["src_lang"].append(src_lang)
    cols["trg_lang"].append(trg_lang)
    cols["pair"].append(f"{src_lang}-{trg_lang}")
    cols["label"].append(label)
    cols["kind"].append(kind)
    cols["domain"].append(origin.domain)
    cols["source"].append(origin.source)
    cols["origin_pair"].append(origin_pair)


def _write_shuffled(writer: SplitWriter, out: str, cols: dict[str, list[Any]], seed: int) -> None:
    n = len(cols["label"])
    perm = np.random.default_rng([seed, stable_hash64(out, "shuffle")]).permutation(n)
    for start in range(0, n, _WRITE_CHUNK):
        idx = perm[start : start + _WRITE_CHUNK].tolist()
        writer.write_columns(out, {name: [col[i] for i in idx] for name, col in cols.items()})


def _lett_files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(f for f in path.rglob("*.lett*") if f.is_file())
    return [path]


def _spec_dict(spec: SourceSpec) -> dict[str, Any]:
    return {"kind": spec.kind, "path": str(spec.path), **spec.options}


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _card(
    stats: Mapping[str, Counter[tuple[str, str, int]]],
    paths: Mapping[str, Path],
    collected: _Collected,
    generators: Sequence[str],
    per_positive: int,
    fallback: str,
    lett_per_positive: int,
    fractions: SplitFractions,
    seed: int,
    filters: Mapping[str, NegativeFilter],
    fallback_counts: Counter[tuple[str, str]],
    lett_counts: Counter[str],
    rejects: Rejects,
    config: Mapping[str, Any] | None,
    seconds: float,
) -> dict[str, Any]:
    splits: dict[str, Any] = {}
    table2: dict[str, dict[str, dict[str, int]]] = defaultdict(dict)
    per_gen: dict[str, dict[str, Any]] = {
        g: {"emitted": 0, "per_split": {}, "from_fallback_pool": 0, "refused": Counter()}
        for g in (*generators, LETT_KIND)
    }
    for out in OUTPUTS:
        st = stats[out]
        pos = sum(n for (_, _, label), n in st.items() if label == 1)
        by_kind: Counter[str] = Counter()
        for (origin_pair, kind, label), n in st.items():
            by_kind[kind] += n
            cell = table2[origin_pair].setdefault(out, {"positives": 0, "negatives": 0})
            cell["positives" if label == 1 else "negatives"] += n
        splits[out] = {
            "file": paths[out].name,
            "rows": sum(st.values()),
            "positives": pos,
            "negatives": sum(st.values()) - pos,
            "domains": len({p.domain for p in collected.positives[out]}),
            "by_kind": dict(sorted(by_kind.items())),
        }
        for g, entry in per_gen.items():
            entry["per_split"][out] = by_kind.get(g, 0)
            entry["emitted"] += by_kind.get(g, 0)
            entry["from_fallback_pool"] += fallback_counts.get((out, g), 0)
        for (kind, reason), n in filters[out].refused.items():
            if kind in per_gen:
                per_gen[kind]["refused"][reason] += n
    for entry in per_gen.values():
        entry["refused"] = dict(sorted(entry["refused"].items()))
    totals = {k: sum(s[k] for s in splits.values()) for k in ("rows", "positives", "negatives")}
    return _jsonable(
        {
            "task": "parallel",
            "splits": splits,
            "table2": {
                pair: {out: table2[pair][out] for out in OUTPUTS if out in table2[pair]} for pair in sorted(table2)
            },
            "totals": totals,
            "negatives": {
                "generators": list(generators),
                "per_positive": per_positive,
                "fallback": fallback,
                "names": {name: list(exp) for name, exp in NEGATIVE_NAMES.items()},
            },
            "generators": per_gen,
            "lett": {"per_gold_pair": lett_per_positive, **dict(sorted(lett_counts.items()))},
            "filtered": dict(sorted(collected.filtered.items())),
            "cross_domain_pairs": collected.cross_domain_pairs,
            "test_domains": len(collected.test_domains),
            "rejects": rejects.summary(),
            "rejected_total": rejects.total,
            "seed": seed,
            "split_fractions": fractions.fractions,
            "split_salt": fractions.salt,
            "seconds": round(seconds, 2),
            "config": dict(config) if config else {},
        }
    )
