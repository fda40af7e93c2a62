"""Two small Scrapy components: every request through the proxy, and only HTML bodies downloaded.

- :class:`ProxyMiddleware` (downloader middleware, before Scrapy's ``HttpProxyMiddleware``) sets
  ``request.meta["proxy"]`` on *every* request, robots.txt included (Scrapy's robots.txt requests
  do not copy the page request's meta). With the loopback test bed as proxy, no request of the
  crawl resolves a host name or leaves the machine: hosts outside the test bed get 502 (https
  tunnels included).
- :class:`HtmlOnlyDownloads` (extension) stops the body download of a frontier request whose
  ``Content-Type`` is present and not HTML (``StopDownload(fail=False)``): the spider still sees
  the response head and logs it as ``not_html``. robots.txt requests are left alone.
"""

from __future__ import annotations

from scrapy import Request, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import StopDownload
from scrapy.http import Headers

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
