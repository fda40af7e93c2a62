"""Streaming readers of the raw data sources, normalising languages to ISO 639-3.

Two entry points dispatch on a source ``kind`` (as in :class:`smartcrawl.data.records.SourceSpec`):

- :func:`iter_pair_records` -> :class:`PairRecord` for ``paracrawl``, ``wmt16``,
  ``wmt16_classified``, ``macocu`` (every pair a positive, parallel pair);
- :func:`iter_lang_records` -> :class:`LangRecord` for those kinds (both URLs of each pair) and for
  ``lett`` (WMT16 ``.lett``), ``cdx`` (CommonCrawl CDX) and ``cc_parquet`` (CommonCrawl columnar index).

Every reader streams (one line, row or batch at a time), reads plain or gzip files, and counts each
line it cannot use in the given :class:`Rejects` under a stable reason (``bad_encoding``,
``bad_columns``, ``empty_or_whitespace_url``, ``unknown_language``, ...) instead of failing or dropping it silently.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from smartcrawl.data.records import LangRecord, PairRecord, Rejects
from smartcrawl.data.sources._textio import require_path
from smartcrawl.data.sources.cc_parquet import iter_cc_parquet_lang_records
from smartcrawl.data.sources.cdx import iter_cdx_lang_records
from smartcrawl.data.sources.lett import LettDocument, iter_lett_lang_records, read_lett
from smartcrawl.data.sources.macocu import iter_macocu_pairs
from smartcrawl.data.sources.paracrawl import ParaCrawlRow, iter_paracrawl_pairs, read_paracrawl
from smartcrawl.data.sources.wmt16 import (
    ClassifiedPair,
    iter_wmt16_classified_pairs,
    iter_wmt16_pairs,
    read_wmt16_classified,
)

__all__ = [
    "LANG_KINDS",
    "PAIR_KINDS",
    "ClassifiedPair",
    "LettDocument",
    "ParaCrawlRow",
    "iter_lang_records",
    "iter_pair_records",
    "read_lett",
    "read_paracrawl",
    "read_wmt16_classified",
]

_PAIR_READERS: dict[str, Callable[..., Iterator[PairRecord]]] = {
    "paracrawl": iter_paracrawl_pairs,
    "wmt16": iter_wmt16_pairs,
    "wmt16_classified": iter_wmt16_classified_pairs,
    "macocu": iter_macocu_pairs,
}
_LANG_READERS: dict[str, Callable[..., Iterator[LangRecord]]] = {
    "lett": iter_lett_lang_records,
    "cdx": iter_cdx_lang_records,
    "cc_parquet": iter_cc_parquet_lang_records,
}

PAIR_KINDS: tuple[str, ...] = tuple(_PAIR_READERS)
LANG_KINDS: tuple[str, ...] = PAIR_KINDS + tuple(_LANG_READERS)


def _check_kind(kind: str, allowed: tuple[str, ...], what: str) -> None:
    if kind not in allowed:
        raise ValueError(f"unknown {what} source kind {kind!r}; allowed: {', '.join(allowed)}")


def iter_pair_records(kind: str, path: str | Path, rejects: Rejects, **options: Any) -> Iterator[PairRecord]:
    """Stream the URL pairs of a source of kind ``kind`` (one of :data:`PAIR_KINDS`).

    ``options`` go to the reader: ``source`` (record source name) for all; ``src_lang``/``trg_lang``
    for ``wmt16`` and ``wmt16_classified`` (defaults ``eng``/``fra``); ``src_lang`` (which URL column is
    the source side) for ``macocu``. ``wmt16_classified`` yields all its rows, label 0 included: they
    are all gold pairs (use :func:`read_wmt16_classified` for the manual labels). Raises
    :class:`ValueError` for an unknown kind, :class:`FileNotFoundError` for a missing path,
    :class:`TypeError` for an option the reader does not take.
    """
    _check_kind(kind, PAIR_KINDS, "pair")
    require_path(path)
    return _PAIR_READERS[kind](path, rejects, **options)


def iter_lang_records(kind: str, path: str | Path, rejects: Rejects, **options: Any) -> Iterator[LangRecord]:
    """Stream the (URL, language) facts of a source of kind ``kind`` (one of :data:`LANG_KINDS`).

    Pair kinds give both URLs of every pair (source side first). ``cdx`` and ``cc_parquet`` take
    ``single_language_only`` (reject entries with several languages as ``multilingual``),
    ``require_200`` and ``require_html`` (default true: reject entries whose status or MIME type is
    present and is not 200 / ``text/html``); every kind takes ``source``. Errors as
    :func:`iter_pair_records`.
    """
    _check_kind(kind, LANG_KINDS, "language")
    require_path(path)
    if kind in _LANG_READERS:
        return _LANG_READERS[kind](path, rejects, **options)
    pairs = _PAIR_READERS[kind](path, rejects, **options)
    return (record for pair in pairs for record in pair.lang_records())
