"""WMT16 ``.lett`` files: one web page per line, six tab-separated columns

``lang, mime, encoding, url, base64(HTML), base64(text)`` (HTML and text are UTF-8 once decoded;
``encoding`` is the page's original character set).
"""

from __future__ import annotations

import binascii
from base64 import b64decode
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from smartcrawl.data.records import LangRecord, Rejects
from smartcrawl.data.sources._fields import clean_url
from smartcrawl.data.sources._textio import iter_lines, require_path
from smartcrawl.langs import to_iso3


@dataclass(frozen=True, slots=True)
class LettDocument:
    """One page of a ``.lett`` file, language normalised to ISO 639-3."""

    lang: str
    mime: str
    encoding: str
    url: str
    html: str
    text: str


def _b64_text(field: str) -> str:
    """Decode a base64 column to UTF-8 text; raises ``binascii.Error`` or ``UnicodeDecodeError``."""
    return b64decode(field.strip(), validate=True).decode("utf-8")


def _gen(path: Path, rejects: Rejects) -> Iterator[LettDocument]:
    for line in iter_lines(path, rejects):
        cols = line.split("\t")
        if len(cols) != 6:
            rejects.add("bad_columns", line)
            continue
        lang = to_iso3(cols[0])
        if lang is None:
            rejects.add("unknown_language", line)
            continue
        url = clean_url(cols[3])
        if url is None:
            rejects.add("empty_or_whitespace_url", line)
            continue
        try:
            html, text = _b64_text(cols[4]), _b64_text(cols[5])
        except binascii.Error:
            rejects.add("bad_base64", line)
            continue
        except UnicodeDecodeError:
            rejects.add("bad_encoding", line)
            continue
        yield LettDocument(lang, cols[1].strip(), cols[2].strip(), url, html, text)


def lett_files(path: str | Path) -> list[Path]:
    """``[path]`` for a file; for a directory its ``*.lett`` and ``*.lett.gz`` files (recursive, sorted)."""
    p = require_path(path)
    if p.is_file():
        return [p]
    return sorted(f for f in p.rglob("*") if f.is_file() and f.name.endswith((".lett", ".lett.gz")))


def read_lett(path: str | Path, rejects: Rejects) -> Iterator[LettDocument]:
    """Stream the pages of a ``.lett`` (or ``.lett.gz``) file, or of every such file under a directory.

    Rejects: ``bad_columns`` (not 6 columns), ``unknown_language``, ``empty_or_whitespace_url``, ``bad_base64``,
    ``bad_encoding`` (line, or decoded HTML/text, not UTF-8).
    """
    files = lett_files(path)
    return (doc for f in files for doc in _gen(f, rejects))


def iter_lett_lang_records(path: str | Path, rejects: Rejects, *, source: str = "wmt16-lett") -> Iterator[LangRecord]:
    """The (URL, language) facts of the pages of :func:`read_lett` (same rejects)."""
    return (LangRecord(doc.url, doc.lang, source) for doc in read_lett(path, rejects))
