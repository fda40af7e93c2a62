"""CommonCrawl's columnar URL index (Parquet): columns ``url`` and ``content_languages``.

``content_languages`` is written like the CDX ``languages`` field (comma-separated ISO 639-3 codes,
largest share first); the label is the first. When the file also has ``fetch_status`` and
``content_mime_type`` they are checked like the CDX ``status`` and ``mime``. Read in record batches
with :meth:`pyarrow.parquet.ParquetFile.iter_batches`, so only one batch is in memory at a time.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq

from smartcrawl.data.records import LangRecord, Rejects
from smartcrawl.data.sources._cclabel import CCLabeller
from smartcrawl.data.sources._textio import require_path

URL_COLUMN = "url"
LANG_COLUMN = "content_languages"
STATUS_COLUMN = "fetch_status"
MIME_COLUMN = "content_mime_type"


def _gen(path: Path, labeller: CCLabeller, batch_size: int) -> Iterator[LangRecord]:
    pf = pq.ParquetFile(path)
    names = set(pf.schema_arrow.names)
    missing = [c for c in (URL_COLUMN, LANG_COLUMN) if c not in names]
    if missing:
        raise ValueError(f"{str(path)!r}: CommonCrawl Parquet index lacks column(s) {missing}; has {sorted(names)}")
    optional = [c for c in (STATUS_COLUMN, MIME_COLUMN) if c in names]
    columns = [URL_COLUMN, LANG_COLUMN, *optional]
    label = labeller.label
    for batch in pf.iter_batches(batch_size=batch_size, columns=columns):
        urls = batch.column(URL_COLUMN).to_pylist()
        langs = batch.column(LANG_COLUMN).to_pylist()
        n = len(urls)
        statuses = batch.column(STATUS_COLUMN).to_pylist() if STATUS_COLUMN in optional else [None] * n
        mimes = batch.column(MIME_COLUMN).to_pylist() if MIME_COLUMN in optional else [None] * n
        for url, lang, status, mime in zip(urls, langs, statuses, mimes, strict=True):
            record = label(url, lang, None if status is None else str(status), mime)
            if record is not None:
                yield record


def iter_cc_parquet_lang_records(
    path: str | Path,
    rejects: Rejects,
    *,
    single_language_only: bool = False,
    require_200: bool = True,
    require_html: bool = True,
    batch_size: int = 65_536,
    source: str = "commoncrawl-parquet",
) -> Iterator[LangRecord]:
    """Stream the (URL, first language) facts of a CommonCrawl columnar-index Parquet file.

    Rejects as the CDX reader: ``empty_or_whitespace_url`` (null too), ``not_200``, ``not_html``, ``no_language``
    (null or empty), ``unknown_language``, ``multilingual``. A file without ``url`` or
    ``content_languages`` raises :class:`ValueError` when iteration starts.
    """
    labeller = CCLabeller(rejects, source, single_language_only, require_200, require_html)
    return _gen(require_path(path), labeller, batch_size)
