"""The focused spider: turns each response or failure into one :class:`~smartcrawl.crawl.records.PageRecord`.

For a 2xx HTML response it runs CLD2 on the visible text, extracts the outlinks, filters them (URL
rules, scope, hop limit, already fetched) and asks the strategy for their priorities, in one batch
per page; the record carries the page (for the WARC) and its prioritised outlinks (for the
frontier). Redirects are followed here, as outlinks of the redirecting URL with its priority
(``hop="R"``; at most ``max_redirects`` in a row), so the frontier de-duplicates them and loops end.
Everything else is recorded with a reason and not stored: ``http_<status>``, ``not_html`` (body
not downloaded), ``binary`` (a binary body served as HTML), ``robots``, ``timeout``, ``size_cap``,
``dns``, ``connection_refused``, ``tunnel_error``, ``connection_lost``, ``too_many_redirects``... An
unexpected error while handling a page is recorded as ``spider_error:<Exception>``: the crawl goes on.

With ``score_in_thread`` (the default for ``smart``) the strategy scores a page's outlinks in one
worker thread shared by every spider of the process, so downloads and parsing go on while the
models run (both onnxruntime and torch release the GIL); one thread keeps the strategy's caches and
the scorer single-threaded. Scores then arrive a little later than in a synchronous crawl, so the
crawl order can differ slightly between runs.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http import HTTPStatus
from types import MappingProxyType
from typing import Any
from urllib.parse import urljoin

from scrapy import Request, Spider
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse, Response
from twisted.python.failure import Failure

from smartcrawl.crawl.content_lang import ContentLanguage, detect_language, visible_text
from smartcrawl.crawl.frontier import FrontierEntry, NewUrl
from smartcrawl.crawl.htmldoc import looks_binary, parse_html
from smartcrawl.crawl.job import CrawlJob
from smartcrawl.crawl.links import extract_links
from smartcrawl.crawl.middlewares import is_html_type
from smartcrawl.crawl.records import PageRecord
from smartcrawl.crawl.scheduler import META_KEY
from smartcrawl.crawl.scope import Scope, UrlFilter
from smartcrawl.crawl.strategies import LinkPriority, ParentPage, Ranking, Strategy
from smartcrawl.urls import BadURL

log = logging.getLogger(__name__)

# Failure class name -> (reason, whether a request reached the server).
_FAILURES: Mapping[str, tuple[str, bool]] = MappingProxyType({
    "DownloadTimeoutError": ("timeout", True),
    "TimeoutError": ("timeout", True),
    "TCPTimedOutError": ("timeout", True),
    "CannotResolveHostError": ("dns", False),
    "DNSLookupError": ("dns", False),
    "DownloadConnectionRefusedError": ("connection_refused", False),
    "ConnectionRefusedError": ("connection_refused", False),
    "TunnelError": ("tunnel_error", True),
    "ResponseDataLossError": ("data_loss", True),
    "ConnectionLost": ("connection_lost", True),
    "ConnectionDone": ("connection_lost", True),
    "ResponseFailed": ("connection_lost", True),
    "DownloadFailedError": ("connection_lost", True),
    "ResponseNeverReceived": ("connection_lost", True),
})


def failure_reason(failure: Failure) -> tuple[str, bool]:
    """``(reason, fetched)`` of a failed request (``fetched``: a request reached the server)."""
    exc = failure.value
    message = str(exc).lower()
    if isinstance(exc, IgnoreRequest):
        if "download_maxsize" in message:  # a compressed body that grows past the cap while decoded
            return "size_cap", True
        return ("robots" if "robots" in message else "ignored"), False
    name = type(exc).__name__
    if name == "DownloadCancelledError":
        return ("size_cap" if "max size" in message else "cancelled"), True
    return _FAILURES.get(name, (f"error:{name}", True))


_POOL_LOCK = threading.Lock()
_POOL: ThreadPoolExecutor | None = None


def scoring_pool() -> ThreadPoolExecutor:
    """The process's one scoring thread (shared by all spiders, so strategies and scorers never run concurrently)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="smartcrawl-scoring")
        return _POOL


def _asyncio_loop() -> asyncio.AbstractEventLoop | None:
    """The running asyncio loop under Scrapy's asyncio reactor; ``None`` under another reactor."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


@dataclass
class _Outlinks:
    """A page's links that passed the filters, waiting for the strategy's priorities."""

    parent: ParentPage
    urls: list[str]
    depth: int
    hints: dict[str, str]  # url -> language the page declares for it (links.language_hint)


def _status_line(status: int) -> str:
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


class FocusedSpider(Spider):
    """Crawls the seeds' sites in the order the strategy gives (module docstring)."""

    name = "smartcrawl"

    def __init__(
        self,
        job: CrawlJob,
        strategy: Strategy,
        scope: Scope,
        url_filter: UrlFilter,
        seeds: Sequence[str],
        max_hops: int = 20,
        max_redirects: int = 5,
        score_in_thread: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.job = job
        self.strategy = strategy
        self.scope = scope
        self.url_filter = url_filter
        self.seeds = list(seeds)
        self.max_hops = max_hops
        self.max_redirects = max_redirects
        self.score_in_thread = score_in_thread

    async def start(self) -> AsyncIterator[Any]:
        """The seeds (already-seen ones are dropped by the frontier, so a resumed job does not refetch them)."""
        for seed in self.seeds:
            reason = self.url_filter.reject_reason(seed)
            if reason is not None:
                log.warning("seed %s not crawled: %s", seed, reason)
                continue
            yield Request(seed, priority=self.strategy.seed_priority(), meta={META_KEY: {"hop": "S", "depth": 0}},
                          callback=self.parse, errback=self.on_error)

    # -- frontier entries <-> requests --------------------------------------------------------
    def request_for(self, entry: FrontierEntry) -> Request | None:
        """The request of a frontier entry; ``None`` (and the entry recorded as ``bad_url``) if it cannot be built."""
        info = {"id": entry.id, "site": entry.site, "depth": entry.depth, "hop": entry.hop, "parent": entry.parent,
                "priority": entry.priority, "score": entry.score, "redirects": entry.redirects}
        try:
            return Request(entry.url, callback=self.parse, errback=self.on_error, priority=entry.priority,
                           meta={META_KEY: info, "retry_times": entry.retries}, dont_filter=True,
                           headers={"Referer": entry.parent} if entry.parent else None)
        except (ValueError, TypeError) as exc:
            log.info("bad URL in the frontier, skipped: %s (%s)", entry.url, exc)
            self.job.record(self._record(info, entry.url, fetched=False, reason="bad_url", retries=entry.retries))
            return None

    def _record(self, info: dict[str, Any], url: str, **fields: Any) -> PageRecord:
        values: dict[str, Any] = {
            "queue_id": int(info["id"]), "url": url, "site": str(info["site"]), "time": time.time(),
            "status": None, "fetched": False, "stored": False, "bytes": 0, "content_type": "", "lang": "",
            "lang_reliable": False, "priority": int(info["priority"]), "score": info.get("score"),
            "parent": info.get("parent"), "depth": int(info["depth"]), "hop": str(info["hop"]), "reason": "",
        }
        values.update(fields)
        return PageRecord(**values)

    # -- callbacks ------------------------------------------------------------------------------
    async def parse(self, response: Response, **kwargs: Any) -> AsyncIterator[PageRecord]:
        """One record per response (module docstring)."""
        info = response.meta[META_KEY]
        try:
            record, outlinks, skipped = self._response_record(response, info)
            if outlinks is not None:
                ranking = await self._rank(outlinks)
                record.new_urls = self._new_urls(outlinks, ranking, response.url, skipped)
            record.skipped = dict(skipped)
        except Exception as exc:
            log.exception("error handling %s", response.url)
            record = self._record(info, response.url, status=response.status, fetched=True,
                                  bytes=len(response.body), reason=f"spider_error:{type(exc).__name__}",
                                  retries=int(response.meta.get("retry_times", 0)))
        yield record

    def on_error(self, failure: Failure) -> Iterator[PageRecord]:
        """One record per failed request (robots.txt refusal, timeout, size cap, network error...)."""
        request: Request = failure.request  # type: ignore[attr-defined]
        info = request.meta.get(META_KEY)
        if not info or info.get("id") is None:
            return
        reason, fetched = failure_reason(failure)
        if reason.startswith("error:"):
            log.info("%s failed: %s", request.url, failure.getErrorMessage())
        yield self._record(info, request.url, fetched=fetched, reason=reason,
                           retries=int(request.meta.get("retry_times", 0)))

    def _response_record(self, response: Response,
                         info: dict[str, Any]) -> tuple[PageRecord, _Outlinks | None, Counter[str]]:
        """The page's record, its outlinks waiting for priorities (stored HTML pages only) and the skip counts."""
        status = response.status
        raw_type = response.headers.get(b"Content-Type")
        content_type = raw_type.decode("latin-1") if raw_type else ""
        rec = self._record(info, response.url, status=status, fetched=True, bytes=len(response.body),
                           content_type=content_type, retries=int(response.meta.get("retry_times", 0)))
        skipped: Counter[str] = Counter()
        outlinks: _Outlinks | None = None
        if 300 <= status < 400:
            self._follow_redirect(rec, response, info, skipped)
        elif not 200 <= status < 300:
            rec.reason = f"http_{status}"
        elif "download_stopped" in response.flags or not isinstance(response, HtmlResponse) or \
                (content_type and not is_html_type(content_type)):
            rec.reason = "not_html"
        elif looks_binary(response.body):
            rec.reason = "binary"
        else:
            root = parse_html(response.text)
            lang = detect_language(visible_text(root))
            rec.lang, rec.lang_reliable = lang.lang, lang.reliable
            rec.stored = True
            rec.body = response.body
            rec.http_status_line = _status_line(status)
            rec.http_headers = [(k.decode("latin-1"), v.decode("latin-1"))
                                for k, values in response.headers.items() for v in values]
            links = extract_links(root, response.url)
            skipped.update(links.skipped)
            outlinks = self._outlinks(info, response.url, lang, links.urls, skipped, links.hints)
        return rec, outlinks, skipped

    def _follow_redirect(self, rec: PageRecord, response: Response, info: dict[str, Any],
                         skipped: Counter[str]) -> None:
        location = response.headers.get(b"Location")
        if not location:
            rec.reason = "redirect_without_location"
            return
        try:
            target = urljoin(response.url, location.decode("latin-1").strip())
        except ValueError:
            rec.reason = "bad_redirect"
            return
        rec.location = target
        redirects = int(info.get("redirects", 0)) + 1
        if redirects > self.max_redirects:
            rec.reason = "too_many_redirects"
            return
        rec.reason = "redirect"
        reason = self._reject_reason(target)
        if reason is not None:
            skipped[reason] += 1
            return
        rec.new_urls = [NewUrl(url=target, site=self.scope.site_of(target), priority=int(info["priority"]),
                               depth=int(info["depth"]), hop="R", parent=rec.url, score=info.get("score"),
                               redirects=redirects)]

    def _reject_reason(self, url: str) -> str | None:
        reason = self.url_filter.reject_reason(url)
        if reason is None and not self.scope.allows(url):
            reason = "out_of_scope"
        return reason

    def _outlinks(self, info: dict[str, Any], page_url: str, lang: ContentLanguage, urls: list[str],
                  skipped: Counter[str], hints: dict[str, str]) -> _Outlinks | None:
        """The links worth a priority: within the hop limit, passing the URL rules and scope, not yet fetched."""
        parent = ParentPage(page_url, lang.lang, lang.reliable, is_seed=int(info["depth"]) == 0)
        depth = int(info["depth"]) + 1
        # A strategy that learns from every download (counterparts) sees pages without new links too.
        nothing = _Outlinks(parent, [], depth, {}) if self.strategy.sees_every_page else None
        if not urls:
            return nothing
        if depth > self.max_hops:
            skipped["max_hops"] += len(urls)
            return nothing
        keep: list[str] = []
        for url in urls:
            reason = self._reject_reason(url)
            if reason is None:
                keep.append(url)
            else:
                skipped[reason] += 1
        fresh = [u for u, still_open in zip(keep, self.job.still_open(keep)) if still_open]
        skipped["already_fetched"] += len(keep) - len(fresh)
        if not fresh:
            return nothing
        return _Outlinks(parent, fresh, depth, {u: hints[u] for u in fresh if u in hints})

    async def _rank(self, outlinks: _Outlinks) -> Ranking:
        """The strategy's ranking of ``outlinks``: in the scoring thread, or here without it."""
        loop = _asyncio_loop() if self.score_in_thread else None
        if loop is None:
            return self.strategy.rank(outlinks.parent, outlinks.urls, outlinks.hints)
        return await loop.run_in_executor(scoring_pool(), self.strategy.rank,
                                          outlinks.parent, outlinks.urls, outlinks.hints)

    def _new_urls(self, outlinks: _Outlinks, ranking: Ranking, page_url: str,
                  skipped: Counter[str]) -> list[NewUrl]:
        out: list[NewUrl] = []
        links: list[tuple[str, LinkPriority | None]] = [*zip(outlinks.urls, ranking.priorities), *ranking.again]
        for url, prio in links:
            if prio is None:
                skipped["strategy_drop"] += 1
                continue
            try:
                site = self.scope.site_of(url)
            except BadURL:
                skipped["bad_url"] += 1
                continue
            out.append(NewUrl(url=url, site=site, priority=prio.priority, depth=outlinks.depth, hop="L",
                              parent=page_url, score=prio.score, seq=prio.seq))
        return out
