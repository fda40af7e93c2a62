"""The paper's Figure 7 from ``results/crawl/<pair>/<web>/``: parallel documents found by decile, and a table.

:func:`render` reads ``curves.csv`` and ``summary.json`` of one results dir (what ``crawl_eval.py``
writes) and writes ``figure.png``, ``figure.pdf`` (one panel: each strategy, plus the random and
oracle references), ``table.md`` (found parallel documents by decile per curve, AUC as a share of
the oracle's, pages/s and the share of crawl time spent scoring) and ``sites.md`` (the same AUC
share per site, :mod:`smartcrawl.analysis.crawl_sites`). :func:`render_pairs` draws one
panel per language pair, as the paper does::

    python -m smartcrawl.analysis.crawl_figure results/crawl --web websim   # every pair found
    python -m smartcrawl.analysis.crawl_figure results/crawl/eng-mlt/websim  # one results dir
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

# How the paper names the three crawlers (Heritrix, Heritrix+CLD2, Heritrix+CLD2+smart), by strategy name.
PAPER_LABELS: Mapping[str, str] = {"bfs": "BFS (Heritrix)", "cld2": "+CLD2", "smart": "+CLD2+smart"}
# Our additions to the smart strategy (StrategyConfig flags), as they appear in a label.
OUR_SIGNALS: Mapping[str, str] = {"link_hints": "link hints", "counterparts": "counterparts",
                                  "language_marks": "language marks",
                                  "min_score": "score floor", "balance_languages": "language lanes"}
REFERENCE_LABELS: Mapping[str, str] = {"random": "random order", "oracle": "oracle order"}
REFERENCE_STYLES: Mapping[str, Mapping[str, Any]] = {
    "random": {"color": "0.55", "linestyle": "--", "marker": None},
    "oracle": {"color": "0.2", "linestyle": ":", "marker": None},
}
STRATEGY_MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "P", "X")


def load(results_dir: str | Path) -> tuple[pd.DataFrame, dict[str, Any]]:
    """``curves.csv`` (summed curves) and ``summary.json`` of a results dir."""
    root = Path(results_dir)
    return pd.read_csv(root / "curves.csv"), json.loads((root / "summary.json").read_text(encoding="utf-8"))


def label_of(curve: str, summary: Mapping[str, Any]) -> str:
    """Display name of a curve: the paper's crawler name for a plain bfs/cld2/smart; smart with our signals says so."""
    if curve in REFERENCE_LABELS:
        return REFERENCE_LABELS[curve]
    info = summary.get("strategies", {}).get(curve, {})
    strategy = info.get("strategy", {})
    name = strategy.get("name", curve)
    ours = [text for key, text in OUR_SIGNALS.items() if strategy.get(key)]
    if name == "smart" and ours:
        return "+CLD2+smart +" + " +".join(ours) + " (ours)"
    if curve == name and name in PAPER_LABELS:
        return PAPER_LABELS[name]
    return curve


def curve_order(summary: Mapping[str, Any]) -> list[str]:
    """Strategies in run order, then the references."""
    return [*summary.get("strategies", {}), *[r for r in REFERENCE_LABELS if r in summary.get("references", {})]]


def draw_panel(ax: Any, curves: pd.DataFrame, summary: Mapping[str, Any], title: str | None = None) -> None:
    """Draw one Figure-7 panel (found vs % of each site's downloads) on a matplotlib axis."""
    for i, name in enumerate(curve_order(summary)):
        sub = curves[curves["curve"] == name].sort_values("point")
        style = dict(REFERENCE_STYLES.get(name, {"marker": STRATEGY_MARKERS[i % len(STRATEGY_MARKERS)]}))
        ax.plot(sub["percent"], sub["found"], label=label_of(name, summary), markersize=4, linewidth=1.5, **style)
    ax.set_xlabel("% of each site's downloads")
    ax.set_ylabel("parallel documents found")
    ax.set_xlim(0, 100)
    ax.set_ylim(bottom=0)
    ax.set_xticks(range(0, 101, 10))
    ax.grid(True, alpha=0.3)
    ax.set_title(title or f"{'-'.join(summary['pair'])} ({summary['web']}, {summary['sites']} sites)")


def _fmt(x: Any, digits: int = 0) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{float(x):,.{digits}f}"


def _pct(share: Any) -> str:
    return "–" if share is None else f"{100 * float(share):.1f} %"


def markdown_table(curves: pd.DataFrame, summary: Mapping[str, Any]) -> str:
    """Found parallel documents at each point per curve, AUC share of the oracle, pages/s and scoring share."""
    percents = [p for p in summary["percent"] if p > 0]
    head = "| crawler | " + " | ".join(f"{p:g} %" for p in percents) + \
        " | AUC / oracle | downloads | pages/s | scoring share |"
    lines = [
        f"Parallel documents found ({'-'.join(summary['pair'])}, web {summary['web']}: {summary['sites']} sites; "
        f"{summary['truth']['pairs_crawled_sites']:,} pairs in their truth, {summary['truth']['pairs_reached']:,.0f} "
        "among the pages the crawls reached), summed over sites after each share of each site's downloads.",
        "",
        head,
        "|---|" + "---:|" * (len(percents) + 4),
    ]
    for name in curve_order(summary):
        sub = curves[(curves["curve"] == name) & (curves["point"] > 0)].sort_values("point")
        info = summary["strategies"].get(name) or summary["references"].get(name, {})
        digits = 1 if name == "random" else 0
        cells = [_fmt(v, digits) for v in sub["found"]]
        speed = [_fmt(info.get("downloads"), 0), _fmt(info.get("pages_per_s"), 1),
                 _pct(info.get("scoring_share"))]
        lines.append(f"| {label_of(name, summary)} | " + " | ".join(cells) +
                     f" | {_pct(info.get('auc_share_oracle'))} | " + " | ".join(speed) + " |")
    return "\n".join(lines) + "\n"


def _save(fig: Any, out_dir: Path, stem: str) -> list[Path]:
    paths = [out_dir / f"{stem}.png", out_dir / f"{stem}.pdf"]
    fig.savefig(paths[0], dpi=150, bbox_inches="tight")
    fig.savefig(paths[1], bbox_inches="tight")
    return paths


def render(results_dir: str | Path) -> list[Path]:
    """Write ``figure.png``, ``figure.pdf`` and ``table.md`` into a results dir; returns their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    root = Path(results_dir)
    curves, summary = load(root)
    fig, ax = plt.subplots(figsize=(5.2, 3.8))
    draw_panel(ax, curves, summary)
    ax.legend(fontsize=8, loc="upper left")
    paths = _save(fig, root, "figure")
    plt.close(fig)
    table = root / "table.md"
    table.write_text(markdown_table(curves, summary), encoding="utf-8")
    return [*paths, table, *_site_tables([root])]


def _site_tables(dirs: Sequence[Path]) -> list[Path]:
    """``sites.md`` (:mod:`smartcrawl.analysis.crawl_sites`) in each results dir with per-site curves."""
    from smartcrawl.analysis import crawl_sites

    return [crawl_sites.render(d) for d in dirs if (d / "curves_sites.csv").is_file()]


def find_results(results_root: str | Path, web: str, pairs: Sequence[str] | None = None) -> list[Path]:
    """Results dirs ``<results_root>/<pair>/<web>/`` holding a summary, for ``pairs`` (default: every pair found)."""
    root = Path(results_root)
    names = list(pairs) if pairs else sorted(p.name for p in root.iterdir() if p.is_dir())
    return [root / n / web for n in names if (root / n / web / "summary.json").is_file()]


def render_pairs(results_root: str | Path, web: str, pairs: Sequence[str] | None = None) -> list[Path]:
    """One panel per pair (the paper's Figure 7 layout) into ``<results_root>/figure7-<web>.{png,pdf}`` and a table."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dirs = find_results(results_root, web, pairs)
    if not dirs:
        raise FileNotFoundError(f"no results for web {web!r} under {results_root}")
    cols = min(2, len(dirs))
    rows = math.ceil(len(dirs) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.0 * cols, 3.6 * rows), squeeze=False)
    tables = []
    for ax, d in zip(axes.flat, dirs, strict=False):
        curves, summary = load(d)
        draw_panel(ax, curves, summary, title=f"{'-'.join(summary['pair'])} ({summary['sites']} sites)")
        tables.append(markdown_table(curves, summary))
    for ax in list(axes.flat)[len(dirs):]:
        ax.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8, bbox_to_anchor=(0.5, -0.02))
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    root = Path(results_root)
    paths = _save(fig, root, f"figure7-{web}")
    plt.close(fig)
    table = root / f"table7-{web}.md"
    table.write_text("\n".join(tables), encoding="utf-8")
    return [*paths, table, *_site_tables(dirs)]


def main(argv: Sequence[str] | None = None) -> int:
    """Command line (module docstring)."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", type=Path, help="a results dir (with summary.json) or the crawl results root")
    p.add_argument("--web", default="websim", help="web name, with a results root (default websim)")
    p.add_argument("--pairs", default="", help="comma-separated pairs, with a results root (default: all found)")
    args = p.parse_args(argv)
    if (args.path / "summary.json").is_file():
        out = render(args.path)
    else:
        out = render_pairs(args.path, args.web, [x for x in args.pairs.split(",") if x] or None)
    print("\n".join(str(x) for x in out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
