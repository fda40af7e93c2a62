"""Open a source file (plain or gzip) as bytes and decode it to text one line at a time."""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from smartcrawl.data.records import Rejects

_GZIP_MAGIC = b"\x1f\x8b"
_BUFFER = 1 << 20


def require_path(path: str | Path) -> Path:
    """Return ``path`` as a :class:`Path`; raise :class:`FileNotFoundError` naming it if it does not exist."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"source path does not exist: {str(p)!r}")
    return p


def is_gzip(path: Path) -> bool:
    """True when the file starts with the gzip magic bytes (whatever its name)."""
    with path.open("rb") as f:
        return f.read(2) == _GZIP_MAGIC


def open_binary(path: str | Path) -> BinaryIO:
    """Open ``path`` for buffered binary reading, decompressing gzip transparently.

    Compression is detected from the content (magic bytes), so ``x.gz`` that is plain text and a
    gzip file without the suffix both work.
    """
    p = require_path(path)
    if is_gzip(p):
        return io.BufferedReader(gzip.GzipFile(filename=str(p), mode="rb"), buffer_size=_BUFFER)
    return p.open("rb", buffering=_BUFFER)


def iter_lines(path: str | Path, rejects: Rejects, *, keepends: bool = False) -> Iterator[str]:
    """Yield the lines of ``path`` decoded as UTF-8, streaming.

    A line that is not valid UTF-8 is counted as ``bad_encoding`` and skipped. Without
    ``keepends`` the line terminator (``\\n`` or ``\\r\\n``) is removed. A UTF-8 byte-order mark at the
    start of the file is dropped.
    """
    with open_binary(path) as f:
        first = True
        for raw in f:
            if first:
                first = False
                if raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                rejects.add("bad_encoding", raw[:300].decode("utf-8", "replace"))
                continue
            yield line if keepends else line.rstrip("\r\n")
