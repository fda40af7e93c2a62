"""Open a source file (plain or gzip) as bytes and decode it to text one line at a time."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from smartcrawl.data.records import Rejects

_GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"
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


def open_binary(path: str | Path) -> gzip.GzipFile | BinaryIO:
    """Open ``path`` for buffered binary reading, decompressing gzip transparently.

    Compression is detected from the content (magic bytes), so ``x.gz`` that is plain text and a
    gzip file without the suffix both work.
    """
    p = require_path(path)
    if is_gzip(p):
        return gzip.GzipFile(filename=str(p), mode="rb")
    return p.open("rb", buffering=_BUFFER)


def _decode_block(chunk: bytes, rejects: Rejects) -> list[str]:
    """Split a block of whole lines (no final newline) and decode it; bad lines become ``bad_encoding``."""
    try:
        text = chunk.decode("utf-8")
    except UnicodeDecodeError:
        lines: list[str] = []
        for raw in chunk.split(b"\n"):
            try:
                lines.append(raw.decode("utf-8"))
            except UnicodeDecodeError:
                rejects.add("bad_encoding", raw[:300].decode("utf-8", "replace"))
        return _strip_cr(lines)
    lines = text.split("\n")
    return _strip_cr(lines) if "\r" in text else lines


def _strip_cr(lines: list[str]) -> list[str]:
    """Drop the carriage return of CR LF line ends."""
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def iter_line_blocks(path: str | Path, rejects: Rejects, block_size: int = _BUFFER) -> Iterator[list[str]]:
    """Yield the lines of ``path`` decoded as UTF-8, a block (about ``block_size`` bytes) at a time.

    Streaming: only one block (plus a line longer than a block) is held. Lines lose their
    terminator (LF or CR LF); a line that is not valid UTF-8 is counted as ``bad_encoding`` and left
    out; a UTF-8 byte-order mark at the start of the file is dropped. Decoding a whole block at once
    is much faster than line by line.
    """
    with open_binary(path) as f:
        data = f.read(block_size)
        if data.startswith(_BOM):
            data = data[len(_BOM):]
        pending: list[bytes] = []  # the start of a line not yet complete
        while data:
            cut = data.rfind(b"\n")
            if cut < 0:
                pending.append(data)
            else:
                chunk = b"".join([*pending, data[:cut]]) if pending else data[:cut]
                pending = [data[cut + 1:]] if cut + 1 < len(data) else []
                yield _decode_block(chunk, rejects)
            data = f.read(block_size)
        if pending:
            yield _decode_block(b"".join(pending), rejects)


def iter_lines(path: str | Path, rejects: Rejects, *, keepends: bool = False) -> Iterator[str]:
    """Yield the lines of ``path`` decoded as UTF-8, streaming (see :func:`iter_line_blocks`).

    With ``keepends`` every line ends with a line feed (what :mod:`csv` needs for quoted
    multi-line fields).
    """
    for block in iter_line_blocks(path, rejects):
        if keepends:
            for line in block:
                yield line + "\n"
        else:
            yield from block
