"""Content language of a page: CLD2 (as in the paper) on its visible text, as ISO 639-3.

The visible text is every text node outside ``script``, ``style``, ``template`` and comments,
title included. CLD2's top language is the page's language; ``und`` when CLD2 cannot tell (or the
code has no ISO 639-3 equivalent). ``reliable`` is CLD2's own flag; ``percent`` the share of the
text in the top language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pycld2
from lxml import etree

from smartcrawl.crawl.htmldoc import parse_html
from smartcrawl.langs import UNKNOWN, to_iso3

# Characters CLD2 refuses ("invalid UTF-8"): C0 controls except tab/newlines, DEL/C1 controls, surrogates.
_CLD2_BAD = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_SPACES = re.compile(r"\s+")
_INVISIBLE = "//text()[not(ancestor::script or ancestor::style or ancestor::template)]"


@dataclass(frozen=True)
class ContentLanguage:
    """CLD2's verdict on a text: ISO 639-3 code (``und`` when unknown), reliability, top share, raw code."""

    lang: str
    reliable: bool
    percent: int
    cld2_code: str

    @staticmethod
    def unknown() -> ContentLanguage:
        """The verdict for a page with no usable text."""
        return ContentLanguage(UNKNOWN, False, 0, "un")


def visible_text(root: etree._Element | None) -> str:
    """The visible text of an HTML tree, whitespace collapsed."""
    if root is None:
        return ""
    nodes = root.xpath(_INVISIBLE)
    return _SPACES.sub(" ", " ".join(str(n) for n in nodes)).strip()


def detect_language(text: str) -> ContentLanguage:
    """CLD2 on plain text; never raises (bad input gives ``und``)."""
    clean = _CLD2_BAD.sub(" ", text)
    if not clean.strip():
        return ContentLanguage.unknown()
    try:
        reliable, _, details = pycld2.detect(clean, isPlainText=True)
    except pycld2.error:
        return ContentLanguage.unknown()
    _, code, percent, _ = details[0]
    iso3 = to_iso3(code) if code not in ("un", "xxx") else None
    return ContentLanguage(iso3 or UNKNOWN, bool(reliable), int(percent), code)


def page_language(html_text: str) -> ContentLanguage:
    """CLD2 on the visible text of an HTML document."""
    return detect_language(visible_text(parse_html(html_text)))
