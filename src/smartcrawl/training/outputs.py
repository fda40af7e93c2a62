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


def dev_curve(log_root: Path) -> pd.DataFrame:
    """The dev macro-F1 after each validation, from the CSV logs of every session of a run (``step``, ``dev_macro_f1``)."""
    frames = []
    for path in sorted(log_root.glob("version_*/metrics.csv"), key=lambda p: int(p.parent.name.split("_")[-1])):
        df = pd.read_csv(path)
        if "val/macro_f1" in df:
            frames.append(df.loc[df["val/macro_f1"].notna(), ["step", "val/macro_f1"]])
    if not frames:
        return pd.DataFrame({"step": pd.Series(dtype=int), "dev_macro_f1": pd.Series(dtype=float)})
    out = pd.concat(frames).rename(columns={"val/macro_f1": "dev_macro_f1"})
    return out.drop_duplicates("step", keep="last").sort_values("step").reset_index(drop=True)


def write_run_results(
    results_dir: Path, config_yaml: str, metrics: dict[str, Any], predictions: pd.DataFrame,
    curve: pd.DataFrame | None = None,
) -> None:
    """Write ``config.yaml``, ``metrics.json``, ``predictions.parquet`` and (given) ``dev_curve.csv`` of one run."""
    results_dir.mkdir(parents=True, exist_ok=True)
    (results_dir / "config.yaml").write_text(config_yaml)
    write_metrics(results_dir / "metrics.json", metrics)
    predictions.to_parquet(results_dir / "predictions.parquet", index=False)
    if curve is not None and len(curve):
        curve.to_csv(results_dir / "dev_curve.csv", index=False)
