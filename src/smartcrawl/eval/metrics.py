"""Per-class and macro precision / recall / F1 from label lists: the one place metrics are computed.

Every model and baseline reports its results through :func:`classification_metrics`, so the numbers
of different systems are always comparable. The output is a plain, JSON-ready dict with values in
percent::

    {"macro": {"precision", "recall", "f1"},
     "per_class": {label: {"precision", "recall", "f1", "support"}},
     "accuracy", "n"}

The macro average runs over the classes of the gold labels (as in the paper authors' evaluation
script): a prediction of a class that never occurs in the gold labels, e.g. the rule baseline's
``und``, counts as an error of the true class (lower recall) but is not a class of its own.
Pass ``labels`` to average over another set.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sklearn.metrics import accuracy_score, precision_recall_fscore_support

Metrics = dict[str, Any]


def _pct(x: float) -> float:
    return float(x) * 100.0


def classification_metrics(
    y_true: Sequence[Hashable],
    y_pred: Sequence[Hashable],
    labels: Sequence[Hashable] | None = None,
) -> Metrics:
    """Macro and per-class P/R/F1 (in percent), accuracy and count of two equal-length label lists.

    ``labels`` are the classes to report and average over; by default the sorted set of gold labels.
    A class with no prediction (or no support) gets 0 for the undefined ratio, as sklearn's
    ``zero_division=0``. Per-class keys are the labels as strings, so the dict round-trips through JSON.
    """
    if len(y_true) != len(y_pred):
        raise ValueError(f"y_true and y_pred differ in length: {len(y_true)} != {len(y_pred)}")
    if not y_true:
        raise ValueError("cannot compute metrics of an empty label list")
    classes = list(labels) if labels is not None else sorted(set(y_true), key=str)
    if not classes:
        raise ValueError("no classes to evaluate")
    precision, recall, f1, support = precision_recall_fscore_support(
        list(y_true), list(y_pred), labels=classes, average=None, zero_division=0
    )
    per_class = {
        str(c): {"precision": _pct(p), "recall": _pct(r), "f1": _pct(f), "support": int(s)}
        for c, p, r, f, s in zip(classes, precision, recall, f1, support)
    }
    n_classes = len(classes)
    macro = {
        "precision": sum(v["precision"] for v in per_class.values()) / n_classes,
        "recall": sum(v["recall"] for v in per_class.values()) / n_classes,
        "f1": sum(v["f1"] for v in per_class.values()) / n_classes,
    }
    return {
        "macro": macro,
        "per_class": per_class,
        "accuracy": _pct(accuracy_score(list(y_true), list(y_pred))),
        "n": len(y_true),
    }


def summary_line(metrics: Mapping[str, Any]) -> str:
    """One human-readable line: macro P/R/F1, accuracy and count."""
    m = metrics["macro"]
    return (
        f"macro P {m['precision']:.2f} R {m['recall']:.2f} F1 {m['f1']:.2f} | "
        f"acc {metrics['accuracy']:.2f} | n {metrics['n']}"
    )


def write_metrics(path: str | Path, metrics: Mapping[str, Any]) -> Path:
    """Write a metrics dict (or any JSON-ready results dict) as indented UTF-8 JSON; returns the path.

    Parent directories are created.
    """
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(metrics, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return out
