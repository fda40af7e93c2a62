"""Run the per-site crawl jobs of one strategy in a child process, timed, skipping finished jobs.

Twisted's reactor runs once per process, so each strategy's crawls run in a fresh child process
(``spawn``) with one :func:`~smartcrawl.crawl.runner.run_crawls` call; strategies run one after the
other, so their speeds do not disturb each other. The child builds the URL scorer itself (from a
picklable factory) and wraps it in a :class:`TimedScorer`; when the crawls end it appends one line
to ``<strategy dir>/timing.jsonl``::

    {"started": unix time, "jobs": n, "fetched": pages fetched in this run, "wall_s": seconds of the
     run_crawls call, "scoring_s": seconds inside the scorer, "scorer_calls": n, "scored_urls": n}

A job whose run ended with ``finish_reason == "finished"`` (frontier exhausted or budget spent) gets
a ``crawl_eval.done.json`` marker holding its settings; :func:`job_done` skips such a job on the next
run unless the settings changed (then the job resumes where it stopped, e.g. with a larger budget).
"""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from smartcrawl.crawl.config import CrawlSettings
from smartcrawl.crawl.runner import CrawlSpec
from smartcrawl.crawl.scoring import UrlScorer
from smartcrawl.crawl.summary import CrawlSummary

DONE_FILE = "crawl_eval.done.json"
TIMING_FILE = "timing.jsonl"
# CrawlSettings fields that do not change what a crawl fetches (ignored when deciding whether a job is done).
_COSMETIC = ("progress_interval_s", "log_level", "fsync")


class TimedScorer:
    """A :class:`~smartcrawl.crawl.scoring.UrlScorer` that counts the time spent in another scorer."""

    def __init__(self, scorer: UrlScorer) -> None:
        self.scorer = scorer
        self.seconds = 0.0
        self.calls = 0
        self.urls = 0

    def _timed(self, fn: Callable[[], np.ndarray], n: int) -> np.ndarray:
        start = time.perf_counter()
        try:
            return fn()
        finally:
            self.seconds += time.perf_counter() - start
            self.calls += 1
            self.urls += n

    def lang_probs(self, urls: Sequence[str], lang: str) -> np.ndarray:
        """The wrapped scorer's ``lang_probs``, timed."""
        return self._timed(lambda: self.scorer.lang_probs(urls, lang), len(urls))

    def parallel_probs(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """The wrapped scorer's ``parallel_probs``, timed."""
        return self._timed(lambda: self.scorer.parallel_probs(pairs), len(pairs))


def _settings_key(settings: CrawlSettings) -> dict[str, Any]:
    data = dataclasses.asdict(settings)
    for name in _COSMETIC:
        data.pop(name, None)
    return data


def job_done(job_dir: str | Path, settings: CrawlSettings) -> bool:
    """Whether ``job_dir`` finished with these settings (module docstring)."""
    path = Path(job_dir) / DONE_FILE
    if not path.is_file():
        return False
    try:
        return json.loads(path.read_text()).get("settings") == _settings_key(settings)
    except ValueError:
        return False


def mark_done(summary: CrawlSummary, settings: CrawlSettings) -> bool:
    """Write the done marker of a job whose run finished; ``True`` when written."""
    if summary.finish_reason != "finished":
        return False
    data = {"settings": _settings_key(settings), "finish_reason": summary.finish_reason,
            "fetched_total": summary.fetched_total, "frontier_queued": summary.frontier_queued,
            "frontier_parked": summary.frontier_parked}
    (Path(summary.job_dir) / DONE_FILE).write_text(json.dumps(data, indent=1, sort_keys=True))
    return True


@dataclass
class StrategyRun:
    """The crawl jobs of one strategy (specs without scorer) and how to run them."""

    label: str
    specs: list[CrawlSpec]
    strategy_dir: Path
    scorer_factory: Callable[[], UrlScorer] | None = None
    max_parallel: int = 4


def run_strategy(run: StrategyRun) -> dict[str, Any]:
    """Run ``run``'s jobs in this process (one reactor: once per process); returns and appends its timing line."""
    from smartcrawl.crawl.runner import run_crawls

    timed: TimedScorer | None = None
    specs = list(run.specs)
    if run.scorer_factory is not None and any(s.strategy.name == "smart" for s in specs):
        timed = TimedScorer(run.scorer_factory())
        specs = [dataclasses.replace(s, scorer=timed) if s.strategy.name == "smart" else s for s in specs]
    started = time.time()
    t0 = time.perf_counter()
    summaries = run_crawls(specs, max_parallel=run.max_parallel) if specs else []
    wall = time.perf_counter() - t0
    finished = sum(mark_done(summary, spec.settings) for summary, spec in zip(summaries, specs, strict=True))
    line = {
        "started": started, "jobs": len(specs), "finished_jobs": finished,
        "fetched": sum(s.fetched for s in summaries), "wall_s": round(wall, 4),
        "scoring_s": round(timed.seconds, 4) if timed else 0.0, "scorer_calls": timed.calls if timed else 0,
        "scored_urls": timed.urls if timed else 0,
        "finish_reasons": sorted({s.finish_reason for s in summaries}),
    }
    run.strategy_dir.mkdir(parents=True, exist_ok=True)
    with (run.strategy_dir / TIMING_FILE).open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(line, sort_keys=True) + "\n")
    return line


def run_strategy_in_child(run: StrategyRun) -> dict[str, Any]:
    """Run ``run`` in a fresh (spawned) process and wait; returns its timing line.

    Raises ``RuntimeError`` when the child fails. A Ctrl-C reaches the child too (same process
    group): it stops its crawls gracefully, and this waits for it before re-raising.
    """
    timing = run.strategy_dir / TIMING_FILE
    before = timing.read_text().count("\n") if timing.exists() else 0
    proc = multiprocessing.get_context("spawn").Process(target=run_strategy, args=(run,), name=f"crawl-{run.label}")
    proc.start()
    try:
        proc.join()
    except KeyboardInterrupt:
        proc.join(60)
        if proc.is_alive():
            proc.terminate()
        raise
    lines = timing.read_text().splitlines() if timing.exists() else []
    if proc.exitcode != 0 or len(lines) <= before:
        raise RuntimeError(f"the crawls of {run.label} failed (child exit code {proc.exitcode})")
    return json.loads(lines[-1])


def read_timing(strategy_dir: str | Path) -> list[dict[str, Any]]:
    """The timing lines of a strategy dir (empty when it never ran)."""
    path = Path(strategy_dir) / TIMING_FILE
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
