"""The persistent frontier and seen-set, two objects over the job's SQLite state.

:class:`SeenSet` answers "was this URL (fingerprint) ever queued, and as which entry?";
:class:`Frontier` holds every queued URL with its priority and state. A URL found again with a
higher priority while it still waits is re-queued at that priority
(:meth:`Frontier.replace_if_better`), as the authors' Heritrix frontier does. Nothing here
commits: the caller commits once per finished page (:class:`~smartcrawl.crawl.job.CrawlJob`), so
a killed process loses at most the work of the pages in flight, which
:meth:`Frontier.reset_in_flight` puts back in the queue on resume.

Order: highest priority first, then the lowest lane number (``NewUrl.seq``; 0 for every entry of a
strategy without lanes), then first queued first (FIFO, so equal priorities crawl breadth-first).
A state database from before lanes gets the column on opening, its entries lane 0.

Entries of a site whose budget is spent are *parked* (state 3): they stay on disk, out of the way,
and :meth:`Frontier.restore_parked` brings them back when a later run may have a larger budget.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

QUEUED, IN_FLIGHT, DONE, PARKED = 0, 1, 2, 3

_COLUMNS = "id, url, site, host, priority, score, depth, parent, hop, redirects, retries"


def url_hostname(url: str) -> str:
    """Lower-case host name of a URL ("" when it has none); the key of per-host politeness."""
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


@dataclass(frozen=True)
class NewUrl:
    """A URL to queue: where it belongs, how urgent it is and how it was found.

    ``hop`` is ``S`` (seed), ``L`` (link) or ``R`` (redirect target); ``redirects`` counts the
    redirects in a row that led to it; ``seq`` is its lane number (module docstring).
    """

    url: str
    site: str
    priority: int
    depth: int
    hop: str
    parent: str | None = None
    score: float | None = None
    redirects: int = 0
    seq: int = 0


@dataclass(frozen=True)
class FrontierEntry:
    """A queued URL as stored: :class:`NewUrl`'s fields plus its id (queue order), host and retries so far."""

    id: int
    url: str
    site: str
    host: str
    priority: int
    score: float | None
    depth: int
    parent: str | None
    hop: str
    redirects: int
    retries: int


class SeenSet:
    """Fingerprint of every URL ever queued, mapped to its queue entry (the de-duplication filter)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def get(self, fp: bytes) -> int | None:
        """The queue id of a seen fingerprint, ``None`` when unseen."""
        row = self.db.execute("SELECT queue_id FROM seen WHERE fp = ?", (fp,)).fetchone()
        return int(row[0]) if row else None

    def add(self, fp: bytes, queue_id: int) -> bool:
        """Record ``fp`` for entry ``queue_id``; ``True`` when it is new (an existing mapping is kept)."""
        return self.db.execute("INSERT OR IGNORE INTO seen(fp, queue_id) VALUES (?, ?)", (fp, queue_id)).rowcount == 1

    def move(self, fp: bytes, queue_id: int) -> None:
        """Point a seen fingerprint at another queue entry (its URL was re-queued with a better priority)."""
        self.db.execute("UPDATE seen SET queue_id = ? WHERE fp = ?", (queue_id, fp))

    def __contains__(self, fp: object) -> bool:
        return self.db.execute("SELECT 1 FROM seen WHERE fp = ?", (fp,)).fetchone() is not None

    def __len__(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM seen").fetchone()[0])


class Frontier:
    """The priority queue of URLs to fetch, with per-URL state (module docstring)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def push(self, item: NewUrl) -> int:
        """Queue a URL (the caller has checked the seen-set); returns its id."""
        cur = self.db.execute(
            "INSERT INTO queue(url, site, host, priority, score, depth, parent, hop, redirects, state, seq)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (item.url, item.site, url_hostname(item.url), item.priority, item.score, item.depth, item.parent,
             item.hop, item.redirects, QUEUED, item.seq),
        )
        return int(cur.lastrowid or 0)

    def replace_if_better(self, entry_id: int, item: NewUrl) -> int | None:
        """Re-queue a still-waiting URL that was found again with a higher priority.

        As the authors' ``BdbPrecedenceReplaceFrontier``: when entry ``entry_id`` is queued (or
        parked) and ``item`` has a higher priority, the old entry is removed and ``item`` queued
        at the back of its new priority level; returns the new id, ``None`` when nothing changed.
        """
        row = self.db.execute("SELECT priority, state FROM queue WHERE id = ?", (entry_id,)).fetchone()
        if row is None or int(row[1]) not in (QUEUED, PARKED) or item.priority <= int(row[0]):
            return None
        self.db.execute("DELETE FROM queue WHERE id = ?", (entry_id,))
        return self.push(item)

    def waiting(self, entry_id: int) -> bool:
        """Whether the entry still waits (queued or parked), i.e. was not fetched nor is in flight."""
        return self.state_of(entry_id) in (QUEUED, PARKED)

    def peek(self, exclude_sites: Collection[str] = (), exclude_hosts: Collection[str] = ()) -> FrontierEntry | None:
        """The next queued entry (highest priority, oldest), skipping some sites and hosts; not removed."""
        sql = f"SELECT {_COLUMNS} FROM queue WHERE state = {QUEUED}"
        args: list[str] = []
        for column, values in (("site", exclude_sites), ("host", exclude_hosts)):
            if values:
                sql += f" AND {column} NOT IN ({','.join('?' * len(values))})"
                args.extend(values)
        row = self.db.execute(sql + " ORDER BY priority DESC, seq, id LIMIT 1", tuple(args)).fetchone()
        return FrontierEntry(*row) if row else None

    def get(self, entry_id: int) -> FrontierEntry | None:
        """The entry with this id, whatever its state."""
        row = self.db.execute(f"SELECT {_COLUMNS} FROM queue WHERE id = ?", (entry_id,)).fetchone()
        return FrontierEntry(*row) if row else None

    def state_of(self, entry_id: int) -> int | None:
        """The state of an entry (``QUEUED``, ``IN_FLIGHT``, ``DONE``, ``PARKED``), ``None`` if unknown."""
        row = self.db.execute("SELECT state FROM queue WHERE id = ?", (entry_id,)).fetchone()
        return int(row[0]) if row else None

    def mark_in_flight(self, entry_id: int) -> None:
        """The entry was handed to the downloader."""
        self.db.execute(f"UPDATE queue SET state = {IN_FLIGHT} WHERE id = ?", (entry_id,))

    def requeue(self, entry_id: int, priority: int, retries: int) -> None:
        """Put an in-flight entry back (a retry), with its new priority and retry count."""
        self.db.execute(f"UPDATE queue SET state = {QUEUED}, priority = ?, retries = ? WHERE id = ?",
                        (priority, retries, entry_id))

    def finish(self, entry_id: int) -> None:
        """The entry's request is over (downloaded, failed or refused)."""
        self.db.execute(f"UPDATE queue SET state = {DONE} WHERE id = ?", (entry_id,))

    def reopen(self, entry_ids: Iterable[int]) -> int:
        """Queue finished entries again (their download was lost); returns how many."""
        ids = [(i,) for i in entry_ids]
        self.db.executemany(f"UPDATE queue SET state = {QUEUED} WHERE id = ?", ids)
        return len(ids)

    def park_site(self, site: str) -> int:
        """Park every queued entry of ``site`` (its budget is spent); returns how many."""
        return self.db.execute(f"UPDATE queue SET state = {PARKED} WHERE site = ? AND state = {QUEUED}",
                               (site,)).rowcount

    def restore_parked(self) -> int:
        """Queue every parked entry again (start of a run); returns how many."""
        return self.db.execute(f"UPDATE queue SET state = {QUEUED} WHERE state = {PARKED}").rowcount

    def reset_in_flight(self) -> int:
        """Queue again every entry left in flight by a stopped or killed run; returns how many."""
        return self.db.execute(f"UPDATE queue SET state = {QUEUED} WHERE state = {IN_FLIGHT}").rowcount

    def has_queued(self) -> bool:
        """Whether any entry waits in the queue (parked ones do not count)."""
        return self.db.execute(f"SELECT 1 FROM queue WHERE state = {QUEUED} LIMIT 1").fetchone() is not None

    def count(self, state: int) -> int:
        """How many entries are in ``state``."""
        return int(self.db.execute("SELECT COUNT(*) FROM queue WHERE state = ?", (state,)).fetchone()[0])

    def __len__(self) -> int:
        return self.count(QUEUED)
