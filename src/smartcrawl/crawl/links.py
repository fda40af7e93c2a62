"""Outlinks of an HTML page: navigational links only, absolute, without fragments.

Followed: ``<a href>``, ``<area href>`` and ``<link rel="alternate" href>`` (``hreflang``
translations live there). Embeds (images, scripts, frames, stylesheets) are not, as in the authors'
crawls, which rejected embed hops. Relative links resolve against ``<base href>`` when the page
has one. ``javascript:``, ``mailto:`` and other non-web schemes are skipped here; links that do
not even join into a URL are counted as ``bad_url``.

Each link may also carry a *language hint*, the language the page declares for its target: the
``hreflang`` attribute (``<link rel=alternate>`` or ``<a>``), else an ``<a>``'s ``lang``
attribute, else an anchor text that is nothing but a language's name, endonym or code ("English",
"Suomi", "FI", "ENG", "fr-CA"), the conventions of language switchers. ``x-default`` and texts that are
not a language give no hint.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urldefrag, urljoin

from lxml import etree

from smartcrawl.crawl.htmldoc import base_href
from smartcrawl.langs import UNKNOWN, to_iso3

_ALTERNATE = "contains(concat(' ', normalize-space(translate(@rel, 'ALTERNATE', 'alternate')), ' '), ' alternate ')"
_LINKS = f"//a[@href] | //area[@href] | //link[@href][{_ALTERNATE}]"
_MAX_LABEL = 40  # longer anchor texts are never a bare language name
# A lower-case three-letter text is a word ("new", "map", "art") far more often than an ISO 639-2
# code; switchers write those codes in capitals ("ENG").
_WORDLIKE = re.compile(r"[a-z]{3}")
_SKIP_SCHEMES = ("javascript:", "mailto:", "tel:", "data:", "about:", "callto:", "sms:", "file:")
_STRIP = " \t\r\n\x0b\x0c\"'"


@dataclass
class Links:
    """The absolute outlinks of a page in document order (no duplicates) and counts of skipped hrefs."""

    urls: list[str] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    hints: dict[str, str] = field(default_factory=dict)  # url -> ISO 639-3 language the page declares for it


def _known_language(text: str) -> str | None:
    lang = to_iso3(text)
    return lang if lang and lang != UNKNOWN else None


def language_hint(element: etree._Element) -> str | None:
    """The ISO 639-3 language a link element declares for its target, ``None`` without one (module docstring)."""
    declared = element.get("hreflang")
    if declared is None and element.tag == "a":
        declared = element.get("lang")
    if declared is not None:
        return _known_language(declared)
    if element.tag != "a":
        return None
    label = " ".join("".join(element.itertext()).split())
    if not label or len(label) > _MAX_LABEL or _WORDLIKE.fullmatch(label):
        return None
    return _known_language(label)


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
    for element in root.xpath(_LINKS):
        href = str(element.get("href")).strip(_STRIP)
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
        if not url:
            continue
        if url not in seen:
            seen.add(url)
            out.urls.append(url)
        if url not in out.hints:
            hint = language_hint(element)
            if hint is not None:
                out.hints[url] = hint
    return out
