"""Typed crawl settings and their translation to Scrapy settings.

:class:`CrawlSettings` holds what a user tunes (politeness, budgets, limits); :class:`StrategyConfig`
picks and tunes the link-ordering strategy. Both are plain frozen dataclasses so tests and
``crawl_eval`` build them directly; :func:`crawl_settings_from_mapping` and
:func:`strategy_from_mapping` read them from a Hydra/OmegaConf node or a dict.

Politeness defaults depend on where the crawl goes: with a ``proxy_url`` (the loopback test bed)
``delay_s=None`` means no delay and ``autothrottle=None`` means off; without one (the real web)
they mean a 1 s per-host delay and AutoThrottle on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

ScopeMode = Literal["host", "domain", "any"]
StrategyName = Literal["bfs", "cld2", "smart"]
ScoreMode = Literal["threshold", "ranking"]
OutsidePair = Literal["lowest", "drop"]
Backend = Literal["sqlite", "redis"]

REAL_WEB_DELAY_S = 1.0
# The Scrapy scheduler of each frontier backend (redis: shared by several crawler processes).
SCHEDULERS: dict[str, str] = {
    "sqlite": "smartcrawl.crawl.scheduler.FrontierScheduler",
    "redis": "smartcrawl.crawl.redisscheduler.DistributedScheduler",
}


@dataclass(frozen=True)
class CrawlSettings:
    """Politeness, budgets and limits of one crawl (see ``conf/crawl.yaml`` for each field's meaning)."""

    scope: ScopeMode = "domain"
    max_pages_per_site: int | None = None
    max_seconds_per_site: float | None = None
    max_pages: int | None = None
    max_seconds: float | None = None
    obey_robots: bool = True
    user_agent: str = "smartcrawl/0.1 (research crawler; +https://github.com/smartcrawl)"
    delay_s: float | None = None
    autothrottle: bool | None = None
    concurrent_requests: int = 16
    concurrent_per_host: int = 2
    timeout_s: float = 30.0
    max_bytes: int = 10 * 1024 * 1024
    retries: int = 2
    max_redirects: int = 5
    max_hops: int = 20
    max_url_length: int = 2048
    max_path_segments: int = 20
    max_segment_repeats: int = 2
    progress_interval_s: float = 10.0
    log_level: str = "INFO"
    fsync: bool = False
    backend: Backend = "sqlite"
    redis_url: str = "redis://127.0.0.1:6379/0"
    redis_prefix: str | None = None
    worker: str = "0"
    lease_s: float = 30.0
    score_in_thread: bool = True  # smart: score outlinks in a worker thread while downloads go on

    def __post_init__(self) -> None:
        if self.backend not in ("sqlite", "redis"):
            raise ValueError(f"unknown crawl backend {self.backend!r} (sqlite, redis)")
        if self.lease_s <= 0:
            raise ValueError(f"lease_s must be positive, got {self.lease_s}")

    def resolved_delay(self, proxy_url: str | None) -> float:
        """The per-host download delay: the explicit value, else 0 on the test bed and 1 s on the web."""
        if self.delay_s is not None:
            return float(self.delay_s)
        return 0.0 if proxy_url else REAL_WEB_DELAY_S

    def resolved_autothrottle(self, proxy_url: str | None) -> bool:
        """Whether AutoThrottle runs: the explicit value, else off on the test bed and on on the web."""
        if self.autothrottle is not None:
            return bool(self.autothrottle)
        return not proxy_url


@dataclass(frozen=True)
class StrategyConfig:
    """Which outlinks go first.

    - ``name``: ``bfs`` (every link the same priority: breadth-first, like default Heritrix),
      ``cld2`` (outlinks of pages whose CLD2 language is outside the pair go last) or ``smart``
      (the paper: P(lang(v) = L'') x P(parallel(u, v)) from a :class:`~smartcrawl.crawl.scoring.UrlScorer`);
    - ``mode`` (smart only): ``threshold`` (2 levels: score >= ``threshold`` first) or ``ranking``
      (101 levels: round(100 x score)), as in the authors' Heritrix cost policy;
    - ``outside_pair``: what happens to outlinks of a page outside the pair (CLD2 language not one
      of the pair, or unknown): ``lowest`` priority, or ``drop`` them (the authors' crawl configs
      rejected them, except on seed pages);
    - ``prioritize_same_domain``: links to another registered domain get the lowest priority instead
      of the best one (the authors' ``priorizeSameDomain``; only matters with ``scope=any``);
    - ``reliable_only``: a page counts as in the pair only when CLD2 says its guess is reliable;
    - ``link_hints`` (smart only; ours, not the paper's): a same-domain link the page itself labels
      as being in L'' (``hreflang``, or a language switcher's anchor such as "Suomi" or "FI"; see
      :mod:`smartcrawl.crawl.links`) gets the best score, 1, whatever the URL models say;
    - ``counterparts`` (smart only; ours): a same-domain link whose URL matches a page downloaded in
      the other language once language tokens are removed gets the best score, and so do waiting
      links when their counterpart is downloaded (:mod:`smartcrawl.crawl.counterparts`);
    - ``language_marks`` (smart, ranking mode; ours): a same-domain link's language mark (a URL code
      such as ``/sv/`` or ``page.gl.htm``, or the page's own label for the link) moves it between the
      two lowest costs: marked as a language outside the pair, it goes last (with the outlinks of
      pages outside the pair) whatever its score; marked as a language of the pair on a page outside
      the pair (a "choose your language" page), it goes with same-language navigation
      (:mod:`smartcrawl.crawl.url_marks`);
    - ``min_score`` (smart, ranking mode; ours): scores below it count as 0, so links the models all
      but rule out are crawled breadth-first rather than in the order of their small scores;
    - ``balance_languages`` (smart; ours): the links at the worst score cost (score 0, or under
      ``min_score``) are crawled in step across the pair's languages (one lane per site and
      language, taken in turn) rather than breadth-first over the whole site
      (:mod:`smartcrawl.crawl.strategies`).
    """

    name: StrategyName = "bfs"
    mode: ScoreMode = "ranking"
    threshold: float = 0.5
    outside_pair: OutsidePair = "lowest"
    prioritize_same_domain: bool = False
    reliable_only: bool = False
    link_hints: bool = False
    counterparts: bool = False
    language_marks: bool = False
    min_score: float = 0.0
    balance_languages: bool = False

    def __post_init__(self) -> None:
        if self.name not in ("bfs", "cld2", "smart"):
            raise ValueError(f"unknown strategy {self.name!r} (bfs, cld2, smart)")
        if self.mode not in ("threshold", "ranking"):
            raise ValueError(f"unknown strategy mode {self.mode!r} (threshold, ranking)")
        if self.outside_pair not in ("lowest", "drop"):
            raise ValueError(f"unknown outside_pair {self.outside_pair!r} (lowest, drop)")
        if not 0.0 <= self.min_score <= 1.0:
            raise ValueError(f"min_score must lie in [0, 1], got {self.min_score}")
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold must lie in [0, 1], got {self.threshold}")


def _from_mapping(cls: type[Any], values: Mapping[str, Any] | None) -> Any:
    if values is None:
        return cls()
    names = {f.name for f in dataclasses.fields(cls)}
    data = {str(k): v for k, v in dict(values).items()}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(f"unknown {cls.__name__} keys: {unknown} (known: {sorted(names)})")
    return cls(**data)


def crawl_settings_from_mapping(values: Mapping[str, Any] | None) -> CrawlSettings:
    """A :class:`CrawlSettings` from a dict-like node; unknown keys are an error."""
    return _from_mapping(CrawlSettings, values)


def strategy_from_mapping(values: Mapping[str, Any] | None) -> StrategyConfig:
    """A :class:`StrategyConfig` from a dict-like node; unknown keys are an error."""
    return _from_mapping(StrategyConfig, values)


def scrapy_settings(settings: CrawlSettings, proxy_url: str | None) -> dict[str, Any]:
    """The Scrapy settings of a crawl: our scheduler, pipeline and middlewares, politeness and limits.

    Redirects are followed by the spider (as outlinks of the redirecting URL, so the frontier
    de-duplicates them and loops end), not by Scrapy's redirect middleware; cookies are off.
    """
    delay = settings.resolved_delay(proxy_url)
    return {
        "BOT_NAME": "smartcrawl",
        "USER_AGENT": settings.user_agent,
        "ROBOTSTXT_OBEY": settings.obey_robots,
        "CONCURRENT_REQUESTS": settings.concurrent_requests,
        "CONCURRENT_REQUESTS_PER_DOMAIN": settings.concurrent_per_host,
        "CONCURRENT_ITEMS": 1,  # one PageRecord per response; Scrapy starts this many tasks per response
        "DOWNLOAD_DELAY": delay,
        "AUTOTHROTTLE_ENABLED": settings.resolved_autothrottle(proxy_url),
        "AUTOTHROTTLE_START_DELAY": max(delay, 1.0),
        "DOWNLOAD_TIMEOUT": settings.timeout_s,
        "DOWNLOAD_MAXSIZE": settings.max_bytes,
        "DOWNLOAD_WARNSIZE": 0,
        "RETRY_ENABLED": settings.retries > 0,
        "RETRY_TIMES": settings.retries,
        "RETRY_HTTP_CODES": [500, 502, 503, 504, 408, 429],
        "RETRY_GIVE_UP_LOG_LEVEL": "INFO",  # the crawl log records the outcome
        "REDIRECT_ENABLED": False,
        "METAREFRESH_ENABLED": False,
        "COOKIES_ENABLED": False,
        "HTTPERROR_ALLOW_ALL": True,
        "DEPTH_LIMIT": 0,
        "TELNETCONSOLE_ENABLED": False,
        "REMOTE_CONTROL_ENABLED": False,
        "LOGSTATS_INTERVAL": 0,
        "LOG_LEVEL": settings.log_level,
        "CLOSESPIDER_TIMEOUT": settings.max_seconds or 0,
        "SCHEDULER": SCHEDULERS[settings.backend],
        "ITEM_PIPELINES": {"smartcrawl.crawl.pipelines.RecordPipeline": 100},
        # Scrapy's HTTP/1.1 handler, minus reusing connections that are closing (see middlewares.py)
        "DOWNLOAD_HANDLERS": {"http": "smartcrawl.crawl.middlewares.HttpDownloadHandler",
                              "https": "smartcrawl.crawl.middlewares.HttpDownloadHandler"},
        "DOWNLOADER_MIDDLEWARES": {
            "smartcrawl.crawl.middlewares.ProxyMiddleware": 700,
            # Scrapy's robots.txt middleware lets requests that waited for a robots.txt ignore it
            "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
            "smartcrawl.crawl.robots.RobotsTxtMiddleware": 100,
        },
        "EXTENSIONS": {
            "smartcrawl.crawl.middlewares.HtmlOnlyDownloads": 500,
            "smartcrawl.crawl.progress.ProgressReporter": 510,
        },
        "SMARTCRAWL_PROXY": proxy_url,
        "SMARTCRAWL_PROGRESS_INTERVAL": settings.progress_interval_s,
    }
