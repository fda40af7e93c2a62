"""What one finished request leaves behind: the :class:`PageRecord` item and the download log.

The spider turns every response and every failure into one :class:`PageRecord` (the Scrapy item);
:class:`~smartcrawl.crawl.job.CrawlJob` writes it to the ``log`` table (:class:`DownloadLog`), the WARC
(when ``stored``) and the JSONL crawl log. The crawl-log fields (:data:`LOG_FIELDS`), one row per
request that left the frontier, in download order:

- ``ord``: download order (1, 2, ...; a page lost to a kill gives its number to the next download);
- ``run``: which run of the job (0, 1, ... one per start);
- ``time``: Unix time the outcome was known; ``url``, ``site`` (budget key);
- ``status``: HTTP status (``null`` when no response came back: refused by robots.txt, timeout, ...);
- ``fetched``: a request went out to the server (counts against the site's page budget);
- ``stored``: the page went into the WARC (2xx HTML that is not binary);
- ``bytes``: body bytes received; ``content_type``;
- ``lang``: CLD2 language of the visible text (ISO 639-3, ``und`` when unknown, ``""`` when not parsed);
  ``lang_reliable``: CLD2's reliability flag;
- ``priority`` (Scrapy convention, higher first; = -cost of :mod:`~smartcrawl.crawl.strategies`) and
  ``score`` (the smart score P(L'') x P(parallel), ``null`` when the link was not scored) it was queued with;
- ``parent`` (the page it was found on; ``null`` for seeds), ``depth`` (link hops from a seed),
  ``hop`` (``S`` seed, ``L`` link, ``R`` redirect target);
- ``reason``: ``""`` for a stored page, else why not (``http_404``, ``redirect``, ``robots``,
  ``timeout``, ``size_cap``, ``not_html``, ``binary``, ``too_many_redirects``, ...);
- ``location``: redirect target; ``outlinks``: new URLs it added to the frontier; ``retries``;
- ``warc``: the WARC file (relative to the job dir) holding the page, when stored.
"""

from __future__ import annotations

import builtins
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from smartcrawl.crawl.frontier import NewUrl

LOG_FIELDS: tuple[str, ...] = (
    "ord", "run", "time", "url", "site", "status", "fetched", "stored", "bytes", "content_type", "lang",
    "lang_reliable", "priority", "score", "parent", "depth", "hop", "reason", "location", "outlinks", "retries",
    "warc",
)
_BOOL_FIELDS = ("fetched", "stored", "lang_reliable")


@dataclass
class PageRecord:
    """The outcome of one request from the frontier (the Scrapy item; fields as in the module docstring).

    ``new_urls`` are the outlinks (or the redirect target) to queue, already filtered and
    prioritised; ``skipped`` counts the links that were not, by reason. ``body``,
    ``http_headers`` and ``http_status_line`` feed the WARC record.
    """

    queue_id: int
    url: str
    site: str
    time: float
    status: int | None
    fetched: bool
    stored: bool
    bytes: int
    content_type: str
    lang: str
    lang_reliable: bool
    priority: int
    score: float | None
    parent: str | None
    depth: int
    hop: str
    reason: str
    location: str | None = None
    retries: int = 0
    new_urls: list[NewUrl] = field(default_factory=list, repr=False)
    skipped: dict[str, int] = field(default_factory=dict, repr=False)
    body: builtins.bytes = field(default=b"", repr=False)
    http_headers: list[tuple[str, str]] = field(default_factory=list, repr=False)
    http_status_line: str = field(default="", repr=False)


class DownloadLog:
    """The ``log`` table: one row per finished request, the job's source of truth for the crawl log."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def append(self, row: dict[str, Any]) -> int:
        """Add a row (a :func:`log_row` dict, without ``ord``; not committed); returns its ``ord``."""
        names = [k for k in LOG_FIELDS if k != "ord"]
        cur = self.db.execute(
            f"INSERT INTO log(queue_id, {', '.join(names)}) VALUES (?, {', '.join('?' * len(names))})",
            (row["queue_id"], *(row[k] for k in names)),
        )
        return int(cur.lastrowid or 0)

    def rows_after(self, ord_: int) -> list[dict[str, Any]]:
        """Rows with ``ord > ord_``, in order, as crawl-log dicts."""
        cur = self.db.execute(f"SELECT {', '.join(LOG_FIELDS)} FROM log WHERE ord > ? ORDER BY ord", (ord_,))
        return [row_dict(r) for r in cur]

    def stored_in_run(self, run: int) -> list[tuple[int, int, str]]:
        """``(ord, queue_id, url)`` of the rows of ``run`` that were stored."""
        cur = self.db.execute("SELECT ord, queue_id, url FROM log WHERE run = ? AND stored = 1 ORDER BY ord", (run,))
        return [(int(o), int(q), str(u)) for o, q, u in cur]

    def delete(self, ords: list[int]) -> None:
        """Remove rows (downloads lost to a killed run)."""
        self.db.executemany("DELETE FROM log WHERE ord = ?", [(o,) for o in ords])

    def last_ord(self) -> int:
        """The highest ``ord`` (0 when empty)."""
        return int(self.db.execute("SELECT COALESCE(MAX(ord), 0) FROM log").fetchone()[0])

    def counts(self, column: str, where: str = "1") -> dict[str, int]:
        """Row counts grouped by ``column`` (one of :data:`LOG_FIELDS`) over rows matching ``where``."""
        if column not in LOG_FIELDS:
            raise ValueError(f"unknown log column {column!r}")
        cur = self.db.execute(f"SELECT {column}, COUNT(*) FROM log WHERE {where} GROUP BY {column}")
        return {str(k): int(n) for k, n in cur}


def log_row(record: PageRecord, run: int, outlinks: int, warc: str | None) -> dict[str, Any]:
    """The crawl-log dict of a record (``ord`` is ``None`` until the database assigns it)."""
    return {
        "ord": None, "run": run, "time": record.time, "url": record.url, "site": record.site,
        "status": record.status, "fetched": record.fetched, "stored": record.stored, "bytes": record.bytes,
        "content_type": record.content_type, "lang": record.lang, "lang_reliable": record.lang_reliable,
        "priority": record.priority, "score": record.score, "parent": record.parent, "depth": record.depth,
        "hop": record.hop, "reason": record.reason, "location": record.location, "outlinks": outlinks,
        "retries": record.retries, "warc": warc, "queue_id": record.queue_id,
    }


def row_dict(row: tuple[Any, ...]) -> dict[str, Any]:
    """A ``log`` row (columns in :data:`LOG_FIELDS` order) as a crawl-log dict (booleans as ``bool``)."""
    out = dict(zip(LOG_FIELDS, row))
    for name in _BOOL_FIELDS:
        out[name] = bool(out[name])
    return out
