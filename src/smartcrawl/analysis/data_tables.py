"""Markdown tables of the data-set cards copied under ``results/data/`` by ``prepare_data.py``.

``python -m smartcrawl.analysis.data_tables [--results results]`` prints the language-ID split
sizes and languages (the paper's Figure 2, as a table) and positives / negatives per language pair
and split (the paper's Table 2).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def langid_table(card: dict[str, Any]) -> str:
    """Split sizes, then URLs per language and split."""
    splits = list(card["splits"])
    lines = [
        f"Language ID: {card['languages']} languages, {card['input_records']:,} input records, "
        f"{card['duplicates']:,} duplicates, {card['rejected_total']:,} rejected.",
        "",
        "| split | URLs | domains |",
        "|---|---:|---:|",
        *(f"| {s} | {card['splits'][s]['urls']:,} | {card['splits'][s]['domains']:,} |" for s in splits),
        "",
        "| language | " + " | ".join(splits) + " |",
        "|---|" + "---:|" * len(splits),
    ]
    for lang, counts in sorted(card["per_language"].items(), key=lambda kv: -sum(kv[1].values())):
        lines.append(f"| {lang} | " + " | ".join(f"{counts.get(s, 0):,}" for s in splits) + " |")
    return "\n".join(lines)


def parallel_table(card: dict[str, Any]) -> str:
    """Positives / negatives per language pair and split (Table 2), with totals."""
    outs = list(card["splits"])
    lines = [
        f"URL pairs, negatives = {' + '.join(card['negatives']['generators'])} "
        f"({card['negatives']['per_positive']} per positive per generator); {card['rejected_total']:,} rejected.",
        "",
        "| pair | " + " | ".join(f"{o} (pos / neg)" for o in outs) + " |",
        "|---|" + "---:|" * len(outs),
    ]
    for pair, cells in card["table2"].items():
        row = [f"{cells[o]['positives']:,} / {cells[o]['negatives']:,}" if o in cells else "-" for o in outs]
        lines.append(f"| {pair} | " + " | ".join(row) + " |")
    lines.append("| **total** | " + " | ".join(
        f"{card['splits'][o]['positives']:,} / {card['splits'][o]['negatives']:,}" for o in outs) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the tables of every card found under ``<results>/data``."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--results", type=Path, default=Path("results"))
    args = ap.parse_args(argv)
    data = args.results / "data"
    found = False
    if (data / "langid.card.json").exists():
        print(langid_table(_load(data / "langid.card.json")) + "\n")
        found = True
    for path in sorted(data.glob("parallel-*.card.json")):
        print(f"`{path.name}`\n\n" + parallel_table(_load(path)) + "\n")
        found = True
    if not found:
        print(f"no cards under {data}: run `python prepare_data.py task=langid` and `task=parallel` first")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
