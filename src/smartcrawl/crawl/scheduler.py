"""Scrapy scheduler over the job's persistent frontier (``SCHEDULER = "smartcrawl.crawl.scheduler.FrontierScheduler"``).

Scrapy's own disk queues (``JOBDIR``) write their metadata at close, so a ``kill -9`` loses them;
this scheduler keeps every queued URL in the job's SQLite state instead
(:class:`~smartcrawl.crawl.job.CrawlJob`), committed once per finished page.

What it receives from the engine (:meth:`FrontierScheduler.enqueue_request`): seeds from
``Spider.start()`` (queued through the seen-set like any URL) and retries from Scrapy's retry
middleware (the same frontier entry goes back to the queue). Outlinks do not come this way: the
spider hands them over inside its :class:`~smartcrawl.crawl.records.PageRecord`, so that a page's
completion and its outlinks are committed in one transaction. :meth:`FrontierScheduler.next_request`
pops the best entry whose site is within budget and lets the spider turn it into a request;
politeness (per-host delay and concurrency) stays with Scrapy's downloader slots.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy import Request, Spider
from scrapy.core.scheduler import BaseScheduler
from scrapy.crawler import Crawler

from smartcrawl.crawl.frontier import NewUrl
from smartcrawl.urls import BadURL

if TYPE_CHECKING:
    from smartcrawl.crawl.job import CrawlJob
    from smartcrawl.crawl.spider import FocusedSpider

log = logging.getLogger(__name__)

META_KEY = "smartcrawl"


class FrontierScheduler(BaseScheduler):
    """Feeds the engine from the job's frontier (module docstring)."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.spider: FocusedSpider | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> FrontierScheduler:
        """Scrapy's factory."""
        return cls(crawler)

    @property
    def job(self) -> CrawlJob:
        """The open crawl job of the spider."""
        if self.spider is None:
            raise RuntimeError("scheduler not open")
        return self.spider.job

    def open(self, spider: Spider) -> None:
        """Attach to the spider's crawl job (opened by the runner before the crawl starts)."""
        from smartcrawl.crawl.spider import FocusedSpider

        if not isinstance(spider, FocusedSpider):
            raise TypeError(f"FrontierScheduler needs a FocusedSpider, got {type(spider).__name__}")
        if not spider.job.is_open:
            raise RuntimeError("the spider's crawl job must be opened before the crawl starts")
        self.spider = spider
        spider.job.mark_started()

    def close(self, reason: str) -> None:
        """Nothing to flush: the job commits per page and the runner closes it."""

    def has_pending_requests(self) -> bool:
        """Whether URLs wait in the frontier (sites whose budget is spent do not count)."""
        return self.job.has_pending()

    def enqueue_request(self, request: Request) -> bool:
        """Queue a seed or a new request, or put a retried request's entry back in the queue."""
        info = request.meta.get(META_KEY) or {}
        stats = self.crawler.stats
        if info.get("id") is not None:
            self.job.requeue(int(info["id"]), str(info["site"]), request.priority,
                             int(request.meta.get("retry_times", 0)))
            if stats is not None:
                stats.inc_value("scheduler/requeued")
            return True
        assert self.spider is not None
        try:
            site = self.spider.scope.site_of(request.url)
        except BadURL:
            log.warning("not queued, no usable host: %s", request.url)
            return False
        item = NewUrl(url=request.url, site=site, priority=request.priority, depth=int(info.get("depth", 0)),
                      hop=str(info.get("hop", "S")), parent=info.get("parent"), score=info.get("score"))
        queued = self.job.admit(item)
        if queued and stats is not None:
            stats.inc_value("scheduler/enqueued")
        return queued

    def next_request(self) -> Request | None:
        """The next request within budget, or ``None``."""
        assert self.spider is not None
        while True:
            entry = self.job.next_entry()
            if entry is None:
                return None
            request = self.spider.request_for(entry)
            if request is not None:
                if self.crawler.stats is not None:
                    self.crawler.stats.inc_value("scheduler/dequeued")
                return request

    def __len__(self) -> int:
        return self.job.queued()
