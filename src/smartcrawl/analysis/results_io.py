"""Reading what runs wrote under ``results/``: run directories, their metrics, configs and predictions.

A run is a directory ``results/<task>/<run>/`` (``task`` is ``langid``, ``parallel``, ``wmt16``,
``parallel-fixed``, ...). It is *complete* when it holds ``metrics.json``; ``config.yaml`` and
``predictions.parquet`` are optional. Nothing here fails on a missing run: look-ups return ``None``
and the tables say "not run".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

# Result directories written by the baselines (their metrics.json has a "model" key and no "task").
BASELINE_MODELS: frozenset[str] = frozenset({"url_rules", "fasttext_url", "url_matching"})


@dataclass(frozen=True)
class Run:
    """One results directory ``<results>/<task>/<name>/``."""

    task: str
    name: str
    path: Path
    metrics: dict[str, Any] | None = field(default=None, compare=False, repr=False)

    @property
    def complete(self) -> bool:
        """Whether the run wrote ``metrics.json``."""
        return self.metrics is not None

    @cached_property
    def config(self) -> dict[str, Any]:
        """``config.yaml`` as a dict (empty when absent or unreadable)."""
        path = self.path / "config.yaml"
        if not path.is_file():
            return {}
        try:
            loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError:
            return {}
        return loaded if isinstance(loaded, dict) else {}

    @property
    def model(self) -> str:
        """The ``model`` field of the metrics (``url_rules``, ``me5-small-2l``, ...), else the run name."""
        return str((self.metrics or {}).get("model") or self.name)

    @property
    def is_baseline(self) -> bool:
        """A URL-rules, FastText or URL-matching baseline (not a fine-tuned encoder)."""
        return self.model in BASELINE_MODELS or str((self.metrics or {}).get("scorer", "")) in BASELINE_MODELS

    @property
    def dev_f1(self) -> float | None:
        """Best dev macro-F1 of a trained run, or the dev macro-F1 a baseline reports; None if unknown."""
        m = self.metrics or {}
        if m.get("best_dev_macro_f1") is not None:
            return float(m["best_dev_macro_f1"])
        dev = m.get("dev")
        if isinstance(dev, dict) and isinstance(dev.get("macro"), dict):
            return float(dev["macro"]["f1"])
        return None

    def split_metrics(self, split: str = "test") -> dict[str, Any] | None:
        """The ``{"macro", "per_class", "accuracy", "n"}`` block of one split, or None."""
        block = (self.metrics or {}).get(split)
        return block if isinstance(block, dict) and "macro" in block else None

    def config_value(self, dotted: str, default: Any = None) -> Any:
        """A value of ``config.yaml`` by dotted key (``model.reinit_top_layers``), or ``default``."""
        node: Any = self.config
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node

    @property
    def predictions_path(self) -> Path:
        """``predictions.parquet`` of the run (may not exist)."""
        return self.path / "predictions.parquet"

    def predictions(self) -> pd.DataFrame | None:
        """The run's predictions, or None when it has none."""
        return pd.read_parquet(self.predictions_path) if self.predictions_path.is_file() else None


def _read_json(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def load_run(results: str | Path, task: str, name: str) -> Run | None:
    """The run ``<results>/<task>/<name>/`` when that directory exists (complete or not), else None."""
    path = Path(results) / task / name
    if not path.is_dir():
        return None
    return Run(task=task, name=name, path=path, metrics=_read_json(path / "metrics.json"))


def list_runs(results: str | Path, task: str, complete_only: bool = True) -> list[Run]:
    """Every run directory of a task, sorted by name (only those with ``metrics.json`` by default)."""
    root = Path(results) / task
    if not root.is_dir():
        return []
    runs = [load_run(results, task, p.name) for p in sorted(root.iterdir()) if p.is_dir()]
    return [r for r in runs if r is not None and (r.complete or not complete_only)]


def incomplete_runs(results: str | Path, task: str) -> list[Run]:
    """Run directories without ``metrics.json`` (interrupted or partial runs)."""
    return [r for r in list_runs(results, task, complete_only=False) if not r.complete]


def load_card(results: str | Path, stem: str) -> dict[str, Any] | None:
    """A data-set card ``<results>/data/<stem>.card.json`` (``langid``, ``parallel-rand+jaccard+remove``)."""
    return _read_json(Path(results) / "data" / f"{stem}.card.json")


def load_json(path: str | Path) -> dict[str, Any] | None:
    """Any JSON object file, or None when absent or unreadable."""
    return _read_json(Path(path))
