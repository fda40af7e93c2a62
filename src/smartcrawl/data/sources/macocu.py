"""MaCoCu bilingual document pairs as a TSV with a header row (e.g. ``MaCoCu-sl-en-sample.tsv``).

The two URL columns are named ``<xx>_source`` (``en_source``, ``sl_source``); their prefixes give the
languages. Text columns are long and may hold quotes, so rows are parsed with :mod:`csv` (tab
delimiter, standard double-quote quoting, a large field-size limit).
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

from smartcrawl.data.records import PairRecord, Rejects
from smartcrawl.data.sources._fields import clean_url, config_lang
from smartcrawl.data.sources._textio import iter_lines, require_path
from smartcrawl.langs import to_iso3

URL_SUFFIX = "_source"
FIELD_SIZE_LIMIT = 1 << 30


def url_columns(header: list[str], src_lang: str | None = None) -> tuple[tuple[int, str], tuple[int, str]]:
    """``((column, iso3), (column, iso3))`` of the two ``<xx>_source`` URL columns of a MaCoCu header.

    The first pair is the source side: the column whose language is ``src_lang`` if given, else
    the one that comes first in the header. Raises :class:`ValueError` unless exactly two such
    columns with known languages are found.
    """
    found: list[tuple[int, str]] = []
    for i, name in enumerate(header):
        name = name.strip()
        if name.endswith(URL_SUFFIX):
            iso3 = to_iso3(name[: -len(URL_SUFFIX)])
            if iso3 is not None:
                found.append((i, iso3))
    if len(found) != 2:
        raise ValueError(
            f"MaCoCu header must have exactly two '<lang>{URL_SUFFIX}' URL columns with known languages, "
            f"found {[header[i] for i, _ in found]} in {header[:30]}"
        )
    if src_lang is not None:
        want = config_lang(src_lang, "src_lang")
        if found[1][1] == want:
            found.reverse()
        elif found[0][1] != want:
            raise ValueError(f"src_lang {src_lang!r} is not one of the MaCoCu URL columns {found}")
    return found[0], found[1]


def _gen(path: Path, rejects: Rejects, src_lang: str | None, source: str) -> Iterator[PairRecord]:
    if csv.field_size_limit() < FIELD_SIZE_LIMIT:
        csv.field_size_limit(FIELD_SIZE_LIMIT)  # process-wide setting; only ever raised
    reader = csv.reader(iter_lines(path, rejects, keepends=True), delimiter="\t")
    header = next(reader, None)
    if header is None:
        raise ValueError(f"MaCoCu file is empty (no header row): {str(path)!r}")
    (src_col, src_iso), (trg_col, trg_iso) = url_columns(header, src_lang)
    width = len(header)
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as err:
            rejects.add("bad_csv", f"line {reader.line_num}: {err}")
            continue
        if len(row) != width:
            rejects.add("bad_columns", "\t".join(row))
            continue
        src_url, trg_url = clean_url(row[src_col]), clean_url(row[trg_col])
        if src_url is None or trg_url is None:
            rejects.add("empty_or_whitespace_url", f"{row[src_col]!r} {row[trg_col]!r}")
            continue
        yield PairRecord(src_url, trg_url, src_iso, trg_iso, source)


def iter_macocu_pairs(
    path: str | Path, rejects: Rejects, *, src_lang: str | None = None, source: str = "macocu"
) -> Iterator[PairRecord]:
    """Stream the document pairs of a MaCoCu TSV (languages from the ``<xx>_source`` header columns).

    ``src_lang`` picks which URL column is the source side (default: the first in the header).
    Rejects: ``bad_columns`` (field count differs from the header), ``bad_csv`` (unparsable row),
    ``empty_or_whitespace_url``, ``bad_encoding``. A header without the two URL columns raises :class:`ValueError`
    when iteration starts.
    """
    p = require_path(path)
    if src_lang is not None:
        config_lang(src_lang, "src_lang")
    return _gen(p, rejects, src_lang, source)
