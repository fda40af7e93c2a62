"""The crawl job's persistent state: frontier, seen-set, budgets, WARC, crawl log and recovery after a kill."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from warcio.archiveiterator import ArchiveIterator

from smartcrawl.crawl.budgets import SiteBudgets
from smartcrawl.crawl.config import CrawlSettings
from smartcrawl.crawl.crawllog import CRAWL_LOG, read_crawl_log, repair_crawl_log
from smartcrawl.crawl.frontier import DONE, IN_FLIGHT, PARKED, QUEUED, Frontier, NewUrl, SeenSet
from smartcrawl.crawl.job import STATE_DB, CrawlJob, JobMismatch
from smartcrawl.crawl.records import LOG_FIELDS, PageRecord
from smartcrawl.crawl.statedb import open_state_db
from smartcrawl.crawl.warcstore import WarcStore, repair_warc, scan_warc, stored_urls, warc_name

IDENTITY = {"pair": ["eng", "mlt"], "strategy": {"name": "bfs"}, "scope": "domain", "seeds": ["http://a.test/"]}


def new(url: str, priority: int = -1, site: str = "a.test") -> NewUrl:
    return NewUrl(url=url, site=site, priority=priority, depth=1, hop="L", parent="http://a.test/")


def page_record(entry_id: int, url: str, stored: bool = True, links: tuple[str, ...] = (), site: str = "a.test",
                fetched: bool = True) -> PageRecord:
    body = f"<html><body>{url}</body></html>".encode()
    return PageRecord(
        queue_id=entry_id, url=url, site=site, time=1.0, status=200 if fetched else None, fetched=fetched,
        stored=stored, bytes=len(body), content_type="text/html", lang="eng" if stored else "", lang_reliable=True,
        priority=-1, score=None, parent=None, depth=0, hop="L", reason="" if stored else "robots",
        new_urls=[new(u) for u in links], body=body, http_headers=[("Content-Type", "text/html")],
        http_status_line="200 OK",
    )


# -- frontier, seen-set, budgets ---------------------------------------------------------------------
def test_frontier_order_and_states(tmp_path: Path) -> None:
    db = open_state_db(tmp_path / "s.sqlite")
    frontier, seen = Frontier(db), SeenSet(db)
    ids = {u: frontier.push(new(u, p)) for u, p in [("http://a.test/1", -5), ("http://a.test/2", -1),
                                                     ("http://a.test/3", -5), ("http://b.test/4", -1)]}
    first = frontier.peek()
    assert first is not None and first.url == "http://a.test/2" and first.host == "a.test"  # best priority, oldest
    assert frontier.peek(exclude_hosts={"a.test"}).url == "http://b.test/4"  # type: ignore[union-attr]
    assert frontier.peek(exclude_sites={"a.test"}) is None  # every entry was given site a.test
    frontier.mark_in_flight(ids["http://a.test/2"])
    assert frontier.state_of(ids["http://a.test/2"]) == IN_FLIGHT and len(frontier) == 3
    # a waiting URL found again with a better priority moves up (to the back of its new level)
    better = frontier.replace_if_better(ids["http://a.test/3"], new("http://a.test/3", 0))
    assert better is not None and frontier.peek().url == "http://a.test/3"  # type: ignore[union-attr]
    assert frontier.replace_if_better(better, new("http://a.test/3", -9)) is None  # not better
    assert frontier.replace_if_better(ids["http://a.test/2"], new("http://a.test/2", 5)) is None  # in flight
    assert frontier.park_site("a.test") == 3 and frontier.count(PARKED) == 3 and not frontier.has_queued()
    assert frontier.restore_parked() == 3
    assert frontier.reset_in_flight() == 1 and frontier.count(QUEUED) == 4
    frontier.finish(ids["http://a.test/1"])
    assert frontier.count(DONE) == 1 and not frontier.waiting(ids["http://a.test/1"])
    assert seen.add(b"x" * 20, 1) and not seen.add(b"x" * 20, 2) and seen.get(b"x" * 20) == 1
    seen.move(b"x" * 20, 7)
    assert seen.get(b"x" * 20) == 7 and b"x" * 20 in seen and len(seen) == 1


def test_frontier_orders_a_level_by_lane_number(tmp_path: Path) -> None:
    frontier = Frontier(open_state_db(tmp_path / "s.sqlite"))
    for url, prio, seq in [("http://a.test/en1", -101, 1), ("http://a.test/en2", -101, 2), ("http://a.test/en3", -101, 3),
                           ("http://a.test/fi1", -101, 1), ("http://a.test/x", -101, 0), ("http://a.test/fi2", -101, 2),
                           ("http://a.test/best", -1, 9)]:
        frontier.push(NewUrl(url=url, site="a.test", priority=prio, depth=1, hop="L", seq=seq))
    order = []
    while (entry := frontier.peek()) is not None:
        order.append(entry.url.rsplit("/", 1)[1])
        frontier.mark_in_flight(entry.id)
    # priority first; within a level, lane number, then first queued: the two lanes in turn
    assert order == ["best", "x", "en1", "fi1", "en2", "fi2", "en3"]


def test_state_db_from_before_lanes_is_upgraded(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.sqlite"
    old = sqlite3.connect(path)
    old.executescript("""
        CREATE TABLE queue (id INTEGER PRIMARY KEY, url TEXT NOT NULL, site TEXT NOT NULL, host TEXT NOT NULL,
            priority INTEGER NOT NULL, score REAL, depth INTEGER NOT NULL, parent TEXT, hop TEXT NOT NULL,
            redirects INTEGER NOT NULL DEFAULT 0, retries INTEGER NOT NULL DEFAULT 0,
            state INTEGER NOT NULL DEFAULT 0);
        CREATE INDEX queue_ready ON queue(priority DESC, id) WHERE state = 0;
        INSERT INTO queue(url, site, host, priority, depth, hop) VALUES ('http://a.test/old', 'a.test', 'a.test', -5, 1, 'L');
    """)
    old.commit()
    old.close()
    frontier = Frontier(open_state_db(path))
    frontier.push(NewUrl(url="http://a.test/new", site="a.test", priority=-5, depth=1, hop="L", seq=1))
    first = frontier.peek()
    assert first is not None and first.url == "http://a.test/old"  # its lane number is 0


def test_budgets(tmp_path: Path) -> None:
    db = open_state_db(tmp_path / "s.sqlite")
    now = [100.0]
    budgets = SiteBudgets(db, max_pages_per_site=2, max_seconds_per_site=10.0, clock=lambda: now[0])
    budgets.load()
    assert budgets.status("a") == "ok"
    budgets.on_dispatch("a")
    budgets.on_dispatch("a")
    assert budgets.status("a") == "wait"  # both in flight may use the budget up
    budgets.on_finish("a", fetched=False)  # refused by robots.txt: not a fetch
    assert budgets.status("a") == "ok"
    budgets.on_dispatch("a")
    budgets.on_finish("a", fetched=True)
    budgets.on_finish("a", fetched=True)
    assert budgets.status("a") == "spent"
    budgets.on_dispatch("b")
    now[0] += 11.0
    assert budgets.status("b") == "spent"  # time budget
    total = SiteBudgets(db, max_pages=1)
    total.load()
    total.on_dispatch("c")
    assert total.status("d") == "wait"


# -- WARC and crawl log files -------------------------------------------------------------------------
def test_warc_store_and_repair(tmp_path: Path) -> None:
    store = WarcStore(tmp_path, run=0)
    for i in range(3):
        store.write(page_record(i, f"http://a.test/{i}"))
    store.close()
    path = tmp_path / warc_name(0)
    with path.open("rb") as fh:
        records = [(r.rec_headers.get_header("WARC-Target-URI"), r.rec_headers.get_header(
            "WARC-Identified-Content-Language"), r.http_headers.get_statuscode(), r.content_stream().read())
            for r in ArchiveIterator(fh)]
    assert [r[0] for r in records] == [f"http://a.test/{i}" for i in range(3)]
    assert records[0][1] == "eng" and records[0][2] == "200" and records[0][3].startswith(b"<html>")
    size = path.stat().st_size
    with path.open("r+b") as fh:
        fh.truncate(size - 7)  # a killed run left half a record
    scan = repair_warc(path)
    assert scan.urls == ["http://a.test/0", "http://a.test/1"] and path.stat().st_size == scan.good_end
    assert scan_warc(path).urls == scan.urls and stored_urls(tmp_path) == scan.urls
    assert gzip.decompress(path.read_bytes()).count(b"WARC/1.") == 2
    assert scan_warc(tmp_path / "missing.warc.gz").urls == []


def test_crawl_log_repair(tmp_path: Path) -> None:
    path = tmp_path / CRAWL_LOG
    rows = [json.dumps({k: (i if k == "ord" else None) for k in LOG_FIELDS}) for i in (1, 2)]
    path.write_text(rows[0] + "\n" + rows[1] + "\n" + '{"ord": 3, "url": "http://a.te')
    assert repair_crawl_log(path) == 2
    assert path.read_text().count("\n") == 2 and len(read_crawl_log(tmp_path)) == 2
    assert repair_crawl_log(tmp_path / "none.jsonl") == 0


# -- the job: recording, resuming, recovering ------------------------------------------------------------
def open_job(tmp_path: Path, **settings: object) -> CrawlJob:
    job = CrawlJob(tmp_path / "job", IDENTITY, CrawlSettings(**settings))  # type: ignore[arg-type]
    job.open()
    return job


def test_job_records_and_resumes(tmp_path: Path) -> None:
    job = open_job(tmp_path)
    assert job.admit(NewUrl("http://a.test/", "a.test", -1, 0, "S"))
    assert not job.admit(NewUrl("http://a.test/#x", "a.test", -1, 0, "S"))  # same canonical URL
    entry = job.next_entry()
    assert entry is not None and job.next_entry() is None
    assert job.record(page_record(entry.id, entry.url, links=("http://a.test/x", "http://a.test/y"))) == 1
    assert job.record(page_record(entry.id, entry.url)) is None  # a second outcome for one entry is ignored
    assert job.queued() == 2 and job.still_open(["http://a.test/", "http://a.test/x", "http://a.test/new"]) == [
        False, True, True]
    second = job.next_entry()
    assert second is not None and second.url == "http://a.test/x"
    summary = job.close("shutdown")  # the entry in flight is queued again by the next run
    assert summary.stored == 1 and summary.frontier_queued == 2
    job = open_job(tmp_path)
    assert job.run == 1 and job.recovered["requeued_in_flight"] == 1 and job.queued() == 2
    assert job.stats.stored_total == 1
    job.close()
    with pytest.raises(JobMismatch):
        CrawlJob(tmp_path / "job", {**IDENTITY, "strategy": {"name": "smart"}}, CrawlSettings()).open()


def test_job_recovers_from_a_kill(tmp_path: Path) -> None:
    """A run killed after committing a page but before its WARC record and crawl-log line were complete."""
    job = open_job(tmp_path)
    for u in ("http://a.test/1", "http://a.test/2", "http://a.test/3"):
        job.admit(NewUrl(u, "a.test", -1, 0, "S"))
    for _ in range(3):
        e = job.next_entry()
        assert e is not None
        job.record(page_record(e.id, e.url))
    job_dir = job.job_dir
    job._db.close()
    warc = job_dir / warc_name(0)
    with warc.open("r+b") as fh:
        fh.truncate(warc.stat().st_size - 10)  # the last WARC record is cut
    log_path = job_dir / CRAWL_LOG
    lines = log_path.read_text().splitlines(keepends=True)
    log_path.write_text("".join(lines[:1]) + lines[1][:20])  # the crawl log lost a line and a half
    job = open_job(tmp_path)
    assert job.recovered == {"requeued_in_flight": 0, "requeued_lost_pages": 1, "crawl_log_rows_restored": 1}
    assert job.queued() == 1 and job.frontier.peek().url == "http://a.test/3"  # type: ignore[union-attr]
    entry = job.next_entry()
    assert entry is not None
    job.record(page_record(entry.id, entry.url))
    job.close()
    log = read_crawl_log(job_dir)
    assert log["url"].tolist() == ["http://a.test/1", "http://a.test/2", "http://a.test/3"]
    assert log["ord"].tolist() == [1, 2, 3] and log["run"].tolist() == [0, 0, 1]
    assert sorted(stored_urls(job_dir)) == log["url"].tolist()  # each page stored exactly once
    db = open_state_db(job_dir / STATE_DB)
    assert db.execute("SELECT COUNT(*) FROM log").fetchone()[0] == 3


def test_job_budget_parks_and_unparks(tmp_path: Path) -> None:
    job = open_job(tmp_path, max_pages_per_site=1)
    for u in ("http://a.test/1", "http://a.test/2"):
        job.admit(NewUrl(u, "a.test", -1, 0, "S"))
    job.admit(NewUrl("http://b.test/1", "b.test", -2, 0, "S"))
    first = job.next_entry()
    assert first is not None and first.url == "http://a.test/1"
    nxt = job.next_entry()  # a.test waits on its request in flight; b.test may go
    assert nxt is not None and nxt.url == "http://b.test/1"
    job.record(page_record(first.id, first.url, site="a.test"))
    assert job.next_entry() is None and job.parked() == 1 and not job.has_pending()
    job.close()
    job = CrawlJob(tmp_path / "job", IDENTITY, CrawlSettings(max_pages_per_site=2))
    job.open()
    entry = job.next_entry()  # a larger budget on resume: the parked URL goes again
    assert entry is not None and entry.url == "http://a.test/2"
    job.close()


def test_host_concurrency_cap(tmp_path: Path) -> None:
    job = open_job(tmp_path, concurrent_per_host=1)
    for u in ("http://a.test/1", "http://a.test/2", "http://b.test/1"):
        job.admit(NewUrl(u, "x", -1, 0, "S"))
    got = [job.next_entry(), job.next_entry(), job.next_entry()]
    assert [g.url if g else None for g in got] == ["http://a.test/1", "http://b.test/1", None]
    first = got[0]
    assert first is not None
    job.requeue(first.id, first.site, -1, 1)  # a retry frees the host
    again = job.next_entry()
    assert again is not None and again.id == first.id and again.retries == 1
    job.close()


def test_records_with_unstored_pages(tmp_path: Path) -> None:
    job = open_job(tmp_path)
    job.admit(NewUrl("http://a.test/private", "a.test", -1, 0, "S"))
    entry = job.next_entry()
    assert entry is not None
    job.record(page_record(entry.id, entry.url, stored=False, fetched=False))
    summary = job.close()
    assert summary.stored == 0 and summary.fetched == 0 and summary.by_reason == {"robots": 1}
    log = read_crawl_log(job.job_dir)
    assert log["status"].isna().all() and not log["stored"].any() and log["warc"].isna().all()
    assert stored_urls(job.job_dir) == []
