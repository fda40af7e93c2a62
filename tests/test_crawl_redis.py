"""Distributed crawl over Redis (``crawl.backend=redis``): the shared frontier and several crawler processes.

The tests start Debian's ``redis-server`` on loopback themselves (``.ci/run`` installs it) and skip
only when the binary is missing. Checked:

- unit: the same pushes, claims, completions and retries give the same fetch order from the Redis
  frontier as from the SQLite one (smart priorities, first-in-first-out ties, re-prioritised URLs,
  per-host limits and page budgets included);
- a lone Redis worker fetching one page at a time follows the SQLite crawl's order exactly;
- two crawler processes sharing one Redis store together exactly the pages one process stores,
  none twice; also when one of them is SIGKILLed mid-crawl and restarted, and when it is killed and
  never restarted (the other adopts its URLs once its lease lapses).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_crawl_e2e import REPO, check_job_consistency, run_cli

from smartcrawl.crawl import distributed
from smartcrawl.crawl.config import CrawlSettings
from smartcrawl.crawl.crawllog import CRAWL_LOG, read_crawl_log
from smartcrawl.crawl.distributed import merge_crawl_logs, pages_report, stored_pages, worker_dirs
from smartcrawl.crawl.frontier import FrontierEntry, NewUrl
from smartcrawl.crawl.job import CrawlJob
from smartcrawl.crawl.records import PageRecord
from smartcrawl.web.server import ServerHandle, serve_webs
from smartcrawl.web.websim import build_websim

redis = pytest.importorskip("redis")
from smartcrawl.crawl.redisfrontier import SharedFrontier  # noqa: E402  (needs the redis client)

REDIS_SERVER = shutil.which("redis-server")
pytestmark = pytest.mark.skipif(REDIS_SERVER is None,
                                reason="redis-server not installed (apt-get install redis-server; .ci/run does it)")

LATENCY_MS = 10.0
# One request at a time and synchronous scoring: a reproducible fetch order.
ONE_AT_A_TIME = ["crawl.concurrent_requests=1", "crawl.concurrent_per_host=1", "crawl.score_in_thread=false"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A throw-away ``redis-server`` on a free loopback port (no persistence), stopped after the module."""
    assert REDIS_SERVER is not None
    workdir = tmp_path_factory.mktemp("redis")
    port = _free_port()
    proc = subprocess.Popen([REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                             "no", "--dir", str(workdir)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    deadline = time.monotonic() + 15
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            assert proc.poll() is None, "redis-server exited at start"
            assert time.monotonic() < deadline, "redis-server did not answer"
            time.sleep(0.05)
    client.close()
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=15)


# -- unit: the Redis frontier orders as the SQLite one -------------------------------------------
HOSTS = {"www.a.test": "a.test", "mt.a.test": "a.test", "www.b.test": "b.test", "www.c.test": "c.test"}
PRIORITIES = [-1, -1, -2, -3, -50, -101, -102]


def _record(entry: FrontierEntry, new_urls: list[NewUrl]) -> PageRecord:
    return PageRecord(queue_id=entry.id, url=entry.url, site=entry.site, time=time.time(), status=404, fetched=True,
                      stored=False, bytes=0, content_type="", lang="", lang_reliable=False, priority=entry.priority,
                      score=entry.score, parent=entry.parent, depth=entry.depth, hop=entry.hop, reason="http_404",
                      retries=entry.retries, new_urls=new_urls)


@pytest.mark.parametrize("budget", [None, 12])
def test_same_operations_give_the_same_order_as_sqlite(redis_url: str, tmp_path: Path, budget: int | None) -> None:
    rng = random.Random(7 if budget is None else 8)
    pool = [f"http://{host}/p{i}" for host in HOSTS for i in range(40)]

    def new(url: str) -> NewUrl:
        host = url.split("/")[2]
        return NewUrl(url=url, site=HOSTS[host], priority=rng.choice(PRIORITIES), depth=1, hop="L",
                      score=rng.random(), seq=rng.choice([0, 0, 1, 2, 5]))  # lanes order within a priority

    settings = CrawlSettings(concurrent_per_host=2, max_pages_per_site=budget)
    job = CrawlJob(tmp_path / "sqlite", {"pair": ["eng", "mlt"]}, settings)
    job.open()
    shared = SharedFrontier(redis.Redis.from_url(redis_url), f"unit{budget}", "w", max_per_host=2,
                            max_pages_per_site=budget)
    shared.client.flushdb()
    a_flight: dict[str, FrontierEntry] = {}  # url -> entry, SQLite side
    b_flight: dict[str, FrontierEntry] = {}  # url -> entry, Redis side
    order_a: list[str] = []
    order_b: list[str] = []
    fetched: list[str] = []

    def claim() -> bool:
        a, b = job.next_entry(), shared.claim()
        assert (a is None) == (b is None)
        if a is None or b is None:
            return False
        assert (a.url, a.priority, a.retries, a.depth, a.hop) == (b.url, b.priority, b.retries, b.depth, b.hop)
        order_a.append(a.url)
        order_b.append(b.url)
        a_flight[a.url], b_flight[b.url] = a, b
        return True

    def finish(url: str, outlinks: list[NewUrl]) -> None:
        job.record(_record(a_flight.pop(url), outlinks))
        fetched.append(url)
        assert shared.complete(b_flight.pop(url).id, True, outlinks) is not None

    for item in [new(u) for u in rng.sample(pool, 8)]:
        assert job.admit(item) == (shared.admit([item]) == 1)
    for _ in range(400):
        op = rng.random()
        if op < 0.25:
            items = [new(u) for u in rng.sample(pool, 3)]
            assert [job.admit(i) for i in items] == [shared.admit([i]) == 1 for i in items]
        elif op < 0.6:
            claim()
        elif op < 0.9 and a_flight:
            finish(rng.choice(sorted(a_flight)), [new(u) for u in rng.sample(pool, rng.randint(0, 4))])
        elif a_flight:  # a retry: back to the queue one level lower
            url = rng.choice(sorted(a_flight))
            a, b = a_flight.pop(url), b_flight.pop(url)
            job.requeue(a.id, a.site, a.priority - 1, a.retries + 1)
            assert shared.requeue(b.id, b.priority - 1, b.retries + 1)
        probe = rng.sample(pool, 5)
        assert job.still_open(probe) == shared.still_open(probe)
    while a_flight or claim():
        while claim():
            pass
        for url in sorted(a_flight):
            finish(url, [])
    assert order_a == order_b and len(order_a) > (100 if budget is None else 30)
    if budget is not None:  # the page budget held: parked sites, and in-flight requests counted against it
        assert len(fetched) == budget * len(set(HOSTS.values()))
    job.close()
    shared.close()


# -- end to end: crawler processes on the test-bed web ---------------------------------------------
@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerHandle, list[str]]]:
    """A small websim web (3 sites, 177 pages, no traps) on loopback, 10 ms per answer; yields (server, seeds)."""
    root = tmp_path_factory.mktemp("redisweb")
    store = build_websim(root / "web", ("eng", "mlt"), n_sites=3, n_pages=240, seed=5, calendar_trap_prob=0.0,
                         session_trap_prob=0.0)
    seeds = [s for info in store.sites() for s in info.seeds]
    store.close()
    with serve_webs([root / "web"], latency_ms=LATENCY_MS) as handle:
        yield handle, seeds


def crawl_args(job: Path, web: tuple[ServerHandle, list[str]], *extra: str) -> list[str]:
    server, seeds = web
    return ["pair=eng-mlt", "strategy=smart", f"job_dir={job}", f"seeds=[{','.join(seeds)}]",
            f"proxy={server.proxy_url}", "crawl.progress_interval_s=0", *extra]


# The kill tests crawl breadth-first: the stored set is the same (no budgets) and the crawler starts
# faster without the smart strategy's rule scorer.
BFS = "strategy=bfs"


def worker_args(job: Path, web: tuple[ServerHandle, list[str]], redis_url: str, worker: str, *extra: str) -> list[str]:
    return crawl_args(job, web, "crawl.backend=redis", f"crawl.redis_url={redis_url}",
                      f"crawl.redis_prefix=test:{job.parent.name}", f"crawl.worker={worker}", *extra)


def start_worker(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "smartcrawl.crawl.cli", *args], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen[str], timeout: float = 120) -> dict[str, Any]:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err[-3000:]
    return dict(json.loads(out.strip().splitlines()[-1]))


def fetch_order(job_dir: Path) -> list[str]:
    log = read_crawl_log(job_dir)
    return log.loc[log["fetched"], "url"].tolist()


@pytest.fixture(scope="module")
def reference(web: tuple[ServerHandle, list[str]], redis_url: str,
              tmp_path_factory: pytest.TempPathFactory) -> tuple[set[str], list[str], list[str]]:
    """Two one-process smart crawls, one request at a time, run side by side: one SQLite crawler and a
    lone Redis worker; returns (stored pages and fetch order of the SQLite crawl, fetch order of the worker)."""
    root = tmp_path_factory.mktemp("reference")
    lone = start_worker(worker_args(root / "lone", web, redis_url, "solo", *ONE_AT_A_TIME))
    rc, summary, err = run_cli(crawl_args(root / "sqlite", web, *ONE_AT_A_TIME))
    assert rc == 0, err[-3000:]
    assert finish(lone)["finish_reason"] == "finished"
    stored = check_job_consistency(root / "sqlite")
    assert len(stored) > 150
    return set(stored), fetch_order(root / "sqlite"), fetch_order(root / "lone" / "worker-solo")


def check_union(job: Path, expected: set[str]) -> dict[str, Any]:
    """The workers' stored pages together are ``expected``, each once; the merged log says the same."""
    report = pages_report(job)
    assert report["duplicates"] == []
    assert {p.url for p in stored_pages(job)} == expected and report["stored"] == len(expected)
    merge_crawl_logs(job)
    log = read_crawl_log(job)
    assert set(log.loc[log["stored"], "url"]) == expected and log["ord"].tolist() == list(range(1, len(log) + 1))
    return report


def log_rows(wdir: Path) -> int:
    path = wdir / CRAWL_LOG
    return path.read_bytes().count(b"\n") if path.exists() else 0


def wait_rows(wdir: Path, rows: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 90
    while log_rows(wdir) < rows:
        assert proc.poll() is None, "the worker ended before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.005)


def test_lone_redis_worker_fetches_in_the_sqlite_order(reference: tuple[set[str], list[str], list[str]]) -> None:
    _, sqlite_order, redis_order = reference
    assert redis_order == sqlite_order


def test_two_workers_store_what_one_process_stores(web: tuple[ServerHandle, list[str]], redis_url: str,
                                                   reference: tuple[set[str], list[str], list[str]], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    job = tmp_path / "job"
    procs = [start_worker(worker_args(job, web, redis_url, w, "crawl.concurrent_per_host=1")) for w in ("0", "1")]
    summaries = [finish(p) for p in procs]
    assert [s["finish_reason"] for s in summaries] == ["finished", "finished"]
    report = check_union(job, reference[0])
    assert all(report["workers"].get(w, 0) > 0 for w in ("0", "1")), report["workers"]  # both took part
    assert distributed.main(["pages", str(job)]) == 0
    assert json.loads(capsys.readouterr().out) == report
    for wdir in worker_dirs(job):
        check_job_consistency(wdir)


def test_killed_worker_restarted(web: tuple[ServerHandle, list[str]], redis_url: str,
                                 reference: tuple[set[str], list[str], list[str]], tmp_path: Path) -> None:
    job = tmp_path / "job"
    w0 = start_worker(worker_args(job, web, redis_url, "0", BFS, "crawl.concurrent_per_host=1"))
    w1 = start_worker(worker_args(job, web, redis_url, "1", BFS, "crawl.concurrent_per_host=1"))
    wait_rows(job / "worker-0", 15, w0)
    os.kill(w0.pid, signal.SIGKILL)
    w0.communicate(timeout=30)
    w0 = start_worker(worker_args(job, web, redis_url, "0", BFS, "crawl.concurrent_per_host=1"))  # same name: recovers
    restarted = finish(w0)
    assert finish(w1)["finish_reason"] == "finished" and restarted["finish_reason"] == "finished"
    assert restarted["run"] == 1
    check_union(job, reference[0])
    for wdir in worker_dirs(job):
        check_job_consistency(wdir)


def test_killed_worker_adopted_by_the_other(web: tuple[ServerHandle, list[str]], redis_url: str,
                                            reference: tuple[set[str], list[str], list[str]], tmp_path: Path) -> None:
    job = tmp_path / "job"
    lease = "crawl.lease_s=2"
    w0 = start_worker(worker_args(job, web, redis_url, "0", BFS, "crawl.concurrent_per_host=1", lease))
    wait_rows(job / "worker-0", 15, w0)
    os.kill(w0.pid, signal.SIGKILL)
    w0.communicate(timeout=30)
    # Started only now: on an idle machine a worker started with w0 could finish the whole small
    # web before w0 had stored 15 pages.
    w1 = start_worker(worker_args(job, web, redis_url, "1", BFS, "crawl.concurrent_per_host=1", lease))
    assert finish(w1)["finish_reason"] == "finished"  # waited for w0's lease, then took its URLs
    check_union(job, reference[0])
    check_job_consistency(job / "worker-1")
    shared = SharedFrontier(redis.Redis.from_url(redis_url), f"test:{tmp_path.name}", "1")
    assert shared.in_flight("0") == [] and shared.unconfirmed("0") == []  # adopted by worker 1
    shared.close()


def test_a_crawl_from_an_older_queue_format_is_refused(redis_url: str) -> None:
    from smartcrawl.crawl.redisfrontier import JobIdentityMismatch

    client = redis.Redis.from_url(redis_url)
    identity = {"pair": ["eng", "fin"], "strategy": {"name": "bfs"}, "scope": "domain", "seeds": ["http://a.test/"]}
    new = SharedFrontier(client, "fmt-new", "w1")
    new.check_identity(identity)
    SharedFrontier(client, "fmt-new", "w2").check_identity(identity)  # a second worker joins
    client.hset("fmt-old:identity", "fixed", json.dumps({"pair": ["eng", "fin"]}))  # written before lanes
    with pytest.raises(JobIdentityMismatch, match="older smartcrawl .*another crawl.redis_prefix"):
        SharedFrontier(client, "fmt-old", "w1").check_identity(identity)
