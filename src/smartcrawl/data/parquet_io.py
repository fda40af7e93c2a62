"""Streaming Parquet output, one file per split, and the JSON data-set card."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq


class SplitWriter:
    """Buffers rows per split and appends them to ``<out_dir>/<split>.parquet`` in row groups.

    Memory stays bounded by ``batch_rows`` rows per split whatever the input size.
    """

    def __init__(self, out_dir: str | Path, schema: pa.Schema, splits: Sequence[str], batch_rows: int = 65536) -> None:
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.schema = schema
        self.batch_rows = batch_rows
        self._buffers: dict[str, dict[str, list[Any]]] = {s: {f.name: [] for f in schema} for s in splits}
        self._writers: dict[str, pq.ParquetWriter] = {}
        self.rows: dict[str, int] = {s: 0 for s in splits}

    def write(self, split: str, row: Mapping[str, Any]) -> None:
        """Add one row to ``split``."""
        buf = self._buffers[split]
        for name, col in buf.items():
            col.append(row[name])
        self.rows[split] += 1
        if len(next(iter(buf.values()))) >= self.batch_rows:
            self._flush(split)

    def write_columns(self, split: str, columns: Mapping[str, Sequence[Any]]) -> None:
        """Add many rows to ``split`` given as equal-length columns."""
        buf = self._buffers[split]
        n = len(next(iter(columns.values())))
        for name, col in buf.items():
            col.extend(columns[name])
        self.rows[split] += n
        if len(next(iter(buf.values()))) >= self.batch_rows:
            self._flush(split)

    def close(self) -> dict[str, Path]:
        """Flush everything, close the files (an empty split still gets a file) and return their paths."""
        paths = {}
        for split in self._buffers:
            self._flush(split, force_file=True)
            self._writers[split].close()
            paths[split] = self.out_dir / f"{split}.parquet"
        self._writers.clear()
        return paths

    def _flush(self, split: str, force_file: bool = False) -> None:
        buf = self._buffers[split]
        n = len(next(iter(buf.values())))
        if n == 0 and not force_file:
            return
        if split not in self._writers:
            self._writers[split] = pq.ParquetWriter(self.out_dir / f"{split}.parquet", self.schema)
        if n:
            table = pa.Table.from_pydict(buf, schema=self.schema)
            self._writers[split].write_table(table)
            for col in buf.values():
                col.clear()


def write_card(path: str | Path, card: Mapping[str, Any]) -> None:
    """Write a data-set card as indented JSON."""
    Path(path).write_text(json.dumps(card, indent=2, ensure_ascii=False, sort_keys=False) + "\n")
