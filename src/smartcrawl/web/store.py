"""On-disk format of a test-bed web, shared by websim, the Debian sites, the server and crawl_eval.

A web directory holds:

- ``manifest.json``: ``{"name": str, "pair": [l1, l2] | null, "sites": [SiteInfo...]}``;
- ``pages.sqlite``: one row per URL (``url`` as served, absolute, normalised by :func:`page_key`),
  with ``host``, ``status``, ``content_type``, ``location`` (redirect target) and ``body`` (bytes);
- ``truth/langs.parquet``: ``url, host, lang`` (ISO 639-3) for every page that has a language;
- ``truth/groups.parquet``: ``group, url, host, lang``: each group is a set of mutual translations.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pandas as pd


@dataclass
class SiteInfo:
    """One site of the web: its host, scheme, crawl seeds and robots.txt text."""

    host: str
    seeds: list[str]
    scheme: str = "http"
    robots_txt: str = "User-agent: *\nDisallow:\n"
    langs: list[str] = field(default_factory=list)


@dataclass
class StoredPage:
    """One stored HTTP response."""

    url: str
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    body: bytes = b""
    location: str | None = None


def page_key(url: str) -> str:
    """Normalised lookup key of a URL: lower-case scheme and host, no fragment, ``/`` for an empty path."""
    parts = urlsplit(url)
    path = parts.path or "/"
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))


class WebStore:
    """Read and write a web directory (see the module docstring for the format)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._db: sqlite3.Connection | None = None

    # -- writing ---------------------------------------------------------------------------
    def create(self, name: str, pair: tuple[str, str] | None, sites: list[SiteInfo]) -> None:
        """Start a new web directory (overwriting pages of an earlier one) and write its manifest."""
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "truth").mkdir(exist_ok=True)
        db_path = self.root / "pages.sqlite"
        if db_path.exists():
            db_path.unlink()
        manifest = {"name": name, "pair": list(pair) if pair else None, "sites": [asdict(s) for s in sites]}
        (self.root / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False))
        db = self._connect()
        db.execute(
            "CREATE TABLE pages (url TEXT PRIMARY KEY, host TEXT, status INTEGER, content_type TEXT,"
            " location TEXT, body BLOB)"
        )
        db.commit()

    def add_pages(self, pages: Iterable[StoredPage]) -> int:
        """Insert pages (one transaction); returns how many were written."""
        db = self._connect()
        rows = [
            (page_key(p.url), urlsplit(p.url).hostname or "", p.status, p.content_type, p.location, p.body)
            for p in pages
        ]
        db.executemany("INSERT OR REPLACE INTO pages VALUES (?,?,?,?,?,?)", rows)
        db.commit()
        return len(rows)

    def write_truth(self, langs: pd.DataFrame, groups: pd.DataFrame) -> None:
        """Write the ground truth: ``langs`` (url, host, lang) and ``groups`` (group, url, host, lang)."""
        (self.root / "truth").mkdir(parents=True, exist_ok=True)
        langs.to_parquet(self.root / "truth" / "langs.parquet", index=False)
        groups.to_parquet(self.root / "truth" / "groups.parquet", index=False)

    # -- reading ---------------------------------------------------------------------------
    def manifest(self) -> dict:
        """The parsed ``manifest.json``."""
        return json.loads((self.root / "manifest.json").read_text())

    def sites(self) -> list[SiteInfo]:
        """The sites of the web."""
        return [SiteInfo(**s) for s in self.manifest()["sites"]]

    def get(self, url: str) -> StoredPage | None:
        """The stored response for ``url``, or ``None`` when the web has no such page."""
        row = self._connect().execute(
            "SELECT url, status, content_type, body, location FROM pages WHERE url = ?", (page_key(url),)
        ).fetchone()
        if row is None:
            return None
        return StoredPage(url=row[0], status=row[1], content_type=row[2], body=row[3], location=row[4])

    def iter_pages(self) -> Iterator[StoredPage]:
        """Every stored page, in URL order."""
        cur = self._connect().execute("SELECT url, status, content_type, body, location FROM pages ORDER BY url")
        for row in cur:
            yield StoredPage(url=row[0], status=row[1], content_type=row[2], body=row[3], location=row[4])

    def truth_langs(self) -> pd.DataFrame:
        """Ground truth: url -> language."""
        return pd.read_parquet(self.root / "truth" / "langs.parquet")

    def truth_groups(self) -> pd.DataFrame:
        """Ground truth: groups of mutual translations."""
        return pd.read_parquet(self.root / "truth" / "groups.parquet")

    def close(self) -> None:
        """Close the database connection."""
        if self._db is not None:
            self._db.close()
            self._db = None

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            # check_same_thread=False: the server reads from worker threads; sqlite serialises access.
            self._db = sqlite3.connect(self.root / "pages.sqlite", check_same_thread=False)
        return self._db
