"""DataFrames as GitHub Markdown tables (no ``tabulate`` dependency) and number formatting."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

NOT_RUN = "not run"


def fmt_number(value: Any, digits: int = 2) -> str:
    """A cell as text: floats with ``digits`` decimals, ints with thousands separators, None/NaN as ``–``."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        if value.is_integer() and abs(value) >= 1000:
            return f"{int(value):,}"
        return f"{value:,.{digits}f}"
    try:
        if pd.isna(value):
            return "–"
    except (TypeError, ValueError):
        pass
    return str(value)


def _is_numeric(series: pd.Series) -> bool:
    vals = [v for v in series if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return bool(vals) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals)


def to_markdown(df: pd.DataFrame, digits: int = 2, index: bool = False) -> str:
    """``df`` as a Markdown table; numeric columns are right-aligned and formatted with ``digits`` decimals."""
    frame = df.reset_index() if index else df
    cols = [str(c) for c in frame.columns]
    numeric = [_is_numeric(frame[c]) for c in frame.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    for row in frame.itertuples(index=False):
        cells = [fmt_number(v, digits).replace("|", "\\|").replace("\n", " ") for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    if frame.empty and cols:
        lines.append("| " + " | ".join([f"*{NOT_RUN}*", *([""] * (len(cols) - 1))]) + " |")
    return "\n".join(lines) + "\n"
