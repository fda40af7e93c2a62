"""The job's SQLite state file (``state.sqlite``): schema, connection settings and a small key-value table.

One connection, used by the crawl's single reactor thread. WAL journal with ``synchronous=NORMAL``:
a commit survives a killed process (``kill -9``); only a power cut can lose the last commits.
Tables (their owners in brackets):

- ``seen(fp, queue_id)``: fingerprint of every URL ever queued -> its queue entry
  [:class:`~smartcrawl.crawl.frontier.SeenSet`];
- ``queue``: every URL ever queued, its priority, depth, parent and state (0 queued, 1 in flight,
  2 done, 3 parked because its site's budget is spent) [:class:`~smartcrawl.crawl.frontier.Frontier`];
- ``sites``: per-site crawl time used so far [:class:`~smartcrawl.crawl.budgets.SiteBudgets`];
- ``log``: one row per finished request, in download order [:class:`~smartcrawl.crawl.records.DownloadLog`];
- ``meta``: key-value pairs (run counter).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS seen (fp BLOB PRIMARY KEY, queue_id INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS queue (
    id INTEGER PRIMARY KEY,
    url TEXT NOT NULL,
    site TEXT NOT NULL,
    host TEXT NOT NULL,
    priority INTEGER NOT NULL,
    score REAL,
    depth INTEGER NOT NULL,
    parent TEXT,
    hop TEXT NOT NULL,
    redirects INTEGER NOT NULL DEFAULT 0,
    retries INTEGER NOT NULL DEFAULT 0,
    state INTEGER NOT NULL DEFAULT 0,
    seq INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS queue_site_state ON queue(site, state);
CREATE TABLE IF NOT EXISTS sites (site TEXT PRIMARY KEY, elapsed_s REAL NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS log (
    ord INTEGER PRIMARY KEY,
    run INTEGER NOT NULL,
    queue_id INTEGER NOT NULL,
    time REAL NOT NULL,
    url TEXT NOT NULL,
    site TEXT NOT NULL,
    status INTEGER,
    fetched INTEGER NOT NULL,
    stored INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    content_type TEXT NOT NULL,
    lang TEXT NOT NULL,
    lang_reliable INTEGER NOT NULL,
    priority INTEGER NOT NULL,
    score REAL,
    parent TEXT,
    depth INTEGER NOT NULL,
    hop TEXT NOT NULL,
    reason TEXT NOT NULL,
    location TEXT,
    outlinks INTEGER NOT NULL,
    retries INTEGER NOT NULL,
    warc TEXT
);
CREATE INDEX IF NOT EXISTS log_run_stored ON log(run, stored);
"""


def open_state_db(path: str | Path) -> sqlite3.Connection:
    """Open (creating if needed) the state database with WAL journaling and the crawl schema."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, isolation_level="DEFERRED")
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA foreign_keys=OFF")
    db.executescript(SCHEMA)
    columns = {row[1] for row in db.execute("PRAGMA table_info(queue)")}
    if "seq" not in columns:  # a job started before the queue had lanes: its entries keep seq 0
        db.execute("ALTER TABLE queue ADD COLUMN seq INTEGER NOT NULL DEFAULT 0")
    db.execute("DROP INDEX IF EXISTS queue_ready")
    db.execute("CREATE INDEX IF NOT EXISTS queue_ready_seq ON queue(priority DESC, seq, id) WHERE state = 0")
    db.commit()
    return db


def get_meta(db: sqlite3.Connection, key: str, default: str | None = None) -> str | None:
    """A value of the ``meta`` table, or ``default``."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return str(row[0]) if row else default


def set_meta(db: sqlite3.Connection, key: str, value: str) -> None:
    """Set a value of the ``meta`` table (not committed)."""
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))
