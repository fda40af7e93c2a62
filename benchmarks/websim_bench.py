"""Benchmark (not a test): generate a websim web (default 50 sites, 20,000 pages) and time each stage.

Prints the planning, rendering+writing and total time, pages/s, the store's size and the peak
resident memory; exits 1 when the total exceeds ``--limit`` seconds (default 60). Usage:

    python benchmarks/websim_bench.py [--pair eng-mlt] [--sites 50] [--pages 20000] [--seed 0] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

from smartcrawl.web.websim.cli import parse_pair
from smartcrawl.web.websim.config import WebsimConfig
from smartcrawl.web.websim.generate import plan_web, write_web
from smartcrawl.web.websim.text import load_lexicons


def main() -> int:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pair", type=parse_pair, default=("eng", "mlt"))
    ap.add_argument("--sites", type=int, default=50)
    ap.add_argument("--pages", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workdir", type=Path, default=None, help="where to write the web (default: a temp dir, removed)")
    ap.add_argument("--limit", type=float, default=60.0, help="seconds allowed for the whole build")
    args = ap.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="websim-bench-"))
    try:
        t0 = time.perf_counter()
        cfg = WebsimConfig(pair=args.pair, n_sites=args.sites, n_pages=args.pages, seed=args.seed).resolved()
        lexicons = load_lexicons()
        sites = plan_web(cfg, lexicons)
        t1 = time.perf_counter()
        store = write_web(sites, cfg, work / "web", lexicons)
        t2 = time.perf_counter()
        n_pages = sum(1 for _ in store.iter_pages())
        size = sum(f.stat().st_size for f in (work / "web").rglob("*") if f.is_file())
        store.close()
        total = t2 - t0
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"websim {args.pair[0]}-{args.pair[1]}: {args.sites} sites, {n_pages:,} pages "
              f"({len(store.sites())} hosts), {size / 2**20:.0f} MiB")
        print(f"plan {t1 - t0:.1f} s, render+write {t2 - t1:.1f} s, total {total:.1f} s "
              f"({n_pages / total:,.0f} pages/s), peak RSS {peak:.0f} MiB")
        ok = total <= args.limit
        print(f"{'OK' if ok else 'TOO SLOW'}: limit {args.limit:.0f} s")
        return 0 if ok else 1
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
