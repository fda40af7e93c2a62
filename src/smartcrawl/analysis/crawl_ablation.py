"""What each of our signals adds: smart_plus against itself with one signal off, per pair.

``crawl_eval.py`` run with ``smart_plus`` and variants of it (``no_<signal>``: the same strategy with
one flag off, see the README) writes one summary per pair. This module reads them and writes
``<results_root>/ablation-<web>.md``: each variant's AUC as a share of the oracle's, and its change
against ``smart_plus``::

    python -m smartcrawl.analysis.crawl_ablation results/crawl-ablation --web websim
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

from smartcrawl.analysis.crawl_figure import find_results

BASE = "smart_plus"


def ablation_markdown(summaries: Sequence[dict]) -> str:
    """The table: one row per pair, ``smart_plus`` then every other strategy, in run order."""
    variants: list[str] = []
    for summary in summaries:
        variants += [name for name in summary["strategies"] if name != BASE and name not in variants]
    head = ["pair", BASE, *(name.replace("_", " ") for name in variants)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for summary in summaries:
        shares = {name: info.get("auc_share_oracle") for name, info in summary["strategies"].items()}
        base = shares.get(BASE)
        cells = ["-".join(summary["pair"]), "-" if base is None else f"{100 * base:.1f} %"]
        for name in variants:
            share = shares.get(name)
            if share is None:
                cells.append("-")
            elif base is None:
                cells.append(f"{100 * share:.1f} %")
            else:
                cells.append(f"{100 * share:.1f} % ({100 * (share - base):+.1f})")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def render(results_root: str | Path, web: str = "websim") -> Path:
    """Write ``ablation-<web>.md`` under ``results_root`` from every pair's summary there."""
    dirs = find_results(results_root, web)
    if not dirs:
        raise FileNotFoundError(f"no results for web {web!r} under {results_root}")
    summaries = [json.loads((d / "summary.json").read_text(encoding="utf-8")) for d in dirs]
    out = Path(results_root) / f"ablation-{web}.md"
    out.write_text(f"AUC as a share of the oracle's ({web}); in brackets, the change against {BASE}.\n\n"
                   + ablation_markdown(summaries), encoding="utf-8")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Command line (module docstring)."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results_root", type=Path, help="the crawl results root of the ablation runs")
    p.add_argument("--web", default="websim", help="web name (default websim)")
    args = p.parse_args(argv)
    print(render(args.results_root, args.web))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
