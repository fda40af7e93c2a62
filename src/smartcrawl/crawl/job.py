"""A crawl job directory: the state that survives stops and kills, and the recovery when a run starts.

Layout of ``job_dir``::

    job.json            what the job crawls (pair, strategy, scope, seeds) and its runs
    state.sqlite        frontier, seen-set, site budgets and download log (WAL; the source of truth)
    crawl_log.jsonl     one JSON row per finished request, in download order (mirror of the log table)
    warc/00000.warc.gz  the pages stored by run 0 (one file per run)
    summary.json        the last run's summary; progress.json: the latest progress snapshot

One finished request = one :meth:`CrawlJob.record`: (1) a single database transaction marks the URL
done, queues its new outlinks and appends its log row; (2) the page goes to the WARC, flushed;
(3) the row goes to ``crawl_log.jsonl``, flushed. A kill between the steps is repaired by
:meth:`CrawlJob.open` at the next start: in-flight URLs are queued again; a URL whose log row says
"stored" but whose WARC record is missing or cut (killed between 1 and 2) loses its row and is
queued again; a partial WARC record or JSONL line is cut off and missing JSONL rows are copied from
the database. So nothing stored is fetched again, no page is stored twice, and only the requests
in flight at the kill are repeated.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from smartcrawl.crawl.budgets import SiteBudgets
from smartcrawl.crawl.config import CrawlSettings
from smartcrawl.crawl.crawllog import CRAWL_LOG, CrawlLogWriter, repair_crawl_log
from smartcrawl.crawl.frontier import IN_FLIGHT, PARKED, QUEUED, Frontier, FrontierEntry, NewUrl, SeenSet
from smartcrawl.crawl.records import DownloadLog, PageRecord, log_row
from smartcrawl.crawl.statedb import get_meta, open_state_db, set_meta
from smartcrawl.crawl.summary import CrawlSummary, RunStats
from smartcrawl.crawl.urlnorm import fingerprint
from smartcrawl.crawl.warcstore import WARC_DIR, WarcStore, repair_warc, warc_name

log = logging.getLogger(__name__)

JOB_FILE = "job.json"
STATE_DB = "state.sqlite"
SUMMARY_FILE = "summary.json"
PROGRESS_FILE = "progress.json"
# Keys of job.json that must not change between runs of one job.
IDENTITY_KEYS: tuple[str, ...] = ("pair", "strategy", "scope")


class JobMismatch(ValueError):
    """A job dir was started again with a different pair, strategy or scope."""


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True))
    os.replace(tmp, path)


class CrawlJob:
    """One job directory, opened for one run (module docstring).

    ``identity`` describes what the job crawls (``pair``, ``strategy``, ``scope``, ``seeds``); it is
    written to ``job.json`` on the first run and must match on later runs (seeds may grow).
    """

    def __init__(self, job_dir: str | Path, identity: Mapping[str, Any], settings: CrawlSettings) -> None:
        self.job_dir = Path(job_dir)
        self.identity = dict(identity)
        self.settings = settings
        self.run = -1
        self.recovered: dict[str, int] = {}
        self.stats = RunStats()
        self._db: Any = None
        self.seen: SeenSet
        self.frontier: Frontier
        self.budgets: SiteBudgets
        self.downloads: DownloadLog
        self._warc: WarcStore | None = None
        self._jsonl: CrawlLogWriter | None = None
        self._parked_sites: set[str] = set()
        self._host_in_flight: Counter[str] = Counter()
        self.max_in_flight_per_host = max(1, settings.concurrent_per_host)

    # -- opening and recovery ---------------------------------------------------------------
    def open(self) -> None:
        """Open the job dir for a new run, repairing what a stopped or killed run left behind."""
        self.job_dir.mkdir(parents=True, exist_ok=True)
        self._check_identity()
        db = self._db = open_state_db(self.job_dir / STATE_DB)
        self.seen = SeenSet(db)
        self.frontier = Frontier(db)
        self.downloads = DownloadLog(db)
        s = self.settings
        self.budgets = SiteBudgets(db, s.max_pages_per_site, s.max_seconds_per_site, s.max_pages)
        self.run = int(get_meta(db, "runs", "0") or 0)
        lost = self._recover_last_run() if self.run > 0 else 0
        in_flight = self.frontier.reset_in_flight()
        self.frontier.restore_parked()
        set_meta(db, "runs", str(self.run + 1))
        db.commit()
        self._restore_crawl_log(in_flight, lost)
        self.budgets.load()
        self._load_stats()
        self._warc = WarcStore(self.job_dir, self.run, s.fsync)
        self._record_run_start()
        if self.run > 0:
            log.info("resuming %s (run %d): %s", self.job_dir, self.run, self.recovered)

    def _restore_crawl_log(self, in_flight: int, lost: int) -> None:
        """Cut a torn crawl log, reopen it, append the stored rows it misses; record the recovery counts."""
        last_ord = repair_crawl_log(self.job_dir / CRAWL_LOG)
        self._jsonl = CrawlLogWriter(self.job_dir / CRAWL_LOG, self.settings.fsync)
        missing = self.downloads.rows_after(last_ord)
        if missing:
            self._jsonl.write_many(missing)
        self.recovered = {"requeued_in_flight": in_flight, "requeued_lost_pages": lost,
                          "crawl_log_rows_restored": len(missing)}

    def _check_identity(self) -> None:
        path = self.job_dir / JOB_FILE
        if not path.exists():
            return
        old = json.loads(path.read_text())
        for key in IDENTITY_KEYS:
            if key in old and key in self.identity and old[key] != self.identity[key]:
                raise JobMismatch(f"{self.job_dir} was crawled with {key}={old[key]!r}, not {self.identity[key]!r};"
                                  " use a new job_dir")

    def _record_run_start(self) -> None:
        path = self.job_dir / JOB_FILE
        data = json.loads(path.read_text()) if path.exists() else {}
        seeds = list(dict.fromkeys([*data.get("seeds", []), *self.identity.get("seeds", [])]))
        data.update({k: v for k, v in self.identity.items() if k != "seeds"})
        data["seeds"] = seeds
        data.setdefault("runs", []).append({"run": self.run, "started": time.time(), "warc": warc_name(self.run),
                                            "recovered": dict(self.recovered)})
        _write_json(path, data)

    def _recover_last_run(self) -> int:
        """Match the previous run's stored rows with its WARC file; queue again the pages it lost."""
        prev = self.run - 1
        scan = repair_warc(self.job_dir / warc_name(prev))
        in_warc = Counter(scan.urls)
        lost_ords: list[int] = []
        lost_ids: list[int] = []
        for ord_, queue_id, url in self.downloads.stored_in_run(prev):
            if in_warc[url] > 0:
                in_warc[url] -= 1
            else:
                lost_ords.append(ord_)
                lost_ids.append(queue_id)
        if lost_ords:
            self.downloads.delete(lost_ords)
            self.frontier.reopen(lost_ids)
        extra = sum(in_warc.values())
        if extra:
            log.warning("%s: %d WARC records of run %d have no log row", self.job_dir, extra, prev)
        return len(lost_ords)

    def _load_stats(self) -> None:
        self.stats = RunStats()
        counts = self.downloads.counts
        self.stats.fetched_total = sum(counts("fetched", "fetched = 1").values())
        self.stats.stored_total = sum(counts("stored", "stored = 1").values())
        self.stats.stored_by_lang.update(counts("lang", "stored = 1"))

    def mark_started(self) -> None:
        """The crawl of this run starts now (rates and elapsed time count from here)."""
        self.stats.started = time.monotonic()

    # -- the frontier, budget-aware ---------------------------------------------------------
    def admit(self, item: NewUrl) -> bool:
        """Queue ``item`` unless its URL (canonical form) was seen; ``True`` when queued or re-queued.

        A seen URL that still waits is re-queued when ``item`` has a higher priority (see
        :meth:`~smartcrawl.crawl.frontier.Frontier.replace_if_better`).
        """
        try:
            fp = fingerprint(item.url)
        except ValueError:
            return False
        old = self.seen.get(fp)
        if old is None:
            self.seen.add(fp, self.frontier.push(item))
            return True
        new = self.frontier.replace_if_better(old, item)
        if new is None:
            return False
        self.seen.move(fp, new)
        return True

    def still_open(self, urls: list[str]) -> list[bool]:
        """For each URL: ``True`` when it was never seen or still waits in the queue (may get a priority).

        Lets the spider skip scoring links that were already fetched or are in flight.
        """
        out: list[bool] = []
        for url in urls:
            try:
                old = self.seen.get(fingerprint(url))
            except ValueError:
                out.append(False)
                continue
            out.append(old is None or self.frontier.waiting(old))
        return out

    def next_entry(self) -> FrontierEntry | None:
        """The next URL to fetch, marked in flight; ``None`` when none may go now.

        Skips sites whose budget is spent (their URLs are parked) or may be spent by the requests in
        flight, and hosts that already have ``concurrent_per_host`` requests in flight: Scrapy would
        otherwise pull many requests ahead into its per-host download queues, where they wait in
        first-in-first-out order and a better link found meanwhile could not overtake them.
        """
        blocked_sites: set[str] = set()
        busy_hosts = {h for h, n in self._host_in_flight.items() if n >= self.max_in_flight_per_host}
        while True:
            entry = self.frontier.peek(blocked_sites, busy_hosts)
            if entry is None:
                return None
            status = self.budgets.status(entry.site)
            if status == "ok":
                self.frontier.mark_in_flight(entry.id)
                self.budgets.on_dispatch(entry.site)
                self._host_in_flight[entry.host] += 1
                return entry
            if status == "spent":
                n = self.frontier.park_site(entry.site)
                if entry.site not in self._parked_sites:
                    self._parked_sites.add(entry.site)
                    log.info("site %s: budget spent, %d queued URLs parked", entry.site, n)
            else:
                blocked_sites.add(entry.site)

    def requeue(self, entry_id: int, site: str, priority: int, retries: int) -> None:
        """Put an in-flight URL back in the queue (a retry)."""
        entry = self.frontier.get(entry_id)
        if entry is not None and self.frontier.state_of(entry_id) == IN_FLIGHT:
            self.frontier.requeue(entry_id, priority, retries)
            self.budgets.on_requeue(site)
            self._release_host(entry.host)

    def _release_host(self, host: str) -> None:
        if self._host_in_flight[host] > 0:
            self._host_in_flight[host] -= 1

    def has_pending(self) -> bool:
        """Whether URLs wait in the queue (parked ones do not count)."""
        return self.frontier.has_queued()

    def queued(self) -> int:
        """How many URLs wait in the queue."""
        return self.frontier.count(QUEUED)

    def parked(self) -> int:
        """How many URLs are parked because their site's budget is spent."""
        return self.frontier.count(PARKED)

    def in_flight(self) -> int:
        """How many URLs are in flight (handed to the downloader, outcome not recorded yet)."""
        return self.frontier.count(IN_FLIGHT)

    # -- recording ----------------------------------------------------------------------------
    def record(self, record: PageRecord) -> int | None:
        """Store the outcome of one request (module docstring); returns its ``ord``, ``None`` if ignored."""
        if self._db is None or self._warc is None or self._jsonl is None:
            raise RuntimeError("the crawl job is not open")
        state = self.frontier.state_of(record.queue_id)
        if state != IN_FLIGHT:
            log.warning("outcome of %s ignored: its queue entry is in state %s, not in flight", record.url, state)
            return None
        new = sum(self.admit(item) for item in record.new_urls)
        entry = self.frontier.get(record.queue_id)
        self.frontier.finish(record.queue_id)
        self.budgets.on_finish(record.site, record.fetched)
        if entry is not None:
            self._release_host(entry.host)
        row = log_row(record, self.run, new, self._warc.name if record.stored else None)
        row["ord"] = self.downloads.append(row)
        self._db.commit()
        if record.stored:
            self._warc.write(record)
        del row["queue_id"]
        self._jsonl.write(row)
        self.stats.observe(record, new)
        return int(row["ord"])

    # -- closing ------------------------------------------------------------------------------
    def summary(self, finish_reason: str) -> CrawlSummary:
        """The run's :class:`CrawlSummary`."""
        elapsed = self.stats.elapsed()
        st = self.stats
        warcs = sorted(str(p.relative_to(self.job_dir)) for p in (self.job_dir / WARC_DIR).glob("*.warc.gz"))
        return CrawlSummary(
            job_dir=str(self.job_dir), run=self.run, finish_reason=finish_reason, elapsed_s=round(elapsed, 3),
            downloads=st.downloads_run, fetched=st.fetched_run, stored=st.stored_run,
            pages_per_s=round(st.fetched_run / elapsed, 3) if elapsed > 0 else 0.0,
            fetched_total=st.fetched_total, stored_total=st.stored_total,
            stored_by_lang=dict(st.stored_by_lang), by_reason=dict(st.by_reason), by_status=dict(st.by_status),
            skipped_links=dict(st.skipped_links), frontier_queued=self.queued() + self.in_flight(),
            frontier_parked=self.parked(), recovered=dict(self.recovered), warc_files=warcs, crawl_log=CRAWL_LOG,
        )

    def close(self, finish_reason: str = "finished") -> CrawlSummary:
        """Commit, close the files, write ``summary.json`` and the run's end into ``job.json``."""
        if self._db is None:
            raise RuntimeError("the crawl job is not open")
        self._db.commit()
        summary = self.summary(finish_reason)
        summary.write(self.job_dir / SUMMARY_FILE)
        path = self.job_dir / JOB_FILE
        data = json.loads(path.read_text())
        data["runs"][-1].update({"ended": time.time(), "finish_reason": finish_reason,
                                 "downloads": summary.downloads, "stored": summary.stored})
        _write_json(path, data)
        for closer in (self._warc, self._jsonl):
            if closer is not None:
                closer.close()
        self._db.close()
        self._db = None
        return summary

    @property
    def is_open(self) -> bool:
        """Whether :meth:`open` ran and :meth:`close` did not."""
        return self._db is not None

