"""Kill the crawler mid-crawl (SIGKILL, then Ctrl-C), resume it, and compare with an uninterrupted crawl.

Checked: the final set of stored pages equals the uninterrupted crawl's; no page is stored twice
(WARC files of all runs together); the crawl log has one stored row per WARC record and equals the
job database's log; no stored page is fetched again by a later run; only requests in flight at an
interruption are requested from the server twice.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_crawl_e2e import REPO, check_job_consistency, run_cli
from test_crawl_testweb import CHAIN, build_chain_web, chain_urls

from smartcrawl.crawl.crawllog import CRAWL_LOG, read_crawl_log
from smartcrawl.web.server import ServerHandle, serve_webs

N_PAGES = 40  # 81 pages
LATENCY_MS = 25.0


@pytest.fixture(scope="module")
def chain_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerHandle]:
    """The chain web on loopback, 25 ms per answer (so that a crawl lasts long enough to be killed)."""
    root = tmp_path_factory.mktemp("chainweb")
    web = build_chain_web(root / "web", N_PAGES)
    with serve_webs([web], latency_ms=LATENCY_MS, log_path=root / "requests.jsonl") as handle:
        yield handle


def crawl_args(job: Path, server: ServerHandle) -> list[str]:
    return ["pair=eng-mlt", "strategy=smart", f"job_dir={job}", f"seeds=[http://{CHAIN}/]", f"proxy={server.proxy_url}",
            "crawl.max_hops=100", "crawl.concurrent_per_host=2", "crawl.progress_interval_s=0"]


def log_lines(job: Path) -> int:
    path = job / CRAWL_LOG
    return path.read_bytes().count(b"\n") if path.exists() else 0


def interrupt_after(job: Path, server: ServerHandle, rows: int, sig: int) -> tuple[int, str]:
    """Start a crawl, send ``sig`` once the crawl log has ``rows`` more rows, wait; returns (exit code, stdout)."""
    start = log_lines(job)
    proc = subprocess.Popen([sys.executable, "-m", "smartcrawl.crawl.cli", *crawl_args(job, server)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 60
    while log_lines(job) < start + rows:
        assert proc.poll() is None, "the crawl ended before it could be interrupted"
        assert time.monotonic() < deadline
        time.sleep(0.005)
    os.kill(proc.pid, sig)
    out, _ = proc.communicate(timeout=60)
    return proc.returncode, out


def test_kill_and_resume_equals_uninterrupted_crawl(chain_server: ServerHandle, tmp_path: Path) -> None:
    reference = tmp_path / "reference"
    rc, summary, err = run_cli(crawl_args(reference, chain_server))
    assert rc == 0, err[-3000:]
    expected = set(check_job_consistency(reference))
    assert expected == set(chain_urls(N_PAGES))

    job = tmp_path / "job"
    rc, _ = interrupt_after(job, chain_server, 15, signal.SIGKILL)
    assert rc == -signal.SIGKILL
    killed_at = set(read_crawl_log(job)["url"])
    rc, out = interrupt_after(job, chain_server, 25, signal.SIGINT)  # Ctrl-C: graceful stop
    assert rc == 130
    assert json.loads(out.strip().splitlines()[-1])["finish_reason"] == "shutdown"
    rc, summary, err = run_cli(crawl_args(job, chain_server))
    assert rc == 0, err[-3000:]
    assert summary["run"] == 2 and summary["finish_reason"] == "finished"

    stored = check_job_consistency(job)
    assert set(stored) == expected and len(stored) == len(expected)
    log = read_crawl_log(job)
    assert log["url"].is_unique  # nothing finished twice: no stored page fetched again
    assert killed_at <= set(log["url"])  # nothing recorded before the kill was lost
    # only requests in flight at the two interruptions (at most 2 per host, plus the page being
    # written at the kill) went to the server twice
    server_log = chain_server.config.log_path
    assert server_log is not None
    time.sleep(1.2)  # the server flushes its log every second
    job_requests = Counter(json.loads(line)["url"] for line in server_log.read_text().splitlines())
    # the server log holds the reference crawl too: every page once, then the interrupted crawl
    repeated = {u: n - 2 for u, n in job_requests.items() if u in expected and n > 2}
    assert sum(repeated.values()) <= 6, repeated
