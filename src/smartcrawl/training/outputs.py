"""What a training run leaves behind: the model directory and the run's results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from smartcrawl.eval.metrics import write_metrics

MODEL_CARD = "smartcrawl.json"
PREPROCESSING = "strip-scheme+percent-decode+split-slash"


def save_model_dir(
    out_dir: Path, model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, task: str, labels: list[str],
    max_length: int, extra: dict[str, Any] | None = None,
) -> Path:
    """Save a model loadable with ``from_pretrained`` plus ``smartcrawl.json`` (task, labels, pre-processing)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    model.config.id2label = dict(enumerate(labels))
    model.config.label2id = {name: i for i, name in enumerate(labels)}
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    card = {"task": task, "labels": labels, "preprocessing": PREPROCESSING, "max_length": max_length, **(extra or {})}
    (out_dir / MODEL_CARD).write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n")
    return out_dir


def write_run_results(
    results_dir: Path, config_yaml: str, metrics: dict[str, Any], predictions: pd.DataFrame
) -> None:
    """Write ``config.yaml``, ``metrics.json`` and ``predictions.parquet`` of one run."""
    results_dir.mkdir(parents=True, exist_ok=True)
    (results_dir / "config.yaml").write_text(config_yaml)
    write_metrics(results_dir / "metrics.json", metrics)
    predictions.to_parquet(results_dir / "predictions.parquet", index=False)
