"""Stored pages as WARC (warcio): one gzipped file per run, one gzip member per record, flushed per page.

``warc/00000.warc.gz`` holds run 0's pages, ``warc/00001.warc.gz`` run 1's, and so on; a file is
only appended to by its own run. Each record is serialised in memory and written with a single
``write`` + ``flush`` (and ``fsync`` when asked), so a killed process leaves at most one partial
record at the end of its file: :func:`repair_warc` finds the end of the last complete gzip member
and cuts the rest, and :func:`scan_warc` lists the complete records.

Records are WARC ``response`` records with the HTTP status line and headers as received, except
that ``Content-Encoding``/``Transfer-Encoding`` are dropped and ``Content-Length`` is the stored
body's length (Scrapy hands over decoded bodies). ``WARC-Identified-Content-Language`` carries the
CLD2 language (ISO 639-3), as Common Crawl's WARCs do.
"""

from __future__ import annotations

import io
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from smartcrawl.crawl.records import PageRecord

WARC_DIR = "warc"
_CHUNK = 1 << 20
_DROP_HEADERS = frozenset({"content-encoding", "transfer-encoding", "content-length"})


def warc_name(run: int) -> str:
    """Path of a run's WARC file, relative to the job dir."""
    return f"{WARC_DIR}/{run:05d}.warc.gz"


@dataclass(frozen=True)
class WarcScan:
    """The complete ``response`` records of a WARC file (target URIs in file order) and where they end."""

    urls: list[str]
    good_end: int
    size: int


def _members(fh: IO[bytes]) -> Iterator[tuple[int, int, bytes]]:
    """``(start, end, decompressed)`` of each complete gzip member, stopping at a truncated or bad one."""
    base = 0
    pending = b""
    while True:
        if not pending:
            pending = fh.read(_CHUNK)
            if not pending:
                return
        dec = zlib.decompressobj(31)
        out: list[bytes] = []
        buf, used = pending, 0
        while True:
            try:
                out.append(dec.decompress(buf))
            except zlib.error:
                return
            if dec.eof:
                used += len(buf) - len(dec.unused_data)
                pending = dec.unused_data
                break
            used += len(buf)
            buf = fh.read(_CHUNK)
            if not buf:
                return
        yield base, base + used, b"".join(out)
        base += used


def scan_warc(path: str | Path) -> WarcScan:
    """The complete response records of a WARC file (a truncated tail is ignored)."""
    path = Path(path)
    if not path.exists():
        return WarcScan([], 0, 0)
    urls: list[str] = []
    good_end = 0
    with path.open("rb") as fh:
        for _, end, data in _members(fh):
            for record in ArchiveIterator(io.BytesIO(data)):
                if record.rec_type == "response":
                    urls.append(str(record.rec_headers.get_header("WARC-Target-URI")))
            good_end = end
    return WarcScan(urls, good_end, path.stat().st_size)


def repair_warc(path: str | Path) -> WarcScan:
    """Cut a partial record off the end of a WARC file (left by a killed run); returns the scan."""
    scan = scan_warc(path)
    if scan.size > scan.good_end:
        with Path(path).open("r+b") as fh:
            fh.truncate(scan.good_end)
    return scan


class WarcStore:
    """Appends stored pages to the current run's WARC file (module docstring)."""

    def __init__(self, job_dir: str | Path, run: int, fsync: bool = False) -> None:
        self.job_dir = Path(job_dir)
        self.name = warc_name(run)
        self.path = self.job_dir / self.name
        self.fsync = fsync
        self._fh: IO[bytes] | None = None

    def write(self, record: PageRecord) -> None:
        """Append one page as a WARC response record and flush it to the file."""
        headers = [(k, v) for k, v in record.http_headers if k.lower() not in _DROP_HEADERS]
        headers.append(("Content-Length", str(len(record.body))))
        buf = io.BytesIO()
        writer = WARCWriter(buf, gzip=True)
        warc_record = writer.create_warc_record(
            record.url, "response", payload=io.BytesIO(record.body), length=len(record.body),
            http_headers=StatusAndHeaders(record.http_status_line or f"{record.status}", headers,
                                          protocol="HTTP/1.1"),
            warc_headers_dict={"WARC-Identified-Content-Language": record.lang or "und"},
        )
        writer.write_record(warc_record)
        fh = self._open()
        fh.write(buf.getvalue())
        fh.flush()
        if self.fsync:
            os.fsync(fh.fileno())

    def _open(self) -> IO[bytes]:
        if self._fh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = self.path.open("ab")
        return self._fh

    def close(self) -> None:
        """Close the file."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def stored_urls(job_dir: str | Path) -> list[str]:
    """Target URIs of every complete response record in a job's WARC files, in run and file order."""
    out: list[str] = []
    for path in sorted((Path(job_dir) / WARC_DIR).glob("*.warc.gz")):
        out.extend(scan_warc(path).urls)
    return out
