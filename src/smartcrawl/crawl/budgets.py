"""Per-site page and time budgets (and an optional crawl-wide page budget).

A site's page budget counts *fetches*: requests that went out to the site (robots.txt excluded,
URLs refused by robots.txt excluded, a retried URL once). Requests in flight count against it, so
a site never gets more than its budget even with many requests in flight. The time budget is the
crawl time spent on a site: from its first request in a run to now, plus what earlier runs of the
job spent (kept in the ``sites`` table).

:meth:`SiteBudgets.status` tells the scheduler, per site: ``ok`` (may fetch), ``wait`` (the
requests in flight may use up the budget; ask again later) or ``spent``.
"""

from __future__ import annotations

import sqlite3
import time
from collections import Counter
from collections.abc import Callable
from typing import Literal

BudgetStatus = Literal["ok", "wait", "spent"]


class SiteBudgets:
    """Budget book-keeping of one crawl (module docstring)."""

    def __init__(
        self,
        db: sqlite3.Connection,
        max_pages_per_site: int | None = None,
        max_seconds_per_site: float | None = None,
        max_pages: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.db = db
        self.max_pages_per_site = max_pages_per_site
        self.max_seconds_per_site = max_seconds_per_site
        self.max_pages = max_pages
        self.clock = clock
        self.fetched: Counter[str] = Counter()
        self.in_flight: Counter[str] = Counter()
        self._prev_elapsed: dict[str, float] = {}
        self._run_start: dict[str, float] = {}

    def load(self) -> None:
        """Read the fetch counts (from the download log) and the time spent per site (start of a run)."""
        self.fetched = Counter({str(site): int(n) for site, n in self.db.execute(
            "SELECT site, COUNT(*) FROM log WHERE fetched = 1 GROUP BY site")})
        self._prev_elapsed = {str(s): float(e) for s, e in self.db.execute("SELECT site, elapsed_s FROM sites")}
        self.in_flight.clear()
        self._run_start.clear()

    def elapsed(self, site: str) -> float:
        """Seconds of crawl time spent on ``site`` so far (all runs)."""
        prev = self._prev_elapsed.get(site, 0.0)
        start = self._run_start.get(site)
        return prev if start is None else prev + (self.clock() - start)

    def status(self, site: str) -> BudgetStatus:
        """Whether ``site`` may get another request now (module docstring)."""
        total_fetched = sum(self.fetched.values())
        if self.max_pages is not None and total_fetched >= self.max_pages:
            return "spent"
        if self.max_pages_per_site is not None and self.fetched[site] >= self.max_pages_per_site:
            return "spent"
        if self.max_seconds_per_site is not None and self.elapsed(site) >= self.max_seconds_per_site:
            return "spent"
        if self.max_pages is not None and total_fetched + sum(self.in_flight.values()) >= self.max_pages:
            return "wait"
        if self.max_pages_per_site is not None and \
                self.fetched[site] + self.in_flight[site] >= self.max_pages_per_site:
            return "wait"
        return "ok"

    def on_dispatch(self, site: str) -> None:
        """A request of ``site`` goes to the downloader."""
        self._run_start.setdefault(site, self.clock())
        self.in_flight[site] += 1

    def on_requeue(self, site: str) -> None:
        """An in-flight request of ``site`` went back to the queue (a retry)."""
        if self.in_flight[site] > 0:
            self.in_flight[site] -= 1

    def on_finish(self, site: str, fetched: bool) -> None:
        """An in-flight request of ``site`` ended; ``fetched`` when it reached the server."""
        if self.in_flight[site] > 0:
            self.in_flight[site] -= 1
        if fetched:
            self.fetched[site] += 1
        self.db.execute("INSERT OR REPLACE INTO sites(site, elapsed_s) VALUES (?, ?)", (site, self.elapsed(site)))
