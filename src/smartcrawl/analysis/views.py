"""Predictions of different runs in one shape, restricted to the rows they share, and their metrics.

Runs are scored on different test rows (a trained run may cap its test split with
``train.max_test``; a baseline scores all of it), so the tables compare systems on the rows every
compared run predicted (the *common rows*), with the one metric function of the project
(:func:`smartcrawl.eval.metrics.classification_metrics`: macro over the gold classes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from smartcrawl.analysis.results_io import Run
from smartcrawl.eval.metrics import classification_metrics

PARALLEL_LABELS: tuple[str, str] = ("non-parallel", "parallel")
_BINARY = {"0": "non-parallel", "1": "parallel", "False": "non-parallel", "True": "parallel",
           "non-parallel": "non-parallel", "parallel": "parallel"}


def langid_predictions(run: Run) -> pd.DataFrame | None:
    """``key`` (URL), ``url``, ``gold`` (the data's language label) and ``pred`` of a language-ID run."""
    df = run.predictions()
    if df is None or "url" not in df.columns or "pred" not in df.columns:
        return None
    gold_col = "lang" if "lang" in df.columns else "gold"
    out = pd.DataFrame({"url": df["url"].astype(str), "gold": df[gold_col].astype(str),
                        "pred": df["pred"].astype(str)})
    out["key"] = out["url"] + "\t" + out["gold"]
    return out.drop_duplicates("key").reset_index(drop=True)


def _binary(values: pd.Series) -> pd.Series:
    return values.astype(str).map(lambda v: _BINARY.get(v, v))


def _langs_equal(pair: str) -> bool:
    parts = pair.split("-")
    return len(parts) == 2 and parts[0] == parts[1]


def parallel_predictions(run: Run, split: str = "test") -> pd.DataFrame | None:
    """``key``, ``gold``/``pred`` (``parallel``/``non-parallel``) and ``group`` (language pair) of a pair run.

    ``group`` is ``origin_pair`` when the predictions have it (monolingual negatives keep the pair they
    were made for), else ``pair``. Rows of other splits (a baseline scores ``test`` and ``wmt16_test``)
    are dropped.
    """
    df = run.predictions()
    if df is None or not {"src_url", "trg_url"} <= set(df.columns) or "pred" not in df.columns:
        return None
    if "split" in df.columns:
        df = df[df["split"] == split]
    gold = df["gold"] if "gold" in df.columns else df["label"]
    group = df["origin_pair"] if "origin_pair" in df.columns else df.get("pair", pd.Series("", index=df.index))
    out = pd.DataFrame({"gold": _binary(gold).to_numpy(), "pred": _binary(df["pred"]).to_numpy(),
                        "group": group.astype(str).to_numpy(),
                        "has_origin": "origin_pair" in df.columns})
    label = df["label"].astype(str) if "label" in df.columns else out["gold"]
    kind = df["kind"].astype(str) if "kind" in df.columns else pd.Series("", index=df.index)
    out["key"] = (df["src_url"].astype(str) + "\t" + df["trg_url"].astype(str) + "\t" + _binary(label) + "\t"
                  + kind).to_numpy()
    return out.drop_duplicates("key").reset_index(drop=True)


def common_rows(frames: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Each frame restricted to the keys all frames share (in the first frame's order)."""
    if not frames:
        return {}
    keys: set[str] | None = None
    for df in frames.values():
        keys = set(df["key"]) if keys is None else keys & set(df["key"])
    assert keys is not None
    return {name: df[df["key"].isin(keys)].sort_values("key").reset_index(drop=True) for name, df in frames.items()}


def metrics_of(df: pd.DataFrame, labels: Sequence[str] | None = None) -> dict[str, Any] | None:
    """:func:`classification_metrics` of a ``gold``/``pred`` frame; None when it is empty."""
    if df.empty:
        return None
    return classification_metrics(df["gold"].tolist(), df["pred"].tolist(), labels=labels)


def per_group_macro_f1(df: pd.DataFrame, labels: Sequence[str] = PARALLEL_LABELS) -> pd.DataFrame:
    """Macro-F1 per ``group`` (language pair) over groups holding both classes.

    Without ``origin_pair`` in the predictions, same-language groups (``eng-eng``: monolingual
    negatives pooled over every pair) hold only negatives and are left out.
    """
    rows = []
    for group, sub in df.groupby("group", sort=True):
        if sub["gold"].nunique() < len(labels) or _langs_equal(str(group)):
            continue
        m = classification_metrics(sub["gold"].tolist(), sub["pred"].tolist(), labels=list(labels))
        rows.append({"pair": str(group), "rows": len(sub), "positives": int((sub["gold"] == labels[-1]).sum()),
                     "macro_f1": m["macro"]["f1"]})
    return pd.DataFrame(rows, columns=["pair", "rows", "positives", "macro_f1"])
