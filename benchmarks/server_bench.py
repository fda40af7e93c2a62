"""Throughput of the test-bed server on loopback: requests per second from concurrent keep-alive clients.

Builds a small web in a temporary directory (or uses ``--web DIR``), starts
``python -m smartcrawl.web serve`` in a subprocess on a free loopback port, fires ``--requests``
absolute-form GETs (as a proxy client sends them) from ``--clients`` keep-alive connections, prints
req/s and the statuses, and stops the server. Bounded in count (``--requests``) and time
(``--max-seconds``); loopback only.

    .venv/bin/python benchmarks/server_bench.py --requests 20000 --clients 8
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from smartcrawl.web.store import SiteInfo, StoredPage, WebStore


def make_web(root: Path, hosts: int, pages: int, page_bytes: int, seed: int = 0) -> list[str]:
    """Write a web of ``hosts`` sites x ``pages`` pages (plus one redirect each); returns the page URLs."""
    rng = random.Random(seed)
    store = WebStore(root)
    names = [f"site{i}.bench.test" for i in range(hosts)]
    store.create("bench", None, [SiteInfo(host=h, seeds=[f"http://{h}/"]) for h in names])
    urls: list[str] = []
    batch: list[StoredPage] = []
    filler = "lorem ipsum dolor sit amet " * (page_bytes // 27 + 1)
    for h in names:
        for i in range(pages):
            url = f"http://{h}/" if i == 0 else f"http://{h}/p/{i}.html"
            body = f"<html><body><h1>{h} {i}</h1><p>{filler[: page_bytes - 60]}</p></body></html>"
            batch.append(StoredPage(url=url, body=body.encode()))
            urls.append(url)
        batch.append(StoredPage(url=f"http://{h}/old", status=301, location=f"http://{h}/", body=b""))
        urls.append(f"http://{h}/old")
    store.add_pages(batch)
    store.write_truth(*_empty_truth())
    store.close()
    urls.extend(f"http://{rng.choice(names)}/missing/{i}" for i in range(max(1, len(urls) // 20)))
    urls.extend(f"http://{h}/robots.txt" for h in names)
    return urls


def _empty_truth() -> tuple:
    import pandas as pd

    return pd.DataFrame(columns=["url", "host", "lang"]), pd.DataFrame(columns=["group", "url", "host", "lang"])


def urls_of(web: Path, limit: int = 5000) -> list[str]:
    """Up to ``limit`` stored URLs of an existing web, plus its robots.txt URLs."""
    store = WebStore(web)
    out = [p.url for _, p in zip(range(limit), store.iter_pages())]
    out.extend(f"http://{s.host}/robots.txt" for s in store.sites())
    store.close()
    return out


async def _client(port: int, urls: list[str], n: int, seed: int, statuses: Counter[int], deadline: float) -> int:
    rng = random.Random(seed)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    done = 0
    try:
        for _ in range(n):
            if time.perf_counter() > deadline:
                break
            url = rng.choice(urls)
            host = url.split("/", 3)[2]
            writer.write(f"GET {url} HTTP/1.1\r\nHost: {host}\r\nAccept: */*\r\n\r\n".encode())
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            status = int(lines[0].split(" ", 2)[1])
            length = 0
            for line in lines[1:]:
                if line.lower().startswith("content-length:"):
                    length = int(line.split(":", 1)[1])
            if length:
                await reader.readexactly(length)
            statuses[status] += 1
            done += 1
    finally:
        writer.close()
    return done


async def fire(port: int, urls: list[str], requests: int, clients: int, max_seconds: float) -> tuple[int, float, Counter[int]]:
    """Send ``requests`` GETs over ``clients`` connections; returns (done, seconds, statuses)."""
    statuses: Counter[int] = Counter()
    start = time.perf_counter()
    per = [requests // clients + (i < requests % clients) for i in range(clients)]
    done = await asyncio.gather(
        *(_client(port, urls, n, i, statuses, start + max_seconds) for i, n in enumerate(per))
    )
    return sum(done), time.perf_counter() - start, statuses


def start_server(webs: list[Path], workdir: Path, extra: list[str]) -> tuple[subprocess.Popen[bytes], int]:
    """Start the server CLI in a subprocess on a free port; returns the process and its port."""
    port_file = workdir / "port"
    cmd = [sys.executable, "-m", "smartcrawl.web", "serve", *map(str, webs), "--port", "0",
           "--port-file", str(port_file), *extra]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 30
    while not port_file.exists() or not port_file.read_text().strip():
        if proc.poll() is not None or time.time() > deadline:
            proc.kill()
            raise RuntimeError("server did not start")
        time.sleep(0.05)
    return proc, int(port_file.read_text())


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print req/s."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=20000)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--hosts", type=int, default=4)
    ap.add_argument("--pages", type=int, default=250, help="pages per host of the generated web")
    ap.add_argument("--page-bytes", type=int, default=8000)
    ap.add_argument("--web", type=Path, action="append", help="serve these webs instead of a generated one")
    ap.add_argument("--max-seconds", type=float, default=60.0)
    ap.add_argument("--log", action="store_true", help="also write the JSONL request log (to the temp dir)")
    ap.add_argument("--read-threads", type=int, default=0, help="server reads pages in a thread pool of this size")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="server-bench-") as tmp:
        work = Path(tmp)
        if args.web:
            webs = args.web
            urls = [u for w in webs for u in urls_of(w)]
        else:
            webs = [work / "web"]
            urls = make_web(webs[0], args.hosts, args.pages, args.page_bytes)
        extra = ["--log", str(work / "requests.jsonl")] if args.log else []
        extra += ["--read-threads", str(args.read_threads)]
        proc, port = start_server(webs, work, extra)
        try:
            asyncio.run(fire(port, urls[:50], min(200, args.requests), 2, 10.0))  # warm-up
            done, secs, statuses = asyncio.run(fire(port, urls, args.requests, args.clients, args.max_seconds))
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        logged = sum(1 for _ in open(work / "requests.jsonl")) if args.log else None
    print(f"requests: {done} in {secs:.2f} s over {args.clients} keep-alive clients, {len(urls)} distinct URLs")
    print(f"statuses: {dict(sorted(statuses.items()))}" + (f"; logged: {logged}" if logged is not None else ""))
    print(f"throughput: {done / secs:.0f} req/s (cpu count {os.cpu_count()}, read threads {args.read_threads})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
