"""The pages and crawl logs of a distributed crawl's workers, together; and the shared frontier's state.

A distributed job dir holds one directory per worker (``worker-<name>/``, each laid out as a
one-process job). Functions:

- :func:`worker_dirs`: the worker directories;
- :func:`stored_pages`: every stored page of every worker (from the WARC files), with its worker;
- :func:`worker_rows`: a worker's crawl-log rows (from its database, checked against its WARC files);
- :func:`merge_crawl_logs`: one ``crawl_log.jsonl`` in the job dir with the rows of all workers
  in the order they finished (``ord`` renumbered, ``warc`` relative to the job dir), so that
  :func:`~smartcrawl.crawl.crawllog.read_crawl_log` and ``crawl_eval`` read the job as one crawl.

Command line::

    python -m smartcrawl.crawl.distributed pages  JOB_DIR     # stored pages per worker, duplicates
    python -m smartcrawl.crawl.distributed merge  JOB_DIR     # write JOB_DIR/crawl_log.jsonl
    python -m smartcrawl.crawl.distributed status JOB_DIR [--redis-url URL] [--prefix P]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from smartcrawl.crawl.crawllog import CRAWL_LOG
from smartcrawl.crawl.records import LOG_FIELDS
from smartcrawl.crawl.job import STATE_DB
from smartcrawl.crawl.records import DownloadLog
from smartcrawl.crawl.redisjob import WORKER_PREFIX
from smartcrawl.crawl.warcstore import WARC_DIR, scan_warc, warc_name


def worker_dirs(job_dir: str | Path) -> list[Path]:
    """The worker directories of a distributed job, sorted by name."""
    root = Path(job_dir)
    return sorted(p for p in root.glob(f"{WORKER_PREFIX}*") if p.is_dir())


def worker_name(wdir: Path) -> str:
    """The worker name of a worker directory (``worker-3`` -> ``3``)."""
    return wdir.name[len(WORKER_PREFIX):]


@dataclass(frozen=True)
class StoredPage:
    """A page in a worker's WARC files."""

    worker: str
    url: str
    warc: str


def stored_pages(job_dir: str | Path) -> list[StoredPage]:
    """Every complete stored page of every worker, worker by worker, in WARC order."""
    out: list[StoredPage] = []
    root = Path(job_dir)
    for wdir in worker_dirs(root):
        for path in sorted((wdir / WARC_DIR).glob("*.warc.gz")):
            rel = str(path.relative_to(root))
            out.extend(StoredPage(worker_name(wdir), url, rel) for url in scan_warc(path).urls)
    return out


def stored_urls_all(job_dir: str | Path) -> list[str]:
    """The URLs of :func:`stored_pages` (a URL stored by two workers appears twice)."""
    return [p.url for p in stored_pages(job_dir)]


def worker_rows(wdir: str | Path) -> list[dict[str, Any]]:
    """A worker's crawl-log rows, read from its database (the source of truth, also of a killed worker).

    As the worker's own repair at a restart would: a stored row whose page is not a complete record
    of its WARC file (the worker was killed in between) is left out; its URL went back to the queue.
    """
    wdir = Path(wdir)
    path = wdir / STATE_DB
    if not path.exists():
        return []
    db = sqlite3.connect(path)
    try:
        rows = DownloadLog(db).rows_after(0)
    finally:
        db.close()
    in_warc: dict[int, set[str]] = {}
    out: list[dict[str, Any]] = []
    for row in rows:
        if row["stored"]:
            run = int(row["run"])
            if run not in in_warc:
                in_warc[run] = set(scan_warc(wdir / warc_name(run)).urls)
            if row["url"] not in in_warc[run]:
                continue
        out.append(row)
    return out


def merge_crawl_logs(job_dir: str | Path) -> Path:
    """Write ``<job_dir>/crawl_log.jsonl`` with every worker's rows in finishing order; returns its path.

    Rows come from each worker's database (:func:`worker_rows`) and are ordered by ``time`` (ties: worker, then its ``ord``), ``ord`` is renumbered from 1,
    ``warc`` points into the worker's directory. A URL stored by two workers (possible only when a
    worker on another machine was killed and its last page queued again) keeps its first stored row
    only as stored; later copies are marked ``stored=false, reason="duplicate"``.
    """
    root = Path(job_dir)
    rows: list[tuple[float, str, int, dict[str, Any]]] = []
    for wdir in worker_dirs(root):
        name = worker_name(wdir)
        for row in worker_rows(wdir):
            if row.get("warc"):
                row["warc"] = f"{wdir.name}/{row['warc']}"
            rows.append((float(row["time"]), name, int(row["ord"]), row))
    rows.sort(key=lambda r: r[:3])
    seen: set[str] = set()
    out = root / CRAWL_LOG
    tmp = out.with_suffix(".jsonl.tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for i, (_, _, _, row) in enumerate(rows, start=1):
            row["ord"] = i
            if row.get("stored"):
                if row["url"] in seen:
                    row.update(stored=False, reason="duplicate")
                seen.add(row["url"])
            fh.write(json.dumps({k: row.get(k) for k in LOG_FIELDS}, ensure_ascii=False, separators=(",", ":")) + "\n")
    os.replace(tmp, out)
    return out


def pages_report(job_dir: str | Path) -> dict[str, Any]:
    """Stored pages per worker, the distinct total and the URLs stored more than once."""
    pages = stored_pages(job_dir)
    counts = Counter(p.url for p in pages)
    return {"workers": dict(Counter(p.worker for p in pages)), "stored": len(pages), "distinct": len(counts),
            "duplicates": sorted(u for u, n in counts.items() if n > 1)}


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m smartcrawl.crawl.distributed pages|merge|status JOB_DIR`` (module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m smartcrawl.crawl.distributed", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=("pages", "merge", "status"))
    ap.add_argument("job_dir", type=Path)
    ap.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    ap.add_argument("--prefix", default=None, help="the crawl's Redis key prefix (default smartcrawl:<job dir name>)")
    args = ap.parse_args(argv)
    if args.command == "pages":
        print(json.dumps(pages_report(args.job_dir), indent=1))
    elif args.command == "merge":
        print(merge_crawl_logs(args.job_dir))
    else:
        from smartcrawl.crawl.redisfrontier import SharedFrontier

        prefix = args.prefix or f"smartcrawl:{args.job_dir.resolve().name}"
        shared = SharedFrontier.connect(args.redis_url, prefix, "status")
        try:
            status = shared.status()
            alive = {w: not bool(w in shared.dead_workers()) for w in shared.workers()}
            print(json.dumps({"prefix": prefix, **asdict(status), "over": status.over, "workers": alive}, indent=1))
        finally:
            shared.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
