"""What the scripts under ``benchmarks/`` share: the machine's figures and the result JSON file.

Every result file records the CPU count and the 1-minute load average (other processes skew the
figures on a shared machine), and is written as indented JSON, creating its folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def load_average() -> float:
    """The machine's 1-minute load average, rounded to 2 decimals."""
    return round(os.getloadavg()[0], 2)


def machine_info(load_before: float | None = None, *, split: bool = False) -> dict[str, Any]:
    """``cpus`` and the 1-minute load average now (``load_average_1min``).

    With ``load_before`` (a :func:`load_average` taken when the benchmark started) the load is
    ``[before, now]``; with ``split`` as well, two keys ``load_average_1min_before`` and ``_after``.
    """
    now = load_average()
    if load_before is None:
        return {"cpus": os.cpu_count(), "load_average_1min": now}
    if split:
        return {"cpus": os.cpu_count(), "load_average_1min_before": load_before, "load_average_1min_after": now}
    return {"cpus": os.cpu_count(), "load_average_1min": [load_before, now]}


def write_result(path: Path | None, result: dict[str, Any]) -> None:
    """Write ``result`` as indented JSON to ``path`` (its folder created); nothing when ``path`` is None."""
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")
