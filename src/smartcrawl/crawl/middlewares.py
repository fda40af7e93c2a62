"""Small Scrapy components: every request through the proxy, only HTML bodies downloaded, no closing
connections reused.

- :class:`ProxyMiddleware` (downloader middleware, before Scrapy's ``HttpProxyMiddleware``) sets
  ``request.meta["proxy"]`` on *every* request, robots.txt included (Scrapy's robots.txt requests
  do not copy the page request's meta). With the loopback test bed as proxy, no request of the
  crawl resolves a host name or leaves the machine: hosts outside the test bed get 502 (https
  tunnels included).
- :class:`HtmlOnlyDownloads` (extension) stops the body download of a frontier request whose
  ``Content-Type`` is present and not HTML (``StopDownload(fail=False)``): the spider still sees
  the response head and logs it as ``not_html``. robots.txt requests are left alone.
- :class:`HttpDownloadHandler` (Scrapy's HTTP/1.1 download handler, for ``http`` and ``https``) keeps
  connections that are already closing out of the connection pool. Scrapy answers ``StopDownload``
  with ``loseConnection()`` on the response's connection while Twisted is still parsing the data
  already read; when the whole (small) body was in that read, the response ends cleanly and Twisted
  hands the closing connection back to the pool. A request that takes it before it closes is written,
  then the connection closes under it, and Twisted's pool resends the GET on a fresh connection
  (``_RetryingHTTP11ClientProtocol``): the server sees the page requested twice, and Scrapy's retry
  count does not show it.
"""

from __future__ import annotations

from typing import Any

from scrapy import Request, signals
from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.crawler import Crawler
from scrapy.exceptions import StopDownload
from scrapy.http import Headers
from twisted.web.client import HTTPConnectionPool

from smartcrawl.crawl.scheduler import META_KEY

HTML_TYPES: tuple[str, ...] = ("text/html", "application/xhtml+xml")


def is_html_type(content_type: str) -> bool:
    """Whether a ``Content-Type`` value names HTML (parameters ignored)."""
    return content_type.split(";", 1)[0].strip().lower() in HTML_TYPES


class ProxyMiddleware:
    """Route every request through ``SMARTCRAWL_PROXY`` when it is set."""

    def __init__(self, proxy_url: str | None) -> None:
        self.proxy_url = proxy_url

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ProxyMiddleware:
        """Scrapy's factory: reads ``SMARTCRAWL_PROXY``."""
        return cls(crawler.settings.get("SMARTCRAWL_PROXY"))

    def process_request(self, request: Request) -> None:
        """Set ``meta["proxy"]`` unless the request names its own."""
        if self.proxy_url and "proxy" not in request.meta:
            request.meta["proxy"] = self.proxy_url


class HtmlOnlyDownloads:
    """Stop downloading bodies that are not HTML (module docstring)."""

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> HtmlOnlyDownloads:
        """Scrapy's factory: connects to ``headers_received``."""
        ext = cls()
        crawler.signals.connect(ext.headers_received, signal=signals.headers_received)
        return ext

    def headers_received(self, headers: Headers, body_length: int, request: Request) -> None:
        """Raise ``StopDownload(fail=False)`` for a frontier request whose content type is not HTML."""
        if META_KEY not in request.meta:
            return
        raw = headers.get(b"Content-Type")
        if raw is None:
            return
        content_type = raw.decode("latin-1")
        if content_type.strip() and not is_html_type(content_type):
            raise StopDownload(fail=False)


class _OpenConnectionsPool(HTTPConnectionPool):
    """Twisted's connection pool, refusing connections that are closing or aborted (module docstring)."""

    def _putConnection(self, key: Any, connection: Any) -> None:
        transport = connection.transport
        if transport is None or transport.disconnecting or getattr(transport, "_aborting", False):
            return  # it closes by itself; a request sent on it would be resent by the pool
        super()._putConnection(key, connection)


class HttpDownloadHandler(HTTP11DownloadHandler):
    """Scrapy's HTTP/1.1 handler with a pool that never reuses a closing connection (module docstring)."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        from twisted.internet import reactor  # as Scrapy does: the crawler's reactor is installed by now

        pool = _OpenConnectionsPool(reactor, persistent=True)
        pool.maxPersistentPerHost = self._pool.maxPersistentPerHost
        pool._factory = self._pool._factory
        self._pool = pool
