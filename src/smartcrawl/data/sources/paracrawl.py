"""ParaCrawl human-evaluation samples (``sorted.L1-L2``, releases v3, v6, v6-2, v7).

Tab-separated, one sentence pair per line, drawn from a document pair that ParaCrawl aligned, so
every URL pair is a positive. Two column layouts, told apart by the number of columns:

- v3 (9): url1, url2, src, trg, hunalign, zipporah, bicleaner, judgement, comments
- v6, v6-2, v7 (8): url1, url2, src, trg, bicleaner, judgement, comments, time

The languages come from the file name (``sorted.en-mt`` -> eng, mlt; ``sorted.es-eu`` -> spa, eus):
the URL in column 1 is a document in L1, column 2 one in L2 (labels from the documents' content).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from smartcrawl.data.records import PairRecord, Rejects
from smartcrawl.data.sources._fields import clean_url, config_lang
from smartcrawl.data.sources._textio import iter_lines, require_path

_PREFIX = "sorted."
_VERSION_DIR_RE = re.compile(r"^v\d[\w.-]*$")
# columns -> (index of the bicleaner score, index of the human judgement)
_LAYOUTS: dict[int, tuple[int, int]] = {9: (6, 7), 8: (4, 5)}


@dataclass(frozen=True, slots=True)
class ParaCrawlRow:
    """One human-evaluated line: the document pair, the sentence pair and its judgement."""

    pair: PairRecord
    src_text: str
    trg_text: str
    bicleaner: float | None
    judgement: str


def paracrawl_files(path: str | Path) -> list[Path]:
    """The ``sorted.*`` files under ``path`` (searched recursively, sorted), or ``[path]`` for a file."""
    p = require_path(path)
    if p.is_file():
        return [p]
    return sorted(f for f in p.rglob(_PREFIX + "*") if f.is_file())


def pair_langs_from_name(path: Path) -> tuple[str, str]:
    """ISO 639-3 codes of L1 and L2 from a file name such as ``sorted.en-mt`` (or ``sorted.en-mt.gz``)."""
    name = path.name
    if name.endswith(".gz"):
        name = name[: -len(".gz")]
    if not name.startswith(_PREFIX):
        raise ValueError(f"ParaCrawl file name must look like 'sorted.L1-L2': {str(path)!r}")
    codes = name[len(_PREFIX):].split("-")
    if len(codes) != 2:
        raise ValueError(f"ParaCrawl file name must look like 'sorted.L1-L2': {str(path)!r}")
    return config_lang(codes[0], str(path)), config_lang(codes[1], str(path))


def source_name(path: Path) -> str:
    """``paracrawl-<release>`` when the file sits in a release folder (``v7``), else ``paracrawl``."""
    parent = path.parent.name
    return f"paracrawl-{parent}" if _VERSION_DIR_RE.match(parent) else "paracrawl"


def _score(field: str) -> float | None:
    try:
        return float(field)
    except ValueError:
        return None


def _read_file(path: Path, rejects: Rejects, source: str | None) -> Iterator[ParaCrawlRow]:
    src_lang, trg_lang = pair_langs_from_name(path)
    src_name = source or source_name(path)
    layout: tuple[int, int] | None = None
    n_columns = 0
    for line in iter_lines(path, rejects):
        cols = line.split("\t")
        if layout is None:  # the first line with 8 or 9 columns fixes the file's layout
            layout = _LAYOUTS.get(len(cols))
            n_columns = len(cols)
        if layout is None or len(cols) != n_columns:
            rejects.add("bad_columns", line)
            continue
        src_url, trg_url = clean_url(cols[0]), clean_url(cols[1])
        if src_url is None or trg_url is None:
            rejects.add("empty_or_whitespace_url", line)
            continue
        pair = PairRecord(src_url, trg_url, src_lang, trg_lang, src_name)
        yield ParaCrawlRow(pair, cols[2], cols[3], _score(cols[layout[0]]), cols[layout[1]].strip())


def read_paracrawl(path: str | Path, rejects: Rejects, *, source: str | None = None) -> Iterator[ParaCrawlRow]:
    """Stream the rows of one ``sorted.L1-L2`` file or of every such file under a directory.

    ``source`` overrides the record source (default ``paracrawl-<release folder>``). The first line
    with 8 or 9 columns fixes a file's layout; lines with another column count are rejected as
    ``bad_columns``, lines with an empty URL as
    ``empty_or_whitespace_url``, undecodable lines as ``bad_encoding``. A file name that does not give two known
    languages raises :class:`ValueError`.
    """
    files = paracrawl_files(path)
    for f in files:
        pair_langs_from_name(f)  # fail on a bad file name before yielding anything
    return (row for f in files for row in _read_file(f, rejects, source))


def iter_paracrawl_pairs(path: str | Path, rejects: Rejects, *, source: str | None = None) -> Iterator[PairRecord]:
    """The document pairs of :func:`read_paracrawl` (every one a positive pair)."""
    return (row.pair for row in read_paracrawl(path, rejects, source=source))
