"""Scrapy scheduler of a distributed crawl (``crawl.backend=redis``): :class:`DistributedScheduler`.

It is :class:`~smartcrawl.crawl.scheduler.FrontierScheduler` over a
:class:`~smartcrawl.crawl.redisjob.RedisCrawlJob`, plus what sharing the frontier with other
processes needs:

- the crawl ends when the *shared* crawl has nothing left (no waiting URL, nothing in flight or
  unconfirmed in any worker), not when this process runs dry: other workers may still queue
  outlinks, so an idle spider is kept open (``DontCloseSpider``) until then, and closed by the poll
  as soon as the shared crawl is over;
- Scrapy asks the scheduler for requests only when something happens in this process (a page
  is done) or every 5 s, so when nothing is downloading or being handled here, a poll every
  :data:`POLL_S` seconds claims a request (other workers may have freed a host or queued URLs) and
  hands it over through ``engine.crawl`` (it waits in a small local buffer that
  :meth:`DistributedScheduler.next_request` empties first). While pages are in progress here the
  engine asks by itself when each is done, as with one process, so a lone worker fetches in the
  same order as the SQLite backend;
- every ``lease_s / 4`` seconds the worker renews its lease and adopts the entries of workers whose
  lease lapsed (:meth:`~smartcrawl.crawl.redisjob.RedisCrawlJob.maintain`).
"""

from __future__ import annotations

import logging
import time
from collections import deque
from typing import cast

from scrapy import Request, Spider, signals
from scrapy.core.engine import ExecutionEngine
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider
from scrapy.utils.defer import deferred_from_coro
from twisted.internet import task

from smartcrawl.crawl.redisjob import RedisCrawlJob
from smartcrawl.crawl.scheduler import FrontierScheduler

log = logging.getLogger(__name__)

POLL_S = 0.05
PREFETCHED = "smartcrawl_prefetched"
MAX_MAINTAIN_INTERVAL_S = 5.0


class DistributedScheduler(FrontierScheduler):
    """Feeds the engine from the shared Redis frontier (module docstring)."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self._ready: deque[Request] = deque()
        self._loop: task.LoopingCall | None = None
        self._last_maintain = 0.0
        self._maintain_every = 1.0
        self._kept_open = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DistributedScheduler:
        """Scrapy's factory."""
        return cls(crawler)

    @property
    def shared_job(self) -> RedisCrawlJob:
        """The spider's crawl job, a worker of the shared crawl."""
        return cast(RedisCrawlJob, self.job)

    def open(self, spider: Spider) -> None:
        """Attach to the spider's (open) distributed crawl job and start polling."""
        super().open(spider)
        if not isinstance(self.job, RedisCrawlJob):
            raise TypeError("DistributedScheduler needs a RedisCrawlJob (crawl.backend=redis)")
        self._maintain_every = min(MAX_MAINTAIN_INTERVAL_S, max(POLL_S, self.job.settings.lease_s / 4))
        self._last_maintain = time.monotonic()
        self.crawler.signals.connect(self._on_idle, signal=signals.spider_idle)
        self._loop = task.LoopingCall(self._tick)
        self._loop.start(POLL_S, now=False)

    def close(self, reason: str) -> None:
        """Stop polling (the runner closes the job, which gives in-flight URLs back)."""
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        self._loop = None

    def _on_idle(self) -> None:
        if not self.shared_job.is_open:
            return
        if not self.shared_job.crawl_over():
            self._kept_open = True
            raise DontCloseSpider("other workers still crawl")
        self._kept_open = False

    def _tick(self) -> None:
        job = self.shared_job
        if not job.is_open:
            return
        try:
            job.refresh()
            now = time.monotonic()
            if now - self._last_maintain >= self._maintain_every:
                self._last_maintain = now
                job.maintain()
            engine = self.crawler.engine
            if self._ready or engine is None or engine.spider is None or not _locally_idle(engine):
                return
            if self._kept_open and engine.spider_is_idle() and job.crawl_over():
                # kept open while others crawled; Scrapy would notice the end only at its 5 s heartbeat
                self._kept_open = False
                if hasattr(engine, "close_spider_async"):  # Scrapy >= 2.13
                    deferred_from_coro(engine.close_spider_async(reason="finished"))
                else:
                    engine.close_spider(engine.spider, "finished")
                return
            request = super().next_request()
            if request is not None:
                request.meta[PREFETCHED] = True
                engine.crawl(request)
        except Exception:  # keep polling: a transient Redis error must not end the crawl
            log.exception("distributed scheduler poll failed")

    def enqueue_request(self, request: Request) -> bool:
        """A request claimed by the poll goes to the local buffer; anything else as in the base scheduler."""
        if request.meta.get(PREFETCHED):
            self._ready.append(request)
            return True
        return super().enqueue_request(request)

    def next_request(self) -> Request | None:
        """A request claimed by the poll, else the best one the shared frontier gives now."""
        if self._ready:
            request = self._ready.popleft()
            request.meta.pop(PREFETCHED, None)
            return request
        return super().next_request()

    def has_pending_requests(self) -> bool:
        """Whether a claimed request waits here or some host has a waiting URL in the shared queue."""
        return bool(self._ready) or self.job.has_pending()

    def __len__(self) -> int:
        return len(self._ready) + self.job.queued()


def _locally_idle(engine: ExecutionEngine) -> bool:
    """Nothing downloading or being handled in this process (the engine would not ask for requests soon)."""
    slot = getattr(engine.scraper, "slot", None)
    return not engine.downloader.active and (slot is None or slot.is_idle())
