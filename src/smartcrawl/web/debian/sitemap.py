"""An HTML site map of a language tree's pages that no link reaches, paginated, in the tree.

Documentation sites expose their pages to crawlers (contents, indexes, site maps); when a tree
still has pages that neither its own links nor its contents and index reach (the LibreOffice help's
snippets that its JavaScript embeds into other pages, say), they are listed here, by path, with
their titles: ``sitemap.html``, ``sitemap-2.html``, ... (:data:`SITEMAP_PER_PAGE` links a page).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from html import escape

import lxml.html

from smartcrawl.web.debian.langid import sniff_charset
from smartcrawl.web.debian.navpages import NavPage, TreeNav, html_page, page_name, pager_html, paginate

SITEMAP_STEM = "sitemap"
SITEMAP_PER_PAGE = 250
SITEMAP_LABEL = "Site map"


def page_title(body: bytes, fallback: str) -> str:
    """A page's ``<title>`` (else its first ``<h1>``) as plain text, or ``fallback``."""
    try:
        doc = lxml.html.document_fromstring(body.decode(sniff_charset(body), errors="replace"))
    except (ValueError, lxml.etree.ParserError):
        return fallback
    for xpath in ("//title", "//h1"):
        for node in doc.xpath(xpath):
            text = " ".join(node.text_content().split())
            if text:
                return text
    return fallback


def free_stem(taken: Collection[str], count: int, stem: str = SITEMAP_STEM) -> str:
    """``stem``, or ``stem`` with ``_`` appended until none of its ``count`` page names is in ``taken``."""
    while any(page_name(stem, n, count) in taken for n in range(1, count + 1)):
        stem += "_"
    return stem


def sitemap_nav(lang_code: str, site_title: str, pages: Sequence[tuple[str, str]],
                per_page: int = SITEMAP_PER_PAGE, taken: Collection[str] = ()) -> TreeNav:
    """Site-map pages linking ``pages`` (``(path relative to the tree, title)``, listed by path); empty when none.

    The pages are named ``sitemap.html``, ``sitemap-2.html``, ...; a stem with ``_`` appended when the
    tree already has such a file (``taken``: the tree's relative paths).
    """
    chunks = paginate(sorted(pages), per_page)
    stem = free_stem(taken, len(chunks))
    out = []
    for number, chunk in enumerate(chunks, start=1):
        items = "\n".join(f'<li><a href="{escape(rel, quote=True)}">{escape(title)}</a></li>' for rel, title in chunk)
        title = f"{site_title}: {SITEMAP_LABEL}" + (f" ({number}/{len(chunks)})" if len(chunks) > 1 else "")
        body = f"<ul>\n{items}\n</ul>\n{pager_html(stem, number, len(chunks))}"
        out.append(NavPage(page_name(stem, number, len(chunks)), html_page(lang_code, title, body)))
    if not out:
        return TreeNav()
    return TreeNav(tuple(out), ((out[0].rel, SITEMAP_LABEL),))
