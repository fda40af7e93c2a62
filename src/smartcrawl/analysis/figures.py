"""The report's figures, drawn with matplotlib (Agg) from the tables of :mod:`smartcrawl.analysis.tables`."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

SYSTEM_COLORS: dict[str, str] = {"URL rules (baseline)": "#4C72B0", "URL matching (baseline)": "#4C72B0",
                                 "FastText": "#C44E52", "Ours": "#DD8452"}
SPLIT_COLORS: dict[str, str] = {"train": "#4C72B0", "dev": "#C44E52", "test": "#CCB974", "wmt16_test": "#55A868"}


def save_figure(fig: Figure, out_dir: str | Path, stem: str) -> list[Path]:
    """Write ``<stem>.png`` (150 dpi) and ``<stem>.pdf`` into ``out_dir``; closes the figure; returns the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{stem}.png", out / f"{stem}.pdf"]
    fig.savefig(paths[0], dpi=150, bbox_inches="tight")
    fig.savefig(paths[1], bbox_inches="tight", metadata={"CreationDate": None})
    plt.close(fig)
    return paths


def _empty(message: str, size: tuple[float, float] = (6.0, 2.0)) -> Figure:
    fig, ax = plt.subplots(figsize=size)
    ax.axis("off")
    ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=10, wrap=True)
    return fig


def _num(series: pd.Series) -> pd.Series:
    return pd.to_numeric(series, errors="coerce")


def figure2_languages(df: pd.DataFrame, splits: list[str]) -> Figure:
    """Figure 2: horizontal bars of URLs per language, one bar per split, log scale."""
    if df.empty:
        return _empty("not run: no language-ID data card (python prepare_data.py task=langid)")
    n = len(df)
    fig, ax = plt.subplots(figsize=(6.5, max(3.0, 0.28 * n + 1.0)))
    height = 0.8 / max(1, len(splits))
    for i, split in enumerate(splits):
        pos = [j + (i - (len(splits) - 1) / 2) * height for j in range(n)]
        ax.barh(pos, df[split].clip(lower=0.9), height=height, label=split, color=SPLIT_COLORS.get(split))
    ax.set_yticks(range(n))
    ax.set_yticklabels(df["language"], fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("URLs (log scale)")
    ax.set_title("URLs per language and split (language ID)")
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    return fig


def _bars(ax: Any, df: pd.DataFrame, labels: list[str], key: str, ylabel: str) -> None:
    n = len(df)
    width = 0.8 / len(labels)
    for i, label in enumerate(labels):
        xs = [j + (i - (len(labels) - 1) / 2) * width for j in range(n)]
        ax.bar(xs, _num(df[label]).fillna(0.0), width=width, label=label, color=SYSTEM_COLORS.get(label))
    ax.set_xticks(range(n))
    ax.set_xticklabels(df[key], rotation=90 if n > 12 else 0, fontsize=8)
    ax.set_ylim(0, 100)
    ax.set_ylabel(ylabel)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="lower left")


def figure3_per_language(df: pd.DataFrame, systems: list[str]) -> Figure:
    """Figure 3: per-language F1, ours against each baseline (one panel per baseline)."""
    if df.empty or not systems:
        return _empty("not run: no language-ID predictions (or no language passes the URL/domain filter)")
    baselines = [s for s in systems if s != "Ours"]
    panels = [[b, "Ours"] for b in baselines] if "Ours" in systems else [[b] for b in baselines] or [["Ours"]]
    fig, axes = plt.subplots(len(panels), 1, figsize=(max(6.0, 0.35 * len(df) + 2), 3.4 * len(panels)),
                             squeeze=False)
    for ax, labels in zip(axes[:, 0], panels, strict=True):
        _bars(ax, df, labels, "language", "F1 (%)")
        ax.set_title(" vs ".join(reversed(labels)))
    fig.tight_layout()
    return fig


def figure5_pairs(df: pd.DataFrame) -> Figure:
    """Figure 5: macro-F1 per language pair, baseline and ours."""
    labels = [c for c in ("URL matching (baseline)", "Ours") if c in df.columns and _num(df[c]).notna().any()]
    if df.empty or not labels:
        return _empty("not run: no pair-classifier predictions")
    df = df.assign(_o=_num(df[labels[-1]])).sort_values("_o", ascending=False)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.4 * len(df) + 2), 3.8))
    _bars(ax, df, labels, "pair", "macro-F1 (%)")
    ax.set_title("URL-pair parallelism: macro-F1 per language pair")
    fig.tight_layout()
    return fig


def figure7_crawl(dirs: list[str], title: str) -> Figure:
    """Figure 7: one panel per pair (found vs % of each site's downloads), via :mod:`crawl_figure`."""
    from smartcrawl.analysis.crawl_figure import draw_panel, load

    if not dirs:
        return _empty("not run: no crawl results")
    cols = min(2, len(dirs))
    rows = math.ceil(len(dirs) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.0 * cols, 3.6 * rows), squeeze=False)
    for ax, d in zip(axes.flat, dirs, strict=False):
        curves, summary = load(d)
        draw_panel(ax, curves, summary, title=f"{'-'.join(summary['pair'])} ({summary['sites']} sites)")
    for ax in list(axes.flat)[len(dirs):]:
        ax.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8, bbox_to_anchor=(0.5, -0.02))
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig


def appendix_a_negatives(df: pd.DataFrame) -> Figure:
    """Appendix A: a horizontal bar per combination of negative generators (fixed-test F1 or WMT16 recall)."""
    keys = ("fixed test F1", "WMT16 recall", "dev F1")
    key = next((k for k in keys if k in df.columns and _num(df[k]).notna().any()), None)
    if df.empty or key is None:
        return _empty("not run: no Appendix-A runs (experiments/appendix_a_negatives.py)")
    fig, ax = plt.subplots(figsize=(6.5, max(2.5, 0.3 * len(df) + 1)))
    colors = ["#DD8452" if best == "yes" else "#4C72B0" for best in df["paper's best"]]
    ax.barh(range(len(df)), _num(df[key]).fillna(0.0), color=colors)
    ax.set_yticks(range(len(df)))
    ax.set_yticklabels(df["generators"], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel(f"{key} (%) (orange: the paper's best combination)")
    ax.set_xlim(0, 100)
    ax.grid(True, axis="x", alpha=0.3)
    return fig


def ablation_reinit(df: pd.DataFrame) -> Figure:
    """Re-initialised top layers n against dev and test macro-F1."""
    if df.empty:
        return _empty("not run: no re-initialisation runs (experiments/ablation_reinit.py)")
    fig, ax = plt.subplots(figsize=(5.0, 3.2))
    for col, marker in (("dev F1", "o"), ("test F1", "s")):
        ax.plot(_num(df["n"]), _num(df[col]), marker=marker, label=col)
    ax.set_xlabel("re-initialised top layers n")
    ax.set_ylabel("macro-F1 (%)")
    ax.set_xticks(range(0, 6))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def ablation_curriculum(df: pd.DataFrame) -> Figure:
    """Curriculum against all data at once: dev and test macro-F1 bars."""
    if df.empty:
        return _empty("not run: no curriculum runs (experiments/ablation_curriculum.py)")
    fig, ax = plt.subplots(figsize=(5.0, 3.2))
    width = 0.38
    xs = range(len(df))
    ax.bar([x - width / 2 for x in xs], _num(df["dev F1"]).fillna(0), width, label="dev F1")
    ax.bar([x + width / 2 for x in xs], _num(df["test F1"]).fillna(0), width, label="test F1")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(df["curriculum"], fontsize=8)
    ax.set_ylabel("macro-F1 (%)")
    ax.set_ylim(0, 100)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    return fig
