"""Item pipeline: each :class:`~smartcrawl.crawl.records.PageRecord` goes to the crawl job.

The job (:meth:`~smartcrawl.crawl.job.CrawlJob.record`) commits the page's completion, its outlinks
and its log row in one transaction, then appends the page to the WARC and the row to the JSONL
crawl log, each flushed at once. The pipeline then empties the record's body and new URLs: nothing
else needs them, and Scrapy should not keep them around.
"""

from __future__ import annotations

from typing import Any

from scrapy.crawler import Crawler

from smartcrawl.crawl.records import PageRecord


class RecordPipeline:
    """Hands page records to the spider's crawl job."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RecordPipeline:
        """Scrapy's factory."""
        return cls(crawler)

    def process_item(self, item: Any) -> Any:
        """Record a :class:`PageRecord`; other items pass through untouched."""
        if not isinstance(item, PageRecord):
            return item
        spider = self.crawler.spider
        job = getattr(spider, "job", None)
        if job is None:
            raise RuntimeError("RecordPipeline needs a spider with a crawl job (FocusedSpider)")
        job.record(item)
        item.body = b""
        item.new_urls = []
        return item
