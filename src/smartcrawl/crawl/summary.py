"""Counters of a crawl run and the summary it writes (``summary.json``) and returns.

:class:`RunStats` is updated once per finished request and read by the progress display;
:class:`CrawlSummary` is what :func:`~smartcrawl.crawl.runner.run_crawl` returns at the end.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from smartcrawl.crawl.records import PageRecord


@dataclass
class RunStats:
    """Counts of one run (``*_run``) and of the whole job so far (``*_total``)."""

    started: float = field(default_factory=time.monotonic)
    downloads_run: int = 0
    fetched_run: int = 0
    stored_run: int = 0
    fetched_total: int = 0
    stored_total: int = 0
    stored_by_lang: Counter[str] = field(default_factory=Counter)
    by_reason: Counter[str] = field(default_factory=Counter)
    by_status: Counter[str] = field(default_factory=Counter)
    skipped_links: Counter[str] = field(default_factory=Counter)
    new_urls_run: int = 0

    def observe(self, record: PageRecord, new_urls: int) -> None:
        """Count one finished request."""
        self.downloads_run += 1
        self.new_urls_run += new_urls
        if record.fetched:
            self.fetched_run += 1
            self.fetched_total += 1
        if record.stored:
            self.stored_run += 1
            self.stored_total += 1
            self.stored_by_lang[record.lang] += 1
        self.by_reason[record.reason or "ok"] += 1
        self.by_status[str(record.status) if record.status is not None else "none"] += 1
        self.skipped_links.update(record.skipped)

    def elapsed(self) -> float:
        """Seconds since the run started."""
        return time.monotonic() - self.started


@dataclass
class CrawlSummary:
    """The outcome of one run of a crawl job (also written to ``<job_dir>/summary.json``).

    ``downloads``/``fetched``/``stored`` count this run; ``*_total`` the whole job;
    ``stored_by_lang`` counts stored pages of the whole job by CLD2 language; ``by_reason`` and
    ``by_status`` count this run's requests; ``skipped_links`` counts outlinks not followed, by
    reason; ``recovered`` says what the start of the run repaired after a killed run.
    """

    job_dir: str
    run: int
    finish_reason: str
    elapsed_s: float
    downloads: int
    fetched: int
    stored: int
    pages_per_s: float
    fetched_total: int
    stored_total: int
    stored_by_lang: dict[str, int]
    by_reason: dict[str, int]
    by_status: dict[str, int]
    skipped_links: dict[str, int]
    frontier_queued: int
    frontier_parked: int
    recovered: dict[str, int]
    warc_files: list[str]
    crawl_log: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)

    def write(self, path: str | Path) -> None:
        """Write the summary as JSON."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=1, ensure_ascii=False, sort_keys=True))

    @classmethod
    def read(cls, path: str | Path) -> CrawlSummary:
        """Read a summary written by :meth:`write`."""
        return cls(**json.loads(Path(path).read_text()))
