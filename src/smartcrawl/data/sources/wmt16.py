"""WMT16 document-alignment gold URL pairs (``train.pairs``, ``test.pairs``) and the manually
classified test pairs (``test.pairs.manually_classified``).

- pairs: ``en_url TAB fr_url``
- manually classified: ``label TAB class TAB en_url TAB fr_url`` with label 0/1 (parallel per a
  manual check) and class ``id`` (paths differ only by a language code), ``tr`` (translated path)
  or ``cd`` (different content ids).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from smartcrawl.data.records import PairRecord, Rejects
from smartcrawl.data.sources._fields import clean_url, config_lang
from smartcrawl.data.sources._textio import iter_lines, require_path

CLASSES: tuple[str, ...] = ("id", "tr", "cd")


@dataclass(frozen=True, slots=True)
class ClassifiedPair:
    """A gold WMT16 test pair with its manual label (1 = parallel) and class (id, tr or cd)."""

    pair: PairRecord
    label: int
    klass: str


def default_source(path: Path) -> str:
    """``wmt16-<first dot-separated part of the file name>``: ``wmt16-train``, ``wmt16-test``."""
    return f"wmt16-{path.name.split('.', 1)[0]}"


def _pair(cols: list[str], langs: tuple[str, str], source: str) -> PairRecord | None:
    src_url, trg_url = clean_url(cols[0]), clean_url(cols[1])
    if src_url is None or trg_url is None:
        return None
    return PairRecord(src_url, trg_url, langs[0], langs[1], source)


def _gen_pairs(path: Path, rejects: Rejects, langs: tuple[str, str], source: str) -> Iterator[PairRecord]:
    for line in iter_lines(path, rejects):
        cols = line.split("\t")
        if len(cols) != 2:
            rejects.add("bad_columns", line)
            continue
        pair = _pair(cols, langs, source)
        if pair is None:
            rejects.add("empty_or_whitespace_url", line)
            continue
        yield pair


def iter_wmt16_pairs(
    path: str | Path,
    rejects: Rejects,
    *,
    src_lang: str = "eng",
    trg_lang: str = "fra",
    source: str | None = None,
) -> Iterator[PairRecord]:
    """Stream the gold pairs of a 2-column WMT16 pairs file (column 1 in ``src_lang``, 2 in ``trg_lang``).

    Rejects: ``bad_columns`` (not 2 columns), ``empty_or_whitespace_url``, ``bad_encoding``. Unknown configured
    languages raise :class:`ValueError`.
    """
    p = require_path(path)
    langs = (config_lang(src_lang, "src_lang"), config_lang(trg_lang, "trg_lang"))
    return _gen_pairs(p, rejects, langs, source or default_source(p))


def _gen_classified(path: Path, rejects: Rejects, langs: tuple[str, str], source: str) -> Iterator[ClassifiedPair]:
    for line in iter_lines(path, rejects):
        cols = line.split("\t")
        if len(cols) != 4:
            rejects.add("bad_columns", line)
            continue
        label, klass = cols[0].strip(), cols[1].strip()
        if label not in ("0", "1"):
            rejects.add("bad_label", line)
            continue
        if klass not in CLASSES:
            rejects.add("bad_class", line)
            continue
        pair = _pair(cols[2:], langs, source)
        if pair is None:
            rejects.add("empty_or_whitespace_url", line)
            continue
        yield ClassifiedPair(pair, int(label), klass)


def read_wmt16_classified(
    path: str | Path,
    rejects: Rejects,
    *,
    src_lang: str = "eng",
    trg_lang: str = "fra",
    source: str | None = None,
) -> Iterator[ClassifiedPair]:
    """Stream the manually classified WMT16 test pairs with their 0/1 label and class (id/tr/cd).

    Rejects: ``bad_columns`` (not 4 columns), ``bad_label`` (not 0/1), ``bad_class`` (not id/tr/cd),
    ``empty_or_whitespace_url``, ``bad_encoding``.
    """
    p = require_path(path)
    langs = (config_lang(src_lang, "src_lang"), config_lang(trg_lang, "trg_lang"))
    return _gen_classified(p, rejects, langs, source or default_source(p))


def iter_wmt16_classified_pairs(
    path: str | Path,
    rejects: Rejects,
    *,
    src_lang: str = "eng",
    trg_lang: str = "fra",
    source: str | None = None,
) -> Iterator[PairRecord]:
    """All pairs of the manually classified file, label 0 included: they are all WMT16 gold pairs.

    The manual label says whether a human found the documents parallel; it is kept for evaluation
    by :func:`read_wmt16_classified` and ignored here, so this yields the same pairs as ``test.pairs``.
    """
    rows = read_wmt16_classified(path, rejects, src_lang=src_lang, trg_lang=trg_lang, source=source)
    return (row.pair for row in rows)
