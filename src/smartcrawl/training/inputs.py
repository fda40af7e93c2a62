"""What the classifiers read: pre-processed URLs (one, or a pair) and their label indices."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from smartcrawl.pair_view import pair_inputs
from smartcrawl.urls import preprocess_url

TASKS: tuple[str, ...] = ("langid", "parallel")
PARALLEL_LABELS: tuple[str, ...] = ("non-parallel", "parallel")


@dataclass
class Examples:
    """Pre-processed inputs and integer labels of one split."""

    texts: list[str]
    pairs: list[str] | None
    labels: list[int]
    raw: pd.DataFrame  # the rows' original columns (URLs, gold label), for the predictions file

    def __len__(self) -> int:
        return len(self.labels)


def label_names(task: str, train_file: Path) -> list[str]:
    """The label set: the training languages (sorted, plus ``und``) or the two parallel classes."""
    if task == "parallel":
        return list(PARALLEL_LABELS)
    langs = set(pd.read_parquet(train_file, columns=["lang"])["lang"].unique())
    langs.add("und")
    return sorted(langs)


def load_examples(task: str, path: Path, labels: Sequence[str], limit: int | None = None,
                  pair_view: str = "plain") -> tuple[Examples, int]:
    """Read a prepared split; returns the examples and how many rows had a label outside ``labels``.

    ``pair_view`` (task ``parallel``): how the two URLs are shown, :mod:`smartcrawl.pair_view`.

    Rows are kept in file order (the files are shuffled when written), so ``limit`` takes a
    uniform sample and the curriculum's prefix grows over a fixed random order.
    """
    if task == "langid":
        df = pd.read_parquet(path, columns=["url", "lang"])
        index = {name: i for i, name in enumerate(labels)}
        known = df["lang"].isin(index)
        unknown = int((~known).sum())
        df = df[known]
        if limit is not None:
            df = df.iloc[:limit]
        df = df.reset_index(drop=True)
        return Examples([preprocess_url(u) for u in df["url"]], None, [index[x] for x in df["lang"]], df), unknown
    if task == "parallel":
        df = pd.read_parquet(path, columns=["src_url", "trg_url", "pair", "kind", "label"])
        if limit is not None:
            df = df.iloc[:limit]
        df = df.reset_index(drop=True)
        first, second = pair_inputs(list(df["src_url"]), list(df["trg_url"]), pair_view)
        return Examples(first, second, [int(x) for x in df["label"]], df), 0
    raise ValueError(f"task: unknown task {task!r}; allowed: {', '.join(TASKS)}")
