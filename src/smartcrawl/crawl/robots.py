"""robots.txt for every waiting request: Scrapy's ``RobotsTxtMiddleware`` with its waiter bug fixed.

In Scrapy 2.13-2.19 (asyncio reactor) the requests that arrive for a host while its robots.txt is
still being downloaded all await the same ``Deferred`` through ``maybe_deferred_to_future``; the
first waiter's adapter callback returns ``None``, so every later waiter receives ``None`` ("no
robots.txt") and is fetched even when robots.txt forbids it (``Deferred.asFuture`` does not pass
the result on; scrapy/scrapy#6802 dropped the relay that did). A single crawler process seldom
has several requests waiting for one host's robots.txt; a resumed job or a worker joining a
distributed crawl (:mod:`~smartcrawl.crawl.redisjob`) starts with many at once.
:class:`RobotsTxtMiddleware` gives each waiter its own ``Deferred``, fed by a callback that passes
the result on.
"""

from __future__ import annotations

from scrapy import Request
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as ScrapyRobotsTxtMiddleware
from scrapy.robotstxt import RobotParser
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.defer import Deferred

SCRAPY_ROBOTSTXT = "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"
ROBOTSTXT = "smartcrawl.crawl.robots.RobotsTxtMiddleware"


class RobotsTxtMiddleware(ScrapyRobotsTxtMiddleware):
    """Scrapy's robots.txt middleware; requests waiting for a robots.txt all get its rules (module docstring)."""

    async def robot_parser(self, request: Request) -> RobotParser | None:
        """The parsed robots.txt of the request's host (``None``: none could be had, everything allowed)."""
        pending = self._parsers.get(urlparse_cached(request).netloc)
        if isinstance(pending, Deferred):
            waiter: Deferred[RobotParser | None] = Deferred()

            def relay(result: RobotParser | None) -> RobotParser | None:
                waiter.callback(result)
                return result

            pending.addCallback(relay)
            return await maybe_deferred_to_future(waiter)
        return await super().robot_parser(request)
