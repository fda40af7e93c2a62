"""robots.txt reaches every request that waited for it (:mod:`smartcrawl.crawl.robots`).

Scrapy 2.19's own middleware hands the parsed robots.txt to the first waiting request only; the
others get ``None`` and ignore robots.txt. Several requests wait for one host's robots.txt when a
resumed job or a distributed-crawl worker starts with many queued URLs of a host.
"""

from __future__ import annotations

import asyncio

from scrapy import Request
from scrapy.robotstxt import ProtegoRobotParser
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler
from twisted.internet.defer import Deferred

from smartcrawl.crawl.config import CrawlSettings, scrapy_settings
from smartcrawl.crawl.robots import ROBOTSTXT, SCRAPY_ROBOTSTXT, RobotsTxtMiddleware


def test_every_waiting_request_gets_the_rules() -> None:
    crawler = get_crawler(settings_dict={"ROBOTSTXT_OBEY": True})
    mw = RobotsTxtMiddleware.from_crawler(crawler)
    rp = build_from_crawler(ProtegoRobotParser, crawler, b"User-agent: *\nDisallow: /private/\n")
    urls = ["http://www.a.test/", "http://www.a.test/private/x", "http://www.a.test/private/y"]

    async def wait_all() -> list[object]:
        pending: Deferred[object] = Deferred()
        mw._parsers["www.a.test"] = pending  # robots.txt of www.a.test is being downloaded
        waiting = [asyncio.ensure_future(mw.robot_parser(Request(u))) for u in urls]
        await asyncio.sleep(0)
        mw._parsers["www.a.test"] = rp  # as the middleware does once it is parsed
        pending.callback(rp)
        return list(await asyncio.gather(*waiting))

    assert asyncio.run(wait_all()) == [rp, rp, rp]
    assert [rp.allowed(u, "smartcrawl") for u in urls] == [True, False, False]


def test_the_crawler_uses_it() -> None:
    middlewares = scrapy_settings(CrawlSettings(), None)["DOWNLOADER_MIDDLEWARES"]
    assert middlewares[SCRAPY_ROBOTSTXT] is None and middlewares[ROBOTSTXT] == 100
