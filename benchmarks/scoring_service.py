"""Benchmark (not a test): throughput of the scoring service with 1, 4, 16 concurrent clients vs the local scorer.

Each client plays one crawler process: for every "page" it scores ``--links`` outlinks the way the
smart strategy does, one ``lang_probs`` call and one ``parallel_probs`` call, each a request of its
own to the service. ``pairs_per_s`` counts (page, outlink) pairs scored with both questions per
second over all clients. The local baseline scores the same kind of pages in this process with the
same scorer, one page after the other (what one crawler process does without the service).

The service runs in a subprocess (``python -m smartcrawl.serving``), as it would in production,
so that its model calls do not share the clients' interpreter. Each window is run with early flush
(the default: a batch goes as soon as every active client is waiting) and, with ``--fixed-window``
left on, without it (every batch waits out its window, as the paper authors' server did). Speed does not depend on the
weights, so without ``--langid-dir/--parallel-dir`` an untrained ``--model`` (default ``tiny``)
is saved and served; ``--model rules`` serves the model-free RuleScorer.

    python benchmarks/scoring_service.py [--model tiny|me5-small-2l|rules] [--clients 1 4 16]
        [--windows 0.1 0] [--no-fixed-window] [--pages 24] [--links 32] [--threads 1]
        [--langid-dir DIR --parallel-dir DIR] [--json results/benchmarks/scoring_service.json]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from smartcrawl.benchmarking import machine_info, write_result
from smartcrawl.crawl.scoring import UrlScorer
from smartcrawl.serving.client import RemoteScorer, ScoringServiceUnavailable

PAIR = ("eng", "mlt")
ACTIVE_HORIZON_S = 2.1  # a little over the batcher's default active_horizon_s
_ENCODERS: dict[str, dict[str, Any]] = {
    "tiny": {"encoder": "tiny", "num_layers": 1}, "me5-small-2l": {"encoder": "me5-small", "num_layers": 2},
    "me5-small-6l": {"encoder": "me5-small", "num_layers": 6}, "me5-small": {"encoder": "me5-small"},
}


def page_links(client: int, page: int, n: int) -> tuple[str, list[str]]:
    """A parent URL and ``n`` outlinks, distinct per client and page."""
    site = f"https://www.site{client}-{page % 7}.example.com"
    parent = f"{site}/en/news/2023/article-{page}.html"
    links = [f"{site}/{'mt' if j % 2 else 'en'}/news/2023/article-{page}-{j}-about-things.html?page={j % 5}"
             for j in range(n)]
    return parent, links


def score_page(scorer: UrlScorer, parent: str, links: list[str]) -> None:
    """Score one page's outlinks as the smart strategy does (language of the link x parallelism)."""
    scorer.lang_probs(links, PAIR[1])
    scorer.parallel_probs([(parent, v) for v in links])


def untrained_dirs(name: str, root: Path) -> tuple[Path, Path]:
    """Untrained langid and parallel model directories of encoder ``name`` (speed does not depend on weights)."""
    from smartcrawl.models.encoders import EncoderSpec, load_classifier
    from smartcrawl.training.inputs import PARALLEL_LABELS
    from smartcrawl.training.outputs import save_model_dir

    spec = EncoderSpec.from_config({"name": name, **_ENCODERS[name]})
    out = []
    for task, labels in (("langid", [*PAIR, "und"]), ("parallel", list(PARALLEL_LABELS))):
        model, tok = load_classifier(spec, len(labels), dict(enumerate(labels)))
        out.append(save_model_dir(root / f"{name}-{task}", model, tok, task, labels, 128))
    return out[0], out[1]


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_service(scorer_args: list[str], window: float, max_batch: int, threads: int,
                  early_flush: bool = True) -> tuple[subprocess.Popen, str]:
    """``python -m smartcrawl.serving`` in a subprocess; returns it and its URL once it answers /health."""
    port = free_port()
    cmd = [sys.executable, "-m", "smartcrawl.serving", *scorer_args, "--port", str(port), "--window", str(window),
           "--max-batch", str(max_batch), "--threads", str(threads), "--log-level", "warning"]
    if not early_flush:
        cmd.append("--no-early-flush")
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"service exited: {proc.stderr.read().decode() if proc.stderr else ''}")
        try:
            RemoteScorer(url, retries=0).close()
            return proc, url
        except ScoringServiceUnavailable:
            time.sleep(0.2)
    proc.terminate()
    raise TimeoutError("the service did not start within 120 s")


def run_clients(make: Callable[[], UrlScorer], n_clients: int, pages: int, links: int) -> dict[str, float]:
    """``n_clients`` threads, each scoring ``pages`` pages of ``links`` outlinks; throughput and page latency."""
    scorers = [make() for _ in range(n_clients)]
    latencies: list[float] = []
    lock = threading.Lock()
    barrier = threading.Barrier(n_clients + 1)

    def work(i: int) -> None:
        score_page(scorers[i], *page_links(i, -1, 2))  # warm-up: connection, first model call, known client
        barrier.wait()
        mine = []
        for p in range(pages):
            t0 = time.perf_counter()
            score_page(scorers[i], *page_links(i, p, links))
            mine.append(time.perf_counter() - t0)
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(n_clients)]
    for t in threads:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    for s in scorers:
        close = getattr(s, "close", None)
        if close:
            close()
    latencies.sort()
    return {"pairs_per_s": round(n_clients * pages * links / wall, 1), "wall_s": round(wall, 3),
            "page_latency_ms_p50": round(1000 * statistics.median(latencies), 1),
            "page_latency_ms_p95": round(1000 * latencies[int(0.95 * (len(latencies) - 1))], 1)}


def main() -> None:
    """Print (and optionally save) service vs local throughput per window and number of clients."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="tiny", choices=[*_ENCODERS, "rules"])
    ap.add_argument("--langid-dir", type=Path, default=None)
    ap.add_argument("--parallel-dir", type=Path, default=None)
    ap.add_argument("--clients", type=int, nargs="+", default=[1, 4, 16])
    ap.add_argument("--windows", type=float, nargs="+", default=[0.1, 0.0])
    ap.add_argument("--pages", type=int, default=24, help="pages per client")
    ap.add_argument("--links", type=int, default=32, help="outlinks per page")
    ap.add_argument("--max-batch", type=int, default=512)
    ap.add_argument("--no-fixed-window", dest="fixed_window", action="store_false",
                    help="skip the runs that wait out every window (the paper's server: --no-early-flush)")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads, in the service and the local baseline (1: robust on a busy 2-core machine)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory(prefix="smartcrawl-bench-") as tmp:
        if args.langid_dir and args.parallel_dir:
            dirs: tuple[Path, Path] | None = (args.langid_dir, args.parallel_dir)
            model_name = f"trained {args.langid_dir}"
        elif args.model == "rules":
            dirs, model_name = None, "rules"
        else:
            dirs, model_name = untrained_dirs(args.model, Path(tmp)), f"{args.model} (untrained)"
        if dirs is None:
            from smartcrawl.crawl.scoring import RuleScorer

            local: UrlScorer = RuleScorer(PAIR)
            scorer_args = ["--rules", "--langs", *PAIR]
        else:
            from smartcrawl.models.scorer import NeuralScorer

            local = NeuralScorer(*dirs, device="cpu")
            scorer_args = ["--langid-dir", str(dirs[0]), "--parallel-dir", str(dirs[1]), "--device", "cpu"]

        rows: list[dict[str, Any]] = []
        # The local baseline: one process scoring its own pages in-process, one page after the other. (Several
        # threads must not share one in-process model: HF fast tokenizers are not safe for concurrent calls.)
        row = {"mode": "local", "window_s": None, "clients": 1, **run_clients(lambda: local, 1, args.pages, args.links)}
        rows.append(row)
        print(f"local              clients   1  {row['pairs_per_s']:9.1f} pairs/s  "
              f"p50 {row['page_latency_ms_p50']:7.1f} ms")
        configs = [(w, True) for w in args.windows] + [(w, False) for w in args.windows if w > 0 and args.fixed_window]
        for window, early in configs:
            proc, url = start_service(scorer_args, window, args.max_batch, args.threads, early)
            try:
                for n in args.clients:
                    time.sleep(ACTIVE_HORIZON_S)  # the previous run's clients are forgotten (early flush)
                    before = httpx.get(f"{url}/health").json()["stats"]
                    res: dict[str, Any] = run_clients(partial(RemoteScorer, url), n, args.pages, args.links)
                    after = httpx.get(f"{url}/health").json()["stats"]
                    calls = after["model_calls"] - before["model_calls"]
                    res["requests_per_model_call"] = round((after["requests"] - before["requests"]) / max(calls, 1), 2)
                    rows.append({"mode": "service", "window_s": window, "early_flush": early, "clients": n, **res})
                    print(f"service w={window:<4g}{' ef' if early else '   '} clients {n:3d}  "
                          f"{res['pairs_per_s']:9.1f} pairs/s  "
                          f"p50 {res['page_latency_ms_p50']:7.1f} ms  "
                          f"{res['requests_per_model_call']:5.2f} requests/call")
            finally:
                proc.terminate()
                proc.wait(30)
    result = {"model": model_name, "pages_per_client": args.pages, "links_per_page": args.links,
              "max_batch": args.max_batch, "threads": args.threads, **machine_info(), "rows": rows}
    write_result(args.json, result)


if __name__ == "__main__":
    main()
