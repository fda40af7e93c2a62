"""The server's request log: one JSON object per line, written through a bounded buffer.

Fields: ``time`` (Unix seconds), ``client`` (``ip:port``), ``method``, ``url``, ``status``,
``bytes`` (body bytes sent), ``latency_ms`` (from the parsed request to the written response,
injected delay included) and ``injected`` (true for an injected error). The file is appended to;
at most :data:`BUFFER_BYTES` wait in memory, and :meth:`RequestLog.flush` (called every second by
the server and at stop) pushes them to disk.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO

BUFFER_BYTES = 1 << 16


class RequestLog:
    """Append request records to a JSONL file (or drop them when ``path`` is ``None``)."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path is not None else None
        self._fh: IO[str] | None = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.path, "a", buffering=BUFFER_BYTES, encoding="utf-8")  # noqa: SIM115

    def write(self, time: float, client: str, method: str, url: str, status: int, nbytes: int,
              latency_ms: float, injected: bool) -> None:
        """Record one request."""
        if self._fh is None:
            return
        record = {
            "time": round(time, 6), "client": client, "method": method, "url": url, "status": status,
            "bytes": nbytes, "latency_ms": round(latency_ms, 3), "injected": injected,
        }
        self._fh.write(json.dumps(record, ensure_ascii=False) + "\n")

    def flush(self) -> None:
        """Push buffered records to the file."""
        if self._fh is not None:
            self._fh.flush()

    def close(self) -> None:
        """Flush and close the file."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None
