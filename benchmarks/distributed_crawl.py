"""Benchmark (not a test): crawl throughput of 1 vs N crawler processes sharing a Redis frontier, on loopback.

Builds a websim web (default 8 sites, ~1,600 pages, no traps), serves it with the test-bed server in
its own process (``--latency-ms`` per answer), starts its own ``redis-server`` on a free loopback
port, then crawls the whole web breadth-first:

- ``sqlite-1``: one process with the SQLite frontier (the reference);
- ``redis-N``: N crawler processes (``crawl.backend=redis``), for each N of ``--workers``.

pages/s = pages fetched by all processes / crawl span (first worker's crawl start to last worker's
end, from each worker's ``summary.json`` and ``job.json``; process start-up, ~2-6 s of imports, is
not counted; ``wall_s`` includes it). Every run must store the same pages, none twice (exit 1 if
not). The JSON records the machine's 1-minute load average at the start and the end. Usage:

    python benchmarks/distributed_crawl.py [--sites 8] [--pages 2200] [--latency-ms 20] [--workers 1 2]
        [--strategy bfs] [--concurrent-per-host 4] [--json results/benchmarks/distributed_crawl.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from smartcrawl.benchmarking import load_average, machine_info, write_result
from smartcrawl.crawl.distributed import pages_report, worker_dirs
from smartcrawl.crawl.warcstore import stored_urls
from smartcrawl.web.websim import build_websim

REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_redis(workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    """A throw-away redis-server (no persistence) and its URL."""
    binary = shutil.which("redis-server")
    if binary is None:
        sys.exit("redis-server not found (apt-get install redis-server)")
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", str(workdir)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    import redis

    client = redis.Redis(port=port)
    for _ in range(300):
        try:
            client.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)
    client.close()
    return proc, f"redis://127.0.0.1:{port}/0"


def start_server(web: Path, latency_ms: float, workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    """The test-bed server in its own process; returns it and its proxy URL."""
    port_file = workdir / "port"
    proc = subprocess.Popen([sys.executable, "-m", "smartcrawl.web", "serve", str(web), "--port", "0", "--port-file",
                             str(port_file), "--latency-ms", str(latency_ms)], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):
        if port_file.exists() and port_file.read_text().strip():
            return proc, f"http://127.0.0.1:{port_file.read_text().strip()}"
        time.sleep(0.05)
    proc.kill()
    sys.exit("the test-bed server did not start")


def crawl(job: Path, seeds: list[str], proxy: str, args: argparse.Namespace, extra: list[str], n: int) -> dict[str, Any]:
    """Run ``n`` crawler processes of one job side by side; their figures."""
    base = ["pair=eng-mlt", f"strategy={args.strategy}", f"job_dir={job}", f"seeds=[{','.join(seeds)}]",
            f"proxy={proxy}", "crawl.progress_interval_s=0", "crawl.log_level=WARNING",
            f"crawl.concurrent_per_host={args.concurrent_per_host}", *extra]
    t0 = time.time()
    procs = [subprocess.Popen([sys.executable, "-m", "smartcrawl.crawl.cli", *base,
                               *([f"crawl.worker={i}"] if n > 1 or extra else [])], cwd=REPO,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(n)]
    summaries = []
    for p in procs:
        out, err = p.communicate()
        if p.returncode != 0:
            sys.exit(f"crawler failed:\n{err[-3000:]}")
        summaries.append(json.loads(out.strip().splitlines()[-1]))
    wall = time.time() - t0
    dirs = worker_dirs(job) or [job]
    ends = [json.loads((d / "job.json").read_text())["runs"][-1]["ended"] for d in dirs]
    spans = [(end - s["elapsed_s"], end) for end, s in zip(ends, sorted(summaries, key=lambda s: s["job_dir"]))]
    span = max(e for _, e in spans) - min(b for b, _ in spans)
    fetched = sum(s["fetched"] for s in summaries)
    if worker_dirs(job):
        report = pages_report(job)
        stored, distinct, dups = report["stored"], report["distinct"], len(report["duplicates"])
    else:
        urls = stored_urls(job)
        stored, distinct, dups = len(urls), len(set(urls)), len(urls) - len(set(urls))
    return {"processes": n, "fetched": fetched, "stored": stored, "distinct_stored": distinct, "duplicates": dups,
            "crawl_s": round(span, 2), "pages_per_s": round(fetched / span, 1), "wall_s": round(wall, 2),
            "per_process": [s["fetched"] for s in summaries]}


def main() -> int:
    """Run the benchmark and print its figures (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sites", type=int, default=8)
    ap.add_argument("--pages", type=int, default=2200, help="websim pages to plan (~75%% become reachable pages)")
    ap.add_argument("--latency-ms", type=float, default=20.0)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--strategy", default="bfs", choices=("bfs", "cld2", "smart"))
    ap.add_argument("--concurrent-per-host", type=int, default=4)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="distcrawl-bench-"))
    load_start = load_average()
    procs: list[subprocess.Popen[Any]] = []
    try:
        store = build_websim(work / "web", ("eng", "mlt"), n_sites=args.sites, n_pages=args.pages, seed=args.seed,
                             calendar_trap_prob=0.0, session_trap_prob=0.0)
        seeds = [s for info in store.sites() for s in info.seeds]
        n_pages = sum(1 for _ in store.iter_pages())
        store.close()
        server, proxy = start_server(work / "web", args.latency_ms, work)
        rserver, redis_url = start_redis(work)
        procs += [server, rserver]
        rows = [{"backend": "sqlite", **crawl(work / "sqlite", seeds, proxy, args, [], 1)}]
        for n in args.workers:
            extra = ["crawl.backend=redis", f"crawl.redis_url={redis_url}", f"crawl.redis_prefix=bench{n}"]
            rows.append({"backend": "redis", **crawl(work / f"redis{n}", seeds, proxy, args, extra, n)})
        ref = rows[0]["distinct_stored"]
        for row in rows:
            row["same_pages_as_sqlite"] = row["distinct_stored"] == ref and row["duplicates"] == 0
            print(f"{row['backend']:6s} x{row['processes']}: {row['fetched']:5d} pages in {row['crawl_s']:6.2f} s ="
                  f" {row['pages_per_s']:6.1f} pages/s (wall {row['wall_s']:.1f} s; per process {row['per_process']};"
                  f" stored {row['distinct_stored']}, duplicates {row['duplicates']})")
        result = {"sites": args.sites, "web_pages": n_pages, "latency_ms": args.latency_ms, "strategy": args.strategy,
                  "concurrent_per_host": args.concurrent_per_host, **machine_info(load_start), "rows": rows}
        write_result(args.json, result)
        return 0 if all(r["same_pages_as_sqlite"] for r in rows) else 1
    finally:
        for p in procs:
            p.terminate()
            p.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
