"""One worker of a distributed crawl: a :class:`~smartcrawl.crawl.job.CrawlJob` whose frontier lives in Redis.

Any number of crawler processes started with ``crawl.backend=redis`` and the same ``redis_url`` and
``redis_prefix`` share one crawl (:class:`~smartcrawl.crawl.redisfrontier.SharedFrontier`: queue,
seen-set, per-host concurrency and site budgets). Each process is a *worker* with its own name
(``crawl.worker``) and writes what it downloads to its own directory, ``<job_dir>/worker-<name>/``,
laid out as a one-process job (``job.json``, ``state.sqlite`` with the download log,
``crawl_log.jsonl``, ``warc/``); :mod:`~smartcrawl.crawl.distributed` lists and merges them.

One finished request (:meth:`RedisCrawlJob.record`): (1) Redis: the entry is finished and its
outlinks queued, in one step (the entry is then *unconfirmed*); (2) the log row is committed to the
worker's database and the page appended to its WARC; (3) the row goes to ``crawl_log.jsonl``;
(4) Redis: the entry is confirmed, along with the worker's next claim or completion. A kill at any point is repaired when the worker starts again with the
same name (:meth:`RedisCrawlJob.open`): a stored row whose WARC record is missing is dropped (as in
the SQLite job), unconfirmed entries whose outcome is in the worker's files are confirmed, the other
unconfirmed and all in-flight entries go back to the queue at their old place. So nothing is stored
twice and nothing is lost, as with one process.

A worker that does not come back: once its lease (``crawl.lease_s``) lapses, a live worker adopts
its entries (:meth:`RedisCrawlJob.maintain`). On the same machine (or a shared file system) the
adopter takes the dead worker's directory lock and decides its unconfirmed entries from its files
exactly as a restart would; a worker on another machine whose files cannot be read has at most the
one page it was writing at the kill queued again, so that page may end up stored twice (the merged
listing keeps the first copy).
"""

from __future__ import annotations

import fcntl
import logging
import socket
import sqlite3
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any

from smartcrawl.crawl.config import CrawlSettings
from smartcrawl.crawl.frontier import FrontierEntry, NewUrl
from smartcrawl.crawl.job import STATE_DB, CrawlJob
from smartcrawl.crawl.records import DownloadLog, PageRecord, log_row
from smartcrawl.crawl.redisfrontier import FrontierStatus, SharedFrontier
from smartcrawl.crawl.statedb import get_meta, open_state_db, set_meta
from smartcrawl.crawl.summary import CrawlSummary
from smartcrawl.crawl.warcstore import WarcStore, repair_warc, scan_warc, warc_name

log = logging.getLogger(__name__)

WORKER_PREFIX = "worker-"
LOCK_FILE = ".lock"


def worker_dir(job_dir: str | Path, worker: str | int) -> Path:
    """The directory of one worker of a distributed job: ``<job_dir>/worker-<worker>``."""
    return Path(job_dir) / f"{WORKER_PREFIX}{worker}"


def redis_prefix(job_dir: str | Path, settings: CrawlSettings) -> str:
    """The crawl's Redis key prefix: ``crawl.redis_prefix``, else ``smartcrawl:<name of job_dir>``."""
    return settings.redis_prefix or f"smartcrawl:{Path(job_dir).resolve().name}"


def connect_shared(job_dir: str | Path, settings: CrawlSettings) -> SharedFrontier:
    """The shared frontier of a distributed job, as this process's worker sees it."""
    return SharedFrontier.connect(
        settings.redis_url, redis_prefix(job_dir, settings), str(settings.worker), lease_s=settings.lease_s,
        max_per_host=settings.concurrent_per_host, max_pages_per_site=settings.max_pages_per_site,
        max_seconds_per_site=settings.max_seconds_per_site, max_pages=settings.max_pages)


def redis_seeds(job_dir: str | Path, settings: CrawlSettings, seeds: Iterable[str]) -> list[str]:
    """``seeds``, else those of this worker's earlier runs, else those the shared crawl recorded."""
    from smartcrawl.crawl.runner import job_seeds

    out = job_seeds(worker_dir(job_dir, settings.worker), list(seeds))
    if out:
        return out
    shared = connect_shared(job_dir, settings)
    try:
        return shared.seeds()
    finally:
        shared.close()


class WorkerLock:
    """An exclusive ``flock`` on a worker directory: one process per worker; freed by the kernel at a kill."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._fh: IO[str] | None = None

    def try_acquire(self) -> bool:
        """Take the lock if it is free; ``True`` when taken."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = self.path.open("a")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.close()
            return False
        self._fh = fh
        return True

    def acquire(self, timeout_s: float) -> None:
        """Take the lock, waiting up to ``timeout_s`` (another worker may hold it for a moment while adopting)."""
        deadline = time.monotonic() + timeout_s
        while not self.try_acquire():
            if time.monotonic() >= deadline:
                raise RuntimeError(f"{self.path.parent} is in use by another process: give each crawler process"
                                   " its own crawl.worker name")
            time.sleep(0.1)

    def release(self) -> None:
        """Free the lock."""
        if self._fh is not None:
            fcntl.flock(self._fh, fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None


def local_outcomes(wdir: str | Path, entry_ids: Iterable[int]) -> set[int]:
    """The entries whose outcome a worker's files hold: a log row and, for a stored page, a complete WARC record."""
    ids = sorted({int(i) for i in entry_ids})
    path = Path(wdir) / STATE_DB
    if not ids or not path.exists():
        return set()
    db = sqlite3.connect(path)
    try:
        rows: list[tuple[int, int, int, str]] = []
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            rows.extend(db.execute(f"SELECT queue_id, run, stored, url FROM log WHERE queue_id IN"
                                   f" ({','.join('?' * len(chunk))})", chunk))
    finally:
        db.close()
    warcs: dict[int, set[str]] = {}
    out: set[int] = set()
    for queue_id, run, stored, url in rows:
        if stored:
            if run not in warcs:
                warcs[run] = set(scan_warc(Path(wdir) / warc_name(int(run))).urls)
            if url not in warcs[run]:
                continue
        out.add(int(queue_id))
    return out


class RedisCrawlJob(CrawlJob):
    """One worker of a distributed crawl (module docstring); ``job_dir`` is the shared job directory."""

    def __init__(self, job_dir: str | Path, identity: Mapping[str, Any], settings: CrawlSettings) -> None:
        super().__init__(worker_dir(job_dir, settings.worker), identity, settings)
        self.shared_dir = Path(job_dir)
        self.worker = str(settings.worker)
        self.shared: SharedFrontier | None = None
        self._lock: WorkerLock | None = None
        self._dry = False  # the last claim found nothing and this worker changed nothing since

    # -- opening and recovery ---------------------------------------------------------------
    def open(self) -> None:
        """Join the shared crawl as this worker, repairing what its last run (stopped or killed) left behind."""
        self.job_dir.mkdir(parents=True, exist_ok=True)
        self._check_identity()
        lock = WorkerLock(self.job_dir / LOCK_FILE)
        lock.acquire(timeout_s=30.0)
        self._lock = lock
        try:
            self._open_locked()
        except BaseException:
            if self.shared is not None:
                self.shared.close()
                self.shared = None
            if self._db is not None:
                self._db.close()
                self._db = None
            lock.release()
            raise

    def _open_locked(self) -> None:
        s = self.settings
        shared = self.shared = connect_shared(self.shared_dir, s)
        shared.check_identity(self.identity)
        db = self._db = open_state_db(self.job_dir / STATE_DB)
        self.downloads = DownloadLog(db)
        self.run = int(get_meta(db, "runs", "0") or 0)
        if self.run > 0:
            self._drop_lost_pages()
        db.commit()
        shared.register(str(self.job_dir.resolve()))
        unconfirmed = shared.unconfirmed()
        done = local_outcomes(self.job_dir, unconfirmed)
        shared.confirm(sorted(done))
        lost = shared.reopen(sorted(set(unconfirmed) - done))
        in_flight, _ = shared.reclaim() or (0, 0)
        shared.restore_parked()
        set_meta(db, "runs", str(self.run + 1))
        db.commit()
        self._restore_crawl_log(in_flight, lost)
        self._load_stats()
        self._warc = WarcStore(self.job_dir, self.run, s.fsync)
        self._record_run_start()
        log.info("worker %s joined the shared crawl %s (run %d): %s", self.worker, shared.prefix, self.run,
                 self.recovered)

    def _drop_lost_pages(self) -> None:
        """Drop the last run's stored rows whose WARC record is missing or cut (killed in between)."""
        prev = self.run - 1
        in_warc = set(repair_warc(self.job_dir / warc_name(prev)).urls)
        lost = [ord_ for ord_, _, url in self.downloads.stored_in_run(prev) if url not in in_warc]
        if lost:
            self.downloads.delete(lost)

    # -- the shared frontier ------------------------------------------------------------------
    @property
    def frontier_handle(self) -> SharedFrontier:
        """The open shared frontier."""
        if self.shared is None:
            raise RuntimeError("the crawl job is not open")
        return self.shared

    def admit(self, item: NewUrl) -> bool:
        """Queue ``item`` in the shared frontier unless seen (a better priority re-queues a waiting URL)."""
        self._dry = False
        return self.frontier_handle.admit([item]) > 0

    def still_open(self, urls: list[str]) -> list[bool]:
        """For each URL: never seen, or still waiting in the shared queue."""
        return self.frontier_handle.still_open(urls)

    def next_entry(self) -> FrontierEntry | None:
        """Claim the best entry that may go now (atomic across workers); ``None`` when none may.

        After a claim that found nothing, the next ones answer ``None`` without asking Redis until
        this worker changes the frontier (a page done, a retry, a URL queued) or :meth:`refresh`
        is called (the scheduler's poll does, for what other workers changed).
        """
        if self._dry:
            return None
        entry = self.frontier_handle.claim()
        self._dry = entry is None
        return entry

    def refresh(self) -> None:
        """Forget that the last claim found nothing (other workers may have freed hosts or queued URLs)."""
        self._dry = False

    def requeue(self, entry_id: int, site: str, priority: int, retries: int) -> None:
        """Put this worker's in-flight URL back in the shared queue (a retry)."""
        self._dry = False
        self.frontier_handle.requeue(entry_id, priority, retries)

    def status(self) -> FrontierStatus:
        """Counts of the shared frontier."""
        return self.frontier_handle.status()

    def has_pending(self) -> bool:
        """Whether some host has a waiting URL (it may still be busy or over budget)."""
        if self._dry:
            return self.frontier_handle.last_hosts_waiting > 0
        return self.frontier_handle.hosts_waiting() > 0

    def queued(self) -> int:
        """URLs waiting in the shared queue (parked ones not counted)."""
        return self.frontier_handle.status().queued

    def parked(self) -> int:
        """URLs of sites whose budget is spent."""
        return self.frontier_handle.status().parked

    def in_flight(self) -> int:
        """URLs in flight in all workers."""
        return self.frontier_handle.status().in_flight

    def crawl_over(self) -> bool:
        """Whether the shared crawl has nothing left: no waiting URL, nothing in flight or unconfirmed anywhere."""
        return self.frontier_handle.status().over

    def maintain(self) -> None:
        """Renew this worker's lease and adopt the entries of workers whose lease lapsed (module docstring)."""
        shared = self.frontier_handle
        shared.heartbeat()
        for name, info in shared.dead_workers().items():
            self._adopt(name, info)

    def _adopt(self, name: str, info: Mapping[str, Any]) -> None:
        shared = self.frontier_handle
        wdir = Path(str(info.get("dir", "")))
        if info.get("hostname") == socket.gethostname() and wdir.is_dir():
            lock = WorkerLock(wdir / LOCK_FILE)
            if not lock.try_acquire():
                return  # its process still runs on this machine: not dead, only slow
            try:
                done = local_outcomes(wdir, shared.unconfirmed(name))
                shared.confirm(sorted(done), worker=name)
                got = shared.reclaim(name, include_unconfirmed=True, only_if_dead=True)
            finally:
                lock.release()
        else:
            got = shared.reclaim(name, include_unconfirmed=True, only_if_dead=True)
            if got and got[1]:
                log.warning("worker %s (files not readable here) had %d unconfirmed pages; queued again, so they"
                            " may be stored twice", name, got[1])
        if got is not None:
            log.warning("worker %s stopped answering: %d in-flight and %d unconfirmed URLs queued again", name, *got)

    # -- recording ----------------------------------------------------------------------------
    def record(self, record: PageRecord) -> int | None:
        """Store the outcome of one request (module docstring); ``None`` when its lease was lost."""
        if self._db is None or self._warc is None or self._jsonl is None:
            raise RuntimeError("the crawl job is not open")
        shared = self.frontier_handle
        self._dry = False
        new = shared.complete(record.queue_id, record.fetched, record.new_urls)
        if new is None:
            log.warning("outcome of %s dropped: its lease lapsed and another worker took it", record.url)
            return None
        row = log_row(record, self.run, new, self._warc.name if record.stored else None)
        row["ord"] = self.downloads.append(row)
        self._db.commit()
        if record.stored:
            self._warc.write(record)
        shared.confirm_later(record.queue_id)
        del row["queue_id"]
        self._jsonl.write(row)
        self.stats.observe(record, new)
        return int(row["ord"])

    # -- closing ------------------------------------------------------------------------------
    def close(self, finish_reason: str = "finished") -> CrawlSummary:
        """Give this worker's in-flight URLs back to the shared queue, close its files and leave the crawl."""
        if self.shared is not None:
            self.shared.reclaim()
        try:
            return super().close(finish_reason)
        finally:
            if self.shared is not None:
                self.shared.unregister()
                self.shared.close()
                self.shared = None
            if self._lock is not None:
                self._lock.release()
                self._lock = None

