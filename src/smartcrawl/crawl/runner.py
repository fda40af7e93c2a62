"""Run crawls in this process: :func:`run_crawl` for one job, :func:`run_crawls` for several in one reactor.

Each crawl is a job directory (:mod:`smartcrawl.crawl.job`): start one again with the same
``job_dir`` and it resumes where it stopped. Typical per-site use (what ``crawl_eval`` does)::

    from smartcrawl.crawl.config import CrawlSettings, StrategyConfig
    from smartcrawl.crawl.runner import CrawlSpec, run_crawls

    specs = [CrawlSpec(job_dir=f"runs/crawl/smart/{site}", seeds=[seed], pair=("eng", "mlt"),
                       strategy=StrategyConfig(name="smart"), settings=CrawlSettings(max_pages_per_site=500),
                       scorer=scorer, proxy_url=server.proxy_url) for site, seed in sites]
    summaries = run_crawls(specs, max_parallel=4)

Twisted's reactor runs once per process: call :func:`run_crawl` / :func:`run_crawls` once per
process (put every crawl of the process in one :func:`run_crawls` call), or use the command line
(``python -m smartcrawl.crawl.cli``) in a subprocess. The first Ctrl-C stops the crawls gracefully
(in-flight requests are dropped and fetched again on resume); a second one stops at once; both
leave resumable job dirs, as does ``kill -9``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from smartcrawl.crawl.config import CrawlSettings, StrategyConfig, scrapy_settings
from smartcrawl.crawl.job import JOB_FILE, CrawlJob
from smartcrawl.crawl.scope import Scope, UrlFilter
from smartcrawl.crawl.scoring import RuleScorer, UrlScorer
from smartcrawl.crawl.strategies import build_strategy
from smartcrawl.crawl.summary import CrawlSummary
from smartcrawl.urls import BadURL

log = logging.getLogger(__name__)


@dataclass
class CrawlSpec:
    """Everything one crawl needs.

    ``seeds`` may be empty when ``job_dir`` already holds a job (its seeds are reused);
    ``scorer`` is used by the smart strategy (a :class:`~smartcrawl.crawl.scoring.RuleScorer` of the
    pair when ``None``); ``proxy_url`` routes every request through an HTTP proxy (the test bed's
    :attr:`~smartcrawl.web.server.ServerHandle.proxy_url`).
    """

    job_dir: str | Path
    seeds: Sequence[str]
    pair: tuple[str, str]
    strategy: StrategyConfig = field(default_factory=StrategyConfig)
    settings: CrawlSettings = field(default_factory=CrawlSettings)
    scorer: UrlScorer | None = None
    proxy_url: str | None = None


def job_seeds(job_dir: str | Path, seeds: Sequence[str]) -> list[str]:
    """``seeds``, or the seeds recorded in an existing job dir when ``seeds`` is empty."""
    if seeds:
        return [str(s).strip() for s in seeds if str(s).strip()]
    path = Path(job_dir) / JOB_FILE
    if path.exists():
        return list(json.loads(path.read_text()).get("seeds", []))
    return []


def prepare(spec: CrawlSpec) -> tuple[CrawlJob, dict[str, Any], dict[str, Any]]:
    """Open the spec's job (repairing a stopped run) and build the spider arguments and Scrapy settings."""
    s = spec.settings
    job_cls: type[CrawlJob] = CrawlJob
    if s.backend == "redis":  # a worker of a distributed crawl (smartcrawl.crawl.redisjob)
        from smartcrawl.crawl.redisjob import RedisCrawlJob, redis_seeds

        job_cls = RedisCrawlJob
        seeds = redis_seeds(spec.job_dir, s, spec.seeds)
    else:
        seeds = job_seeds(spec.job_dir, spec.seeds)
    if not seeds:
        raise ValueError(f"no seeds for {spec.job_dir} (give seeds, or resume a job dir that has them)")
    pair = (str(spec.pair[0]), str(spec.pair[1]))
    try:
        scope = Scope(seeds, spec.settings.scope)
    except BadURL as exc:
        raise ValueError(f"bad seed URL: {exc}") from exc
    scorer = spec.scorer
    if spec.strategy.name == "smart" and scorer is None:
        scorer = RuleScorer(pair)
    strategy = build_strategy(spec.strategy, pair, scorer)
    url_filter = UrlFilter(s.max_url_length, s.max_path_segments, s.max_segment_repeats)
    identity = {"pair": list(pair), "strategy": dataclasses.asdict(spec.strategy), "scope": s.scope,
                "seeds": seeds}
    job = job_cls(spec.job_dir, identity, s)
    job.open()
    spider_kwargs = {"job": job, "strategy": strategy, "scope": scope, "url_filter": url_filter, "seeds": seeds,
                     "max_hops": s.max_hops, "max_redirects": s.max_redirects,
                     "score_in_thread": s.score_in_thread and spec.strategy.name == "smart"}
    return job, spider_kwargs, scrapy_settings(s, spec.proxy_url)


def run_crawls(specs: Sequence[CrawlSpec], max_parallel: int = 1,
               install_signal_handlers: bool = True) -> list[CrawlSummary]:
    """Run several crawls in one Twisted reactor, ``max_parallel`` at a time; one summary per spec.

    Blocks until every crawl ended (or Ctrl-C). Crawls not started because of a shutdown, and
    crawls cut by a forced stop, still get a summary (``finish_reason`` ``not_started`` / ``killed``).
    """
    from scrapy.crawler import Crawler, CrawlerProcess
    from twisted.internet import defer
    from twisted.internet.error import ReactorNotRestartable
    from twisted.python.failure import Failure

    from smartcrawl.crawl.spider import FocusedSpider

    if not specs:
        return []
    if max_parallel < 1:
        raise ValueError("max_parallel must be >= 1")
    prepared: list[tuple[CrawlJob, dict[str, Any], dict[str, Any]]] = []
    try:
        for spec in specs:
            prepared.append(prepare(spec))
    except BaseException:
        for job, _, _ in prepared:
            job.close("not_started")
        raise
    summaries: list[CrawlSummary | None] = [None] * len(specs)
    process = CrawlerProcess(prepared[0][2])
    sem = defer.DeferredSemaphore(max_parallel)
    shutdown = {"requested": False}

    def finish(result: Any, index: int, crawler: Crawler) -> None:
        job = prepared[index][0]
        if isinstance(result, Failure):
            log.error("crawl of %s failed: %s", job.job_dir, result.getTraceback())
        reason = str(crawler.stats.get_value("finish_reason") or "finished") if crawler.stats else "finished"
        if reason == "shutdown":
            shutdown["requested"] = True
        summaries[index] = job.close(reason)

    def start(index: int) -> defer.Deferred[Any]:
        if shutdown["requested"]:
            return defer.succeed(None)
        _, kwargs, settings = prepared[index]
        crawler = Crawler(FocusedSpider, settings, init_reactor=index == 0)
        d = process.crawl(crawler, **kwargs)
        d.addBoth(finish, index, crawler)
        return d

    runs = [sem.run(start, i) for i in range(len(specs))]
    from twisted.internet import reactor as installed  # installed by the first crawler above

    reactor = cast(Any, installed)

    def stop_reactor(_: Any) -> None:
        if reactor.running:
            with contextlib.suppress(RuntimeError):
                reactor.stop()

    defer.DeferredList(runs, consumeErrors=True).addBoth(stop_reactor)
    try:
        process.start(stop_after_crawl=False, install_signal_handlers=install_signal_handlers)
    except ReactorNotRestartable as exc:
        for job, _, _ in prepared:
            if job.is_open:
                job.close("not_started")
        raise RuntimeError(
            "the Twisted reactor already ran in this process: run every crawl of a process in one run_crawls()"
            " call, or use `python -m smartcrawl.crawl.cli` in a subprocess") from exc
    for i, (job, _, _) in enumerate(prepared):
        if job.is_open:
            summaries[i] = job.close("killed" if job.stats.downloads_run else "not_started")
    return [s for s in summaries if s is not None]


def run_crawl(
    job_dir: str | Path,
    seeds: Sequence[str],
    pair: tuple[str, str],
    strategy: StrategyConfig | None = None,
    settings: CrawlSettings | None = None,
    scorer: UrlScorer | None = None,
    proxy_url: str | None = None,
) -> CrawlSummary:
    """Crawl ``seeds`` for the language ``pair`` into ``job_dir`` (resuming it if it exists); blocks until done.

    See :class:`CrawlSpec` for the arguments and the module docstring for the one-reactor rule.
    """
    spec = CrawlSpec(job_dir=job_dir, seeds=seeds, pair=pair, strategy=strategy or StrategyConfig(),
                     settings=settings or CrawlSettings(), scorer=scorer, proxy_url=proxy_url)
    return run_crawls([spec])[0]
