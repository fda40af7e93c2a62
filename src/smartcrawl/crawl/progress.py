"""Progress display: every ``SMARTCRAWL_PROGRESS_INTERVAL`` seconds, one log line and ``progress.json``.

The line reads, e.g.::

    progress 00:01:10 | 1532 fetched (21.9 pages/s, last 24.1/s) | stored 1410: eng 802, mlt 571, und 37 |
    frontier 8210 queued, 0 parked

(one line in the log).

``pages/s`` counts fetches of this run (overall and over the last interval); ``stored`` and its
per-language split (CLD2) cover the whole job; the frontier counts URLs waiting and URLs parked
because their site's budget is spent. ``progress.json`` in the job dir holds the same numbers for
scripts and dashboards.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from twisted.internet import task

from smartcrawl.crawl.job import PROGRESS_FILE, CrawlJob

log = logging.getLogger(__name__)


def progress_snapshot(job: CrawlJob, last_fetched: int, last_time: float) -> dict[str, Any]:
    """The progress numbers of a running job (``last_*``: fetch count and monotonic time at the previous report)."""
    st = job.stats
    now = time.monotonic()
    elapsed = now - st.started
    window = now - last_time
    return {
        "time": time.time(), "run": job.run, "elapsed_s": round(elapsed, 1),
        "fetched_run": st.fetched_run, "downloads_run": st.downloads_run,
        "pages_per_s": round(st.fetched_run / elapsed, 2) if elapsed > 0 else 0.0,
        "pages_per_s_last": round((st.fetched_run - last_fetched) / window, 2) if window > 0 else 0.0,
        "stored_total": st.stored_total, "stored_by_lang": dict(st.stored_by_lang.most_common()),
        "frontier_queued": job.queued(), "frontier_parked": job.parked(),
    }


def progress_line(snap: dict[str, Any]) -> str:
    """The one-line rendering of a :func:`progress_snapshot`."""
    secs = int(snap["elapsed_s"])
    clock = f"{secs // 3600:02d}:{secs % 3600 // 60:02d}:{secs % 60:02d}"
    langs = ", ".join(f"{k or '-'} {v}" for k, v in snap["stored_by_lang"].items()) or "none"
    return (f"progress {clock} | {snap['fetched_run']} fetched ({snap['pages_per_s']:.1f} pages/s, "
            f"last {snap['pages_per_s_last']:.1f}/s) | stored {snap['stored_total']}: {langs} | "
            f"frontier {snap['frontier_queued']} queued, {snap['frontier_parked']} parked")


class ProgressReporter:
    """Scrapy extension writing the progress line and ``progress.json`` (module docstring)."""

    def __init__(self, crawler: Crawler, interval_s: float) -> None:
        self.crawler = crawler
        self.interval_s = interval_s
        self._loop: task.LoopingCall | None = None
        self._last_fetched = 0
        self._last_time = time.monotonic()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ProgressReporter:
        """Scrapy's factory: ``SMARTCRAWL_PROGRESS_INTERVAL`` <= 0 disables the extension."""
        interval = crawler.settings.getfloat("SMARTCRAWL_PROGRESS_INTERVAL", 10.0)
        if interval <= 0:
            raise NotConfigured
        ext = cls(crawler, interval)
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def _job(self) -> CrawlJob | None:
        job = getattr(self.crawler.spider, "job", None)
        return job if isinstance(job, CrawlJob) and job.is_open else None

    def spider_opened(self) -> None:
        """Start the periodic report."""
        self._last_time = time.monotonic()
        self._loop = task.LoopingCall(self.report)
        self._loop.start(self.interval_s, now=False)

    def spider_closed(self) -> None:
        """Stop the periodic report and write a last one."""
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        self.report()

    def report(self) -> None:
        """Log one progress line and rewrite ``progress.json``."""
        job = self._job()
        if job is None:
            return
        snap = progress_snapshot(job, self._last_fetched, self._last_time)
        self._last_fetched, self._last_time = job.stats.fetched_run, time.monotonic()
        log.info(progress_line(snap))
        path = Path(job.job_dir) / PROGRESS_FILE
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(snap, ensure_ascii=False))
        os.replace(tmp, path)
