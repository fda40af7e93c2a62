"""Where a crawl gains and loses: each site's AUC as a share of its own oracle's, with what the site is like.

``crawl_eval.py`` writes per-site curves (``curves_sites.csv``) beside the summed ones. This module
computes, per site and curve, the area under the curve as a share of the site's oracle area, joins
the web's description of the site where the web has one (websim's ``truth/sites.parquet``: URL
convention, language switcher, languages), and sums the areas over the sites of each kind of
switcher. It writes ``sites.md`` into the results dir (so does
:func:`smartcrawl.analysis.crawl_figure.render`)::

    python -m smartcrawl.analysis.crawl_sites results/crawl-fast/eng-fin/websim
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from smartcrawl.eval.crawl_curves import ORACLE, auc

SITE_COLUMNS: tuple[str, ...] = ("convention", "switcher", "langs")


def site_areas(curves_sites: pd.DataFrame) -> pd.DataFrame:
    """AUC per site (rows) and curve (columns), plus ``pairs``: the documents the oracle finds on the site."""
    areas = {(site, curve): auc(g.sort_values("point")["found"].to_numpy())
             for (site, curve), g in curves_sites.groupby(["site", "curve"])}
    table = pd.Series(areas).unstack()
    last = curves_sites[curves_sites["point"] == curves_sites["point"].max()]
    table["pairs"] = last[last["curve"] == ORACLE].set_index("site")["found"]
    return table


def site_descriptions(web_dir: str | Path | None) -> pd.DataFrame | None:
    """The web's description of its sites by host (websim's ground truth), or ``None`` where it has none."""
    path = Path(web_dir) / "truth" / "sites.parquet" if web_dir else None
    if path is None or not path.is_file():
        return None
    sites = pd.read_parquet(path)
    return sites.set_index("host")[[c for c in SITE_COLUMNS if c in sites.columns]]


def _share(area: float, oracle: float) -> str:
    return f"{100.0 * area / oracle:.1f} %" if oracle > 0 else "-"


def sites_markdown(areas: pd.DataFrame, curves: Sequence[str], described: pd.DataFrame | None) -> str:
    """The per-site table (largest sites first) and, with site descriptions, the sums by switcher."""
    head = ["site", "documents", *curves]
    if described is not None:
        head += list(described.columns)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for site, row in areas.sort_values("pairs", ascending=False).iterrows():
        cells = [str(site), f"{row['pairs']:.0f}", *(_share(row[c], row[ORACLE]) for c in curves)]
        if described is not None:
            info = described.reindex([site]).iloc[0]
            cells += ["" if pd.isna(v) else str(v) for v in info.tolist()]
        lines.append("| " + " | ".join(cells) + " |")
    if described is None or "switcher" not in described.columns:
        return "\n".join(lines) + "\n"
    kinds = areas.join(described["switcher"]).fillna({"switcher": "unknown"})
    lines += ["", "Summed over the sites of each kind of language switcher (AUC as a share of the oracle's):", "",
              "| switcher | sites | documents | " + " | ".join(curves) + " |",
              "|" + "---|" * (3 + len(curves))]
    for kind, g in kinds.groupby("switcher"):
        shares = [_share(g[c].sum(), g[ORACLE].sum()) for c in curves]
        lines.append(f"| {kind} | {len(g)} | {g['pairs'].sum():.0f} | " + " | ".join(shares) + " |")
    return "\n".join(lines) + "\n"


def render(results_dir: str | Path) -> Path:
    """Write ``sites.md`` into a crawl results dir (``curves_sites.csv`` and ``summary.json``)."""
    root = Path(results_dir)
    summary = json.loads((root / "summary.json").read_text(encoding="utf-8"))
    areas = site_areas(pd.read_csv(root / "curves_sites.csv"))
    curves = [c for c in summary.get("strategies", {}) if c in areas.columns]
    text = (f"# Per-site AUC as a share of each site's oracle: {'-'.join(summary['pair'])}, {summary['web']}\n\n"
            + sites_markdown(areas, curves, site_descriptions(summary.get("web_dir"))))
    out = root / "sites.md"
    out.write_text(text, encoding="utf-8")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Command line (module docstring)."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results_dir", type=Path, nargs="+", help="crawl results dirs (with curves_sites.csv)")
    args = p.parse_args(argv)
    for path in args.results_dir:
        print(render(path))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
