"""Outlinks of an HTML page: navigational links only, absolute, without fragments.

Followed: ``<a href>``, ``<area href>`` and ``<link rel="alternate" href>`` (``hreflang``
translations live there). Embeds (images, scripts, frames, stylesheets) are not, as in the authors'
crawls, which rejected embed hops. Relative links resolve against ``<base href>`` when the page
has one. ``javascript:``, ``mailto:`` and other non-web schemes are skipped here; links that do
not even join into a URL are counted as ``bad_url``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urldefrag, urljoin

from lxml import etree

from smartcrawl.crawl.htmldoc import base_href

_ALTERNATE = "contains(concat(' ', normalize-space(translate(@rel, 'ALTERNATE', 'alternate')), ' '), ' alternate ')"
_LINKS = f"//a/@href | //area/@href | //link[{_ALTERNATE}]/@href"
_SKIP_SCHEMES = ("javascript:", "mailto:", "tel:", "data:", "about:", "callto:", "sms:", "file:")
_STRIP = " \t\r\n\x0b\x0c\"'"


@dataclass
class Links:
    """The absolute outlinks of a page in document order (no duplicates) and counts of skipped hrefs."""

    urls: list[str] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)


def extract_links(root: etree._Element | None, page_url: str) -> Links:
    """Outlinks of the parsed page ``root`` fetched from ``page_url`` (see the module docstring)."""
    out = Links()
    if root is None:
        return out
    base = page_url
    declared = base_href(root)
    if declared:
        try:
            base = urljoin(page_url, declared)
        except ValueError:
            out.skipped["bad_base"] += 1
    seen: set[str] = set()
    for raw in root.xpath(_LINKS):
        href = str(raw).strip(_STRIP)
        if not href or href.startswith("#"):
            out.skipped["fragment"] += 1
            continue
        if href.lower().startswith(_SKIP_SCHEMES):
            out.skipped["not_web"] += 1
            continue
        try:
            url = urldefrag(urljoin(base, href))[0]
        except ValueError:
            out.skipped["bad_url"] += 1
            continue
        if url and url not in seen:
            seen.add(url)
            out.urls.append(url)
    return out
