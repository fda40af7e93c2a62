"""The crawl log: ``crawl_log.jsonl`` in the job dir, one JSON object per finished request, in order.

It mirrors the ``log`` table of the job's state database (fields:
:data:`~smartcrawl.crawl.records.LOG_FIELDS`): a row is appended and flushed right after the page
is stored. After a killed run :func:`repair_crawl_log` drops a partial last line and appends the
rows the database has but the file lacks, so the file always ends up equal to the table.
:func:`read_crawl_log` loads it as a DataFrame (what ``crawl_eval`` reads).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from smartcrawl.crawl.records import LOG_FIELDS

if TYPE_CHECKING:
    import pandas as pd

CRAWL_LOG = "crawl_log.jsonl"


def _dumps(row: dict[str, Any]) -> str:
    return json.dumps({k: row.get(k) for k in LOG_FIELDS}, ensure_ascii=False, separators=(",", ":")) + "\n"


def repair_crawl_log(path: str | Path) -> int:
    """Drop a partial or unreadable tail from a crawl log; returns the ``ord`` of its last good row (0 if none)."""
    path = Path(path)
    if not path.exists():
        return 0
    last_ord, good_end, pos = 0, 0, 0
    with path.open("rb") as fh:
        for line in fh:
            pos += len(line)
            if not line.endswith(b"\n"):
                break
            try:
                last_ord = int(json.loads(line)["ord"])
            except (ValueError, KeyError, TypeError):
                break
            good_end = pos
    if path.stat().st_size > good_end:
        with path.open("r+b") as fh:
            fh.truncate(good_end)
    return last_ord


class CrawlLogWriter:
    """Appends rows to ``crawl_log.jsonl``, flushing each one."""

    def __init__(self, path: str | Path, fsync: bool = False) -> None:
        self.path = Path(path)
        self.fsync = fsync
        self._fh: IO[str] | None = None

    def write(self, row: dict[str, Any]) -> None:
        """Append one row and flush it."""
        self.write_many([row])

    def write_many(self, rows: Iterable[dict[str, Any]]) -> None:
        """Append rows and flush them."""
        fh = self._open()
        for row in rows:
            fh.write(_dumps(row))
        fh.flush()
        if self.fsync:
            os.fsync(fh.fileno())

    def _open(self) -> IO[str]:
        if self._fh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = self.path.open("a", encoding="utf-8")
        return self._fh

    def close(self) -> None:
        """Close the file."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def read_crawl_log(job_dir: str | Path) -> pd.DataFrame:
    """The crawl log of a job as a DataFrame (columns :data:`LOG_FIELDS`, ordered by ``ord``).

    Integer columns are nullable (``Int64``: ``status`` is missing when no response came back).

    A partial last line (a run killed while writing it) is skipped.
    """
    import pandas as pd  # imported here: the crawler itself does not need pandas

    path = Path(job_dir) / CRAWL_LOG
    rows: list[dict[str, Any]] = []
    if path.exists():
        with path.open("r", encoding="utf-8") as fh:
            for line in fh:
                if not line.endswith("\n"):
                    break
                try:
                    rows.append(json.loads(line))
                except ValueError:
                    break
    frame = pd.DataFrame(rows, columns=list(LOG_FIELDS))
    for name in ("ord", "run", "status", "bytes", "priority", "depth", "outlinks", "retries"):
        frame[name] = frame[name].astype("Int64")
    for name in ("fetched", "stored", "lang_reliable"):
        frame[name] = frame[name].astype(bool)
    return frame.sort_values("ord", kind="stable").reset_index(drop=True)
