"""Benchmark (not a test): prepare a synthetic CommonCrawl CDX file of N URLs for language ID.

Prints URLs/s of the whole pipeline (read, normalise, de-duplicate, registered domain, cap, split,
write Parquet) and the peak resident memory. Usage:

    python benchmarks/prepare_cdx.py [--urls 2000000] [--workdir /tmp/smartcrawl-bench]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import tempfile
import time
from pathlib import Path

from smartcrawl.benchmarking import machine_info, write_result
from smartcrawl.data.langid_dataset import build_langid_dataset, iter_source_records
from smartcrawl.data.records import Rejects, SourceSpec
from smartcrawl.data.splits import SplitFractions

_LANGS = ["eng", "deu", "rus", "fra", "spa", "jpn", "ita", "por", "nld", "pol", "zho", "ces", "tur", "swe",
          "kor", "vie", "ind", "fin", "dan", "hun", "ron", "nor", "ell", "bul", "slk", "ukr", "heb", "hrv",
          "lit", "slv", "est", "lav", "isl", "mlt", "eus", "cat", "glg", "sqi", "mkd", "srp"]
_TLDS = ["com", "org", "net", "de", "fr", "co.uk", "es", "it", "pl", "ru", "fi", "is", "com.mt", "eus", "info"]


def write_cdx(path: Path, n: int, seed: int = 0) -> None:
    """Write ``n`` CDX lines over ~n/40 hosts with Zipf-distributed languages (a few % duplicates)."""
    rng = random.Random(seed)
    weights = [1.0 / (i + 1) for i in range(len(_LANGS))]
    n_hosts = max(1, n // 40)
    hosts = [f"www.site{i}.{_TLDS[i % len(_TLDS)]}" for i in range(n_hosts)]
    with path.open("w", encoding="utf-8") as f:
        langs = rng.choices(_LANGS, weights, k=n)
        for i in range(n):
            j = i if rng.random() > 0.02 else rng.randrange(i + 1)  # ~2 % repeated URLs
            host = hosts[(j * 7919) % n_hosts]
            url = f"https://{host}/section{j % 97}/page-{j}.html?lang={langs[j][:2]}"
            key = ",".join(reversed(host.split("."))) + f")/section{j % 97}/page-{j}.html"
            rec = {"url": url, "mime": "text/html", "status": "200", "languages": langs[j], "length": "12345"}
            f.write(f"{key} 20230201123456 {json.dumps(rec)}\n")


def main() -> None:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--urls", type=int, default=2_000_000)
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--max-per-lang", type=int, default=600_000)
    ap.add_argument("--json", type=Path, default=None, help="also write the figures to this JSON file")
    args = ap.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="smartcrawl-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    cdx = work / "synthetic.cdx"
    t0 = time.perf_counter()
    write_cdx(cdx, args.urls)
    print(f"wrote {args.urls:,} CDX lines ({cdx.stat().st_size / 2**20:.0f} MiB) in {time.perf_counter() - t0:.1f} s")
    rejects = Rejects()
    t0, c0 = time.perf_counter(), time.process_time()
    card = build_langid_dataset(
        iter_source_records([SourceSpec("cdx", str(cdx))], rejects),
        work / "langid",
        SplitFractions({"train": 0.8, "dev": 0.1, "test": 0.1}),
        max_per_lang=args.max_per_lang,
        rejects=rejects,
    )
    elapsed = time.perf_counter() - t0
    cpu = time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB
    kept = sum(s["urls"] for s in card["splits"].values())  # type: ignore[union-attr]
    print(f"prepared {args.urls:,} URLs in {elapsed:.1f} s wall ({args.urls / elapsed:,.0f} URLs/s), "
          f"{cpu:.1f} s CPU ({args.urls / cpu:,.0f} URLs/s per core); "
          f"kept {kept:,} in {card['languages']} languages; duplicates {card['duplicates']:,}; "
          f"rejected {card['rejected_total']:,}; peak RSS {peak:.2f} GiB")
    write_result(args.json, {
        "urls": args.urls, "seconds_wall": round(elapsed, 2), "seconds_cpu": round(cpu, 2),
        "urls_per_s_wall": round(args.urls / elapsed), "urls_per_s_cpu": round(args.urls / cpu),
        "peak_rss_gib": round(peak, 3), "kept": kept, "languages": card["languages"],
        "duplicates": card["duplicates"], "max_per_lang": args.max_per_lang, **machine_info(),
    })
    if args.workdir is None:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
