"""End-to-end crawls on the loopback test bed: hazards, strategy orders, budgets and resuming.

Every crawl goes through the project's real server (an HTTP proxy on 127.0.0.1) and real Scrapy;
most run as subprocesses (``python -m smartcrawl.crawl.cli`` / ``python crawl.py``), as a user would;
one test runs several crawls in this process with :func:`~smartcrawl.crawl.runner.run_crawls`.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_crawl_testweb import (
    ALPHA,
    BETA,
    EXPECTED_ALPHA,
    EXPECTED_BETA,
    EXPECTED_LANG,
    FLAKY,
    SLOW,
    build_test_web,
)
from warcio.archiveiterator import ArchiveIterator

from smartcrawl.crawl.config import CrawlSettings, StrategyConfig
from smartcrawl.crawl.crawllog import CRAWL_LOG, read_crawl_log
from smartcrawl.crawl.job import PROGRESS_FILE, STATE_DB, SUMMARY_FILE
from smartcrawl.crawl.records import LOG_FIELDS, row_dict
from smartcrawl.crawl.runner import CrawlSpec, run_crawls
from smartcrawl.crawl.scoring import RuleScorer
from smartcrawl.crawl.warcstore import WARC_DIR, stored_urls
from smartcrawl.web.server import Policy, ServerHandle, serve_webs

REPO = Path(__file__).resolve().parents[1]
SEEDS = [f"http://{ALPHA}/", f"http://{BETA}/"]
# Small limits that the hazards of the test web run into quickly.
TEST_OVERRIDES = ["crawl.timeout_s=0.4", "crawl.retries=1", "crawl.max_bytes=100000", "crawl.max_path_segments=6",
                  "crawl.progress_interval_s=0.5"]
TEST_SETTINGS = CrawlSettings(timeout_s=0.4, retries=1, max_bytes=100_000, max_path_segments=6,
                              progress_interval_s=0)


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hazard web's directory."""
    return build_test_web(tmp_path_factory.mktemp("crawlweb") / "web")


@pytest.fixture(scope="module")
def server(web: Path) -> Iterator[ServerHandle]:
    """The hazard web on loopback: a slow host (800 ms per answer) and a host that always fails."""
    root = web.parent
    policies = {SLOW: Policy(800.0, 0.0, 0.0), FLAKY: Policy(0.0, 0.0, 1.0)}
    with serve_webs([web], host_policies=policies, log_path=root / "requests.jsonl") as handle:
        yield handle


def run_cli(args: list[str], cwd: Path = REPO, entry: list[str] | None = None,
            timeout: float = 120) -> tuple[int, dict[str, Any], str]:
    """Run the crawler command line; returns exit code, the printed summary and stderr."""
    cmd = [sys.executable, *(entry or ["-m", "smartcrawl.crawl.cli"]), *args]
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    summary = json.loads(lines[-1]) if lines else {}
    return proc.returncode, summary, proc.stderr


def request_log(server: ServerHandle, skip: int = 0) -> list[dict[str, Any]]:
    """The server's request log after its first ``skip`` lines (flushed every second: this waits for it)."""
    path = server.config.log_path
    assert path is not None
    time.sleep(1.2)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()[skip:] if line.strip()]


def db_log_rows(job_dir: Path) -> list[dict[str, Any]]:
    """The download log table of a job, as crawl-log dicts."""
    db = sqlite3.connect(job_dir / STATE_DB)
    rows = [row_dict(r) for r in db.execute(f"SELECT {', '.join(LOG_FIELDS)} FROM log ORDER BY ord")]
    db.close()
    return rows


def jsonl_rows(job_dir: Path) -> list[dict[str, Any]]:
    """The crawl log file's rows."""
    return [json.loads(line) for line in (job_dir / CRAWL_LOG).read_text().splitlines()]


def check_job_consistency(job_dir: Path) -> list[str]:
    """Invariants of a finished job; returns the stored URLs (from the WARC files)."""
    stored = stored_urls(job_dir)
    assert len(stored) == len(set(stored)), "a page was stored twice"
    log = read_crawl_log(job_dir)
    assert sorted(log.loc[log["stored"], "url"]) == sorted(stored)
    assert jsonl_rows(job_dir) == db_log_rows(job_dir)  # the JSONL mirror equals the database
    assert log["ord"].tolist() == list(range(1, len(log) + 1))
    return stored


def test_bfs_crawl_survives_hazards(server: ServerHandle, tmp_path: Path) -> None:
    job = tmp_path / "job"
    before = len(request_log(server))
    rc, summary, err = run_cli(["pair=eng-mlt", "strategy=bfs", f"job_dir={job}", f"seeds=[{','.join(SEEDS)}]",
                                f"proxy={server.proxy_url}", *TEST_OVERRIDES])
    assert rc == 0, err[-3000:]
    assert summary["finish_reason"] == "finished" and summary["frontier_queued"] == 0
    stored = check_job_consistency(job)
    assert set(stored) == EXPECTED_ALPHA | EXPECTED_BETA
    log = read_crawl_log(job).set_index("url")
    a = f"http://{ALPHA}"
    expected_reasons = {
        f"{a}/private/secret": "robots", f"{a}/missing": "http_404", f"{a}/old": "redirect",
        f"{a}/loop-a": "redirect", f"{a}/loop-b": "redirect", f"{a}/chain/6": "too_many_redirects",
        f"{a}/big": "size_cap", f"{a}/binary.html": "binary", f"{a}/download": "not_html",
        f"https://{ALPHA}/secure": "tunnel_error", f"http://{SLOW}/page": "timeout",
    }
    for url, reason in expected_reasons.items():
        assert log.loc[url, "reason"] == reason, url
    assert log.loc[f"http://{FLAKY}/page", "reason"] in ("http_500", "http_503")
    assert log.loc[f"{a}/old", "location"] == f"{a}/en/about-us"
    assert log.loc[f"{a}/en/about-us", "hop"] == "R" and log.loc[f"{a}/en/about-us", "parent"] == f"{a}/old"
    assert not log.loc[f"{a}/private/secret", "fetched"]
    assert f"{a}/chain/7" not in log.index and f"{a}/report.pdf" not in log.index
    assert f"{a}/trap/a/a/a/" not in log.index and f"{a}/session?sid=2" not in log.index
    for url, lang in EXPECTED_LANG.items():
        assert log.loc[url, "lang"] == lang, url
    assert (log.loc[log["stored"], "status"] == 200).all()
    skipped = summary["skipped_links"]
    for reason in ("bad_url", "not_http", "not_web", "out_of_scope", "repeated_segments", "too_many_segments",
                   "binary_extension"):
        assert skipped.get(reason, 0) >= 1, reason
    # WARC records carry the CLD2 language of the log
    langs = {}
    for path in sorted((job / WARC_DIR).glob("*.warc.gz")):
        with path.open("rb") as fh:
            for rec in ArchiveIterator(fh):
                langs[rec.rec_headers.get_header("WARC-Target-URI")] = rec.rec_headers.get_header(
                    "WARC-Identified-Content-Language")
    assert all(langs[u] == log.loc[u, "lang"] for u in stored)
    assert (job / SUMMARY_FILE).exists() and (job / PROGRESS_FILE).exists()
    assert "progress" in err and "pages/s" in err
    # every request went through the proxy, robots.txt included; nothing refused by robots.txt was fetched
    requests = request_log(server, skip=before)
    urls = {r["url"] for r in requests}
    assert f"http://{ALPHA}/robots.txt" in urls and f"http://{BETA}/robots.txt" in urls
    assert f"{a}/private/secret" not in urls and not any("google" in u for u in urls)
    # no stored page was requested more often than once plus its retries (a closing connection reused
    # after a stopped download made Twisted resend the next GET: test_stopped_download_no_duplicate_request)
    assert not _duplicate_requests(requests, stored, log)


def _duplicate_requests(requests: list[dict[str, Any]], stored: list[str], log: Any) -> dict[str, int]:
    """Stored URLs the server saw more often than once plus the retries the crawl log records."""
    counts = Counter(u for u in (r["url"] for r in requests) if u in set(stored))
    return {u: n for u, n in counts.items() if n > 1 + int(log.loc[u, "retries"])}


# Downloads /download (application/pdf: HtmlOnlyDownloads stops it after the head) and right after it
# /latin3, ``rounds`` times, through Scrapy's download handler for http in the crawl's settings
# (argv: proxy URL, rounds, "stock" to use Scrapy's own handler instead).
_STOP_THEN_GET = """
import sys
from twisted.internet import asyncioreactor
asyncioreactor.install()
from twisted.internet import reactor
from scrapy import Request
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.misc import load_object
from scrapy.utils.test import get_crawler
from smartcrawl.crawl.config import CrawlSettings, scrapy_settings
from smartcrawl.crawl.middlewares import HtmlOnlyDownloads
from smartcrawl.crawl.scheduler import META_KEY

proxy, rounds, alpha = sys.argv[1], int(sys.argv[2]), sys.argv[4]
settings = scrapy_settings(CrawlSettings(timeout_s=5.0), proxy)
if sys.argv[3] == "stock":
    settings.pop("DOWNLOAD_HANDLERS")
crawler = get_crawler(settings_dict=settings)
HtmlOnlyDownloads.from_crawler(crawler)
handler = load_object(crawler.settings.getwithbase("DOWNLOAD_HANDLERS")["http"]).from_crawler(crawler)
statuses = []

async def main():
    meta = {META_KEY: {}, "proxy": proxy, "download_timeout": 5.0}
    for _ in range(rounds):
        # the next request starts in the next turn of the loop, before the stopped connection has closed
        stopped = await handler.download_request(Request(f"http://{alpha}/download", meta=dict(meta)))
        page = await handler.download_request(Request(f"http://{alpha}/latin3", meta=dict(meta)))
        statuses.append((stopped.status, len(stopped.body), page.status))
    await handler.close()

def done(result):
    reactor.stop()
    return result

reactor.callWhenRunning(lambda: deferred_from_coro(main()).addBoth(done))
reactor.run()
print(statuses)
"""


def _stop_then_get(web: Path, log_path: Path, handler: str, rounds: int) -> Counter[str]:
    """Run :data:`_STOP_THEN_GET` against a server of its own; returns how often the server saw each URL."""
    with serve_webs([web], log_path=log_path) as server:
        proc = subprocess.run([sys.executable, "-c", _STOP_THEN_GET, server.proxy_url, str(rounds), handler, ALPHA],
                              cwd=REPO, capture_output=True, text=True, timeout=120)
    # the server has stopped: its log is complete
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1] == str([(200, 0, 200)] * rounds)
    return Counter(json.loads(line)["url"] for line in log_path.read_text().splitlines() if line.strip())


def test_stopped_download_no_duplicate_request(web: Path, tmp_path: Path) -> None:
    """A request right after a stopped (non-HTML) download reaches the server once.

    Scrapy closes the connection of a stopped download while Twisted still parses what it read; when
    the whole body was in that read, Twisted's pool takes the closing connection back, and a request
    sent on it is resent on a new connection when it closes. The crawl's handler refuses such
    connections; with Scrapy's own handler (the control) the page is requested twice.
    """
    rounds = 5
    latin3 = f"http://{ALPHA}/latin3"
    stock = _stop_then_get(web, tmp_path / "stock.jsonl", "stock", rounds)
    assert stock[latin3] > rounds, f"the control no longer resends (is the handler still needed?): {stock}"
    ours = _stop_then_get(web, tmp_path / "crawl.jsonl", "crawl", rounds)
    assert ours == {latin3: rounds, f"http://{ALPHA}/download": rounds}


def _order(job_dir: Path) -> list[str]:
    log = read_crawl_log(job_dir)
    return log.loc[log["fetched"], "url"].tolist()


def test_strategy_orders_in_one_reactor(server: ServerHandle, tmp_path: Path) -> None:
    """bfs, cld2 and smart (both modes) crawl the same sites one request at a time, all in one reactor.

    (Twisted's reactor runs once per process, so this is the one test that crawls in-process; it also
    checks the scoring thread: with ``score_in_thread`` the strategy runs there, and the crawl stores
    what a synchronous one stores.)
    """
    one_at_a_time = CrawlSettings(concurrent_requests=1, concurrent_per_host=1, timeout_s=0.4, retries=0,
                                  max_bytes=100_000, max_path_segments=6, progress_interval_s=0,
                                  score_in_thread=False)
    beta = [f"http://{BETA}/"]
    specs = {
        "bfs": CrawlSpec(tmp_path / "bfs", beta, ("eng", "mlt"), StrategyConfig(name="bfs"), one_at_a_time),
        "ranking": CrawlSpec(tmp_path / "ranking", beta, ("eng", "mlt"), StrategyConfig(name="smart"), one_at_a_time),
        "threshold": CrawlSpec(tmp_path / "threshold", beta, ("eng", "mlt"),
                               StrategyConfig(name="smart", mode="threshold"), one_at_a_time),
        "cld2": CrawlSpec(tmp_path / "cld2", [f"http://{ALPHA}/"], ("eng", "mlt"), StrategyConfig(name="cld2"),
                          one_at_a_time),
        "cld2_drop": CrawlSpec(tmp_path / "cld2_drop", [f"http://{ALPHA}/"], ("eng", "mlt"),
                               StrategyConfig(name="cld2", outside_pair="drop"), one_at_a_time),
    }
    scorers = {name: ThreadRecordingScorer(("eng", "mlt")) for name in ("thread", "sync")}
    for name, scorer in scorers.items():
        specs[name] = CrawlSpec(tmp_path / name, SEEDS, ("eng", "mlt"), StrategyConfig(name="smart"),
                                dataclasses.replace(TEST_SETTINGS, score_in_thread=name == "thread"), scorer=scorer)
    for spec in specs.values():
        spec.proxy_url = server.proxy_url
    summaries = run_crawls(list(specs.values()), max_parallel=len(specs), install_signal_handlers=False)
    assert [s.finish_reason for s in summaries] == ["finished"] * len(specs)
    assert {t.split("_")[0] for t in scorers["thread"].threads} == {"smartcrawl-scoring"}
    assert scorers["sync"].threads == {threading.main_thread().name}
    assert sorted(check_job_consistency(tmp_path / "thread")) == sorted(check_job_consistency(tmp_path / "sync"))
    b = f"http://{BETA}"
    assert _order(tmp_path / "bfs") == [f"{b}/", f"{b}/en/a", f"{b}/en/b", f"{b}/en/c", f"{b}/mt/a", f"{b}/mt/b",
                                        f"{b}/mt/c"]
    # smart: the translation of each page comes right after it
    smart_order = [f"{b}/", f"{b}/en/a", f"{b}/mt/a", f"{b}/en/b", f"{b}/mt/b", f"{b}/en/c", f"{b}/mt/c"]
    assert _order(tmp_path / "ranking") == smart_order
    assert _order(tmp_path / "threshold") == smart_order
    ranking = read_crawl_log(tmp_path / "ranking").set_index("url")
    assert ranking.loc[f"{b}/mt/a", "score"] == pytest.approx(1.0) and ranking.loc[f"{b}/mt/a", "priority"] == -1
    assert ranking.loc[f"{b}/en/b", "priority"] == -101  # P(mlt | /en/b) x P(parallel(/, /en/b)) = 0.01 x 0.01
    threshold = read_crawl_log(tmp_path / "threshold")
    assert set(threshold["priority"]) == {-1, -2}
    # cld2: what only a French page links to comes last; with outside_pair=drop it is never fetched
    cld2 = read_crawl_log(tmp_path / "cld2").set_index("url")
    late = [f"http://{ALPHA}/en/hidden", f"http://{ALPHA}/fr/page2"]
    assert (cld2.loc[late, "priority"] == -2).all()
    assert cld2.loc[late, "ord"].min() > cld2.loc[cld2["priority"] == -1, "ord"].max()
    dropped = read_crawl_log(tmp_path / "cld2_drop")
    assert not set(late) & set(dropped["url"])
    assert set(stored_urls(tmp_path / "cld2")) - set(stored_urls(tmp_path / "cld2_drop")) == set(late)


class ThreadRecordingScorer(RuleScorer):
    """The rule scorer, noting the threads it runs in."""

    def __init__(self, pair: tuple[str, str]) -> None:
        super().__init__(pair)
        self.threads: set[str] = set()

    def lang_probs(self, urls: Sequence[str], lang: str) -> np.ndarray:
        self.threads.add(threading.current_thread().name)
        return super().lang_probs(urls, lang)


def test_budgets_and_resume(server: ServerHandle, tmp_path: Path) -> None:
    """Per-site page budgets via ``python crawl.py`` (Hydra), then a resume with a larger budget."""
    job = tmp_path / "job"
    rc, summary, err = run_cli(
        ["pair=eng-mlt", "strategy=smart", f"job_dir={job}", f"seeds=[{','.join(SEEDS)}]", f"proxy={server.proxy_url}",
         "crawl.max_pages_per_site=4", f"hydra.run.dir={tmp_path / 'hydra'}", *TEST_OVERRIDES],
        cwd=tmp_path, entry=[str(REPO / "crawl.py")])
    assert rc == 0, err[-3000:]
    assert summary["frontier_parked"] > 0 and summary["fetched"] == 8
    log = read_crawl_log(job)
    assert log.loc[log["fetched"]].groupby("site").size().to_dict() == {"alpha.test": 4, "beta.test": 4}
    first = set(log["url"])
    rc, summary, err = run_cli([f"job_dir={job}", f"proxy={server.proxy_url}", "crawl.max_pages_per_site=6",
                                *TEST_OVERRIDES])  # no seeds: the job's own
    assert rc == 0, err[-3000:]
    assert summary["run"] == 1 and summary["fetched"] == 4 and summary["fetched_total"] == 12
    log = read_crawl_log(job)
    assert log.loc[log["fetched"]].groupby("site").size().to_dict() == {"alpha.test": 6, "beta.test": 6}
    assert not first & set(log.loc[log["run"] == 1, "url"])  # nothing fetched again
    check_job_consistency(job)
    rc, _, err = run_cli([f"job_dir={job}", "strategy=bfs"])  # a job keeps its strategy
    assert rc == 2 and "JobMismatch" in err
