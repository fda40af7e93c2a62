"""Shared classification metrics: hand-computed examples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smartcrawl.eval.metrics import classification_metrics, summary_line, write_metrics


def test_hand_computed_three_classes() -> None:
    y_true = ["a", "a", "a", "b", "b", "c"]
    y_pred = ["a", "a", "b", "b", "c", "c"]
    m = classification_metrics(y_true, y_pred)
    # a: P 2/2, R 2/3, F1 0.8 | b: P 1/2, R 1/2, F1 0.5 | c: P 1/2, R 1/1, F1 2/3
    pc = m["per_class"]
    assert pc["a"] == pytest.approx({"precision": 100.0, "recall": 200 / 3, "f1": 80.0, "support": 3})
    assert pc["b"] == pytest.approx({"precision": 50.0, "recall": 50.0, "f1": 50.0, "support": 2})
    assert pc["c"] == pytest.approx({"precision": 50.0, "recall": 100.0, "f1": 200 / 3, "support": 1})
    assert m["macro"]["precision"] == pytest.approx((100 + 50 + 50) / 3)
    assert m["macro"]["recall"] == pytest.approx((200 / 3 + 50 + 100) / 3)
    assert m["macro"]["f1"] == pytest.approx((80 + 50 + 200 / 3) / 3)
    assert m["accuracy"] == pytest.approx(400 / 6)
    assert m["n"] == 6
    assert summary_line(m).startswith("macro P 66.67 R 72.22 F1 65.56")


def test_predicted_only_class_is_not_averaged() -> None:
    # "und" is never gold: it lowers the recall of "a" but is not a class of the macro average.
    m = classification_metrics(["a", "a", "b"], ["a", "und", "b"])
    assert set(m["per_class"]) == {"a", "b"}
    assert m["macro"]["precision"] == pytest.approx(100.0)
    assert m["macro"]["recall"] == pytest.approx(75.0)
    assert m["accuracy"] == pytest.approx(200 / 3)


def test_explicit_labels_and_int_keys() -> None:
    m = classification_metrics([1, 1, 1], [1, 0, 1], labels=[0, 1])
    assert set(m["per_class"]) == {"0", "1"}
    assert m["per_class"]["0"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 0}
    assert m["per_class"]["1"]["precision"] == pytest.approx(100.0)
    assert m["per_class"]["1"]["recall"] == pytest.approx(200 / 3)


def test_errors() -> None:
    with pytest.raises(ValueError):
        classification_metrics([], [])
    with pytest.raises(ValueError):
        classification_metrics(["a"], ["a", "b"])


def test_write_metrics_round_trip(tmp_path: Path) -> None:
    m = classification_metrics(["ísl", "eng"], ["ísl", "ísl"])
    path = write_metrics(tmp_path / "sub" / "metrics.json", {"test": m})
    assert json.loads(path.read_text(encoding="utf-8")) == {"test": m}
