"""A small, deterministic subset of a WMT16 gold-pairs file for the ``small`` setting::

    python -m smartcrawl.experiments.subset_pairs --pairs ../shared/data/wmt16/test.pairs \\
        --out runs/small/wmt16-test-subset.pairs --max-domains 40 --max-pairs-per-domain 40

Keeps every gold pair of the first ``max-domains`` web domains (sorted by name) that have at most
``max-pairs-per-domain`` gold pairs, so the Cartesian product of each site's URLs stays small.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from smartcrawl.eval.wmt16 import web_domain


def subset_lines(lines: Sequence[str], max_domains: int, max_pairs_per_domain: int) -> list[str]:
    """The lines of the kept domains, in their original order."""
    by_domain: dict[str, list[int]] = defaultdict(list)
    for i, line in enumerate(lines):
        src = line.split("\t", 1)[0].strip()
        if src:
            by_domain[web_domain(src)].append(i)
    kept = [d for d in sorted(by_domain) if len(by_domain[d]) <= max_pairs_per_domain][:max_domains]
    keep = sorted(i for d in kept for i in by_domain[d])
    return [lines[i] for i in keep]


def main(argv: Sequence[str] | None = None) -> int:
    """Command line (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--max-domains", type=int, default=40)
    ap.add_argument("--max-pairs-per-domain", type=int, default=40)
    args = ap.parse_args(argv)
    lines = args.pairs.read_text(encoding="utf-8").splitlines(keepends=True)
    out = subset_lines(lines, args.max_domains, args.max_pairs_per_domain)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(out), encoding="utf-8")
    print(f"{len(out)} of {len(lines)} gold pairs -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
