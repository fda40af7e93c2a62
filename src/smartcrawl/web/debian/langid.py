"""Content language of an HTML page with CLD2, as the ground truth of the Debian sites uses it.

The visible text (no ``script``, ``style`` or ``noscript``) is given to CLD2 as plain text, with no
hint, so the verdict depends on the page alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import lxml.html
import pycld2

from smartcrawl.langs import to_iso3

_CHARSET_RE = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_DROP_TAGS = ("script", "style", "noscript", "template")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class LangGuess:
    """CLD2's verdict on one page: top language (ISO 639-3 or ``und``), reliability, share and text size."""

    lang: str
    reliable: bool
    percent: int
    text_bytes: int


def sniff_charset(html: bytes, default: str = "utf-8") -> str:
    """The charset a page declares in a ``<meta>`` tag within its first 4 KiB (``default`` when none or unknown)."""
    m = _CHARSET_RE.search(html[:4096])
    if not m:
        return default
    name = m.group(1).decode("ascii", "replace").lower()
    try:
        "".encode(name)
    except LookupError:
        return default
    return name


def visible_text(html: bytes) -> str:
    """The text a reader sees: the decoded page without markup, scripts, styles or ``noscript`` blocks."""
    text = html.decode(sniff_charset(html), errors="replace")
    if not text.strip():
        return ""
    try:
        doc = lxml.html.document_fromstring(text)
    except (ValueError, lxml.etree.ParserError):
        return ""
    for bad in doc.iter(*_DROP_TAGS):
        bad.drop_tree()
    words = " ".join(doc.text_content().split())
    return _CONTROL_RE.sub(" ", words)


def detect_text(text: str) -> LangGuess:
    """CLD2's top language of plain ``text``; ``und`` when CLD2 finds none."""
    data = text.encode("utf-8", errors="ignore")
    if not data.strip():
        return LangGuess("und", False, 0, 0)
    try:
        reliable, nbytes, details = pycld2.detect(data, isPlainText=True)
    except pycld2.error:
        return LangGuess("und", False, 0, len(data))
    name, code, percent, _score = details[0]
    lang = to_iso3(code) if code not in ("un", "xx") else None
    return LangGuess(lang or "und", bool(reliable), int(percent), int(nbytes))


def detect_html(html: bytes) -> LangGuess:
    """CLD2's verdict on the visible text of an HTML page."""
    return detect_text(visible_text(html))
