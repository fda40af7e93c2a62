"""The LibreOffice help's own contents and index, rendered as static pages a crawler can follow.

Every LibreOffice help page has an empty ``Contents`` side bar and an empty ``Index`` that the
browser fills from the language tree's ``contents.js`` (the table of contents: ~900 pages in a tree
of modules) and ``bookmarks.js`` (the keyword index: ~6,700 entries, paginated by
``paginathing.js``). Without JavaScript a crawler sees neither, so most of the help is unreachable
from its start page. This module renders what the browser would show as plain HTML in the tree:

- ``contents.html``: the ``contents.js`` tree as is (its nested lists, labels and links);
- ``bookmarks.html``, ``bookmarks-2.html``, ...: the index entries in ``bookmarks.js`` order
  (module by module, alphabetical in the tree's language), :data:`INDEX_PER_PAGE` a page, with a
  pagination bar linking every page of the index.

Links keep their targets, made relative to the new page and without the ``?DbPAR=<module>`` query
(the module hint that the real help's static server ignores and the test-bed server does not).
Titles come from the tree's start page (its localized ``Contents`` and ``Index`` labels).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape, unescape
from pathlib import Path

import lxml.html

from smartcrawl.web.debian.navpages import NavPage, TreeNav, html_page, page_name, pager_html, paginate
from smartcrawl.web.debian.source import LangTree

CONTENTS_JS = "contents.js"
BOOKMARKS_JS = "bookmarks.js"
CONTENTS_PAGE = "contents.html"
INDEX_STEM = "bookmarks"
INDEX_PER_PAGE = 250

_INNER_HTML = re.compile(r"innerHTML\s*=\s*'(.*)'\s*;?\s*$", re.DOTALL)
_BOOKMARK = re.compile(r'\{\s*url:"((?:[^"\\]|\\.)*)",\s*app:"((?:[^"\\]|\\.)*)",\s*text:"((?:[^"\\]|\\.)*)"\s*\}')
_HREF = re.compile(r'(href\s*=\s*")([^"]*)(")', re.IGNORECASE)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


@dataclass(frozen=True)
class Bookmark:
    """One index entry: target (relative to the help root), module and keyword text (HTML)."""

    url: str
    app: str
    text: str


@dataclass(frozen=True)
class HelpLabels:
    """The localized words of a help tree's user interface."""

    title: str = "LibreOffice Help"
    contents: str = "Contents"
    index: str = "Index"


def js_unescape(text: str) -> str:
    """A JavaScript string literal's body decoded: line continuations dropped, ``\\x`` -> ``x``."""
    text = re.sub(r"\\\r?\n", "", text)
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), text, flags=re.DOTALL)


def local_href(href: str) -> str:
    """A link of the help root made relative to a page in a tree (``fi/text/a.html?DbPAR=X#b`` -> ``../fi/text/a.html#b``)."""
    if _SCHEME.match(href) or href.startswith(("/", "#")):
        return href
    path, hash_, fragment = href.partition("#")
    return "../" + path.split("?", 1)[0] + hash_ + fragment


def contents_html(js_text: str) -> str:
    """The HTML that ``contents.js`` puts into the ``Contents`` element, links made local ('' if none)."""
    m = _INNER_HTML.search(js_text.strip())
    if m is None:
        return ""
    fragment = js_unescape(m.group(1)).strip()
    return _HREF.sub(lambda h: h.group(1) + local_href(unescape(h.group(2))).replace('"', "&quot;") + h.group(3), fragment)


def parse_bookmarks(js_text: str) -> list[Bookmark]:
    """The entries of ``bookmarks.js`` in file order."""
    return [Bookmark(js_unescape(u), js_unescape(a), js_unescape(t)) for u, a, t in _BOOKMARK.findall(js_text)]


def help_labels(page: bytes) -> HelpLabels:
    """Localized title, ``Contents`` and ``Index`` labels read from a help page (English defaults)."""
    default = HelpLabels()
    try:
        doc = lxml.html.document_fromstring(page.decode("utf-8", errors="replace"))
    except (ValueError, lxml.etree.ParserError):
        return default

    def first(xpath: str, fallback: str) -> str:
        for node in doc.xpath(xpath):
            text = " ".join(node.text_content().replace("\U0001f50e", "").replace("\ufe0e", "").split())
            if text:
                return text
        return fallback

    return HelpLabels(
        title=first('//a[contains(@class, "logo")]', default.title),
        contents=first('//label[@for="accordion-1"]', default.contents),
        index=first('//*[contains(@class, "index-label")]', default.index),
    )


def index_pages(entries: list[Bookmark], labels: HelpLabels, lang_code: str,
                per_page: int = INDEX_PER_PAGE) -> list[NavPage]:
    """The keyword index as paginated pages (``bookmarks.html``, ``bookmarks-2.html``, ...)."""
    pages = paginate(entries, per_page)
    out = []
    for number, chunk in enumerate(pages, start=1):
        items = "\n".join(
            f'<li><a href="{escape(local_href(e.url), quote=True)}" class="{escape(e.app, quote=True)}">'
            f"{escape(unescape(e.text))}</a></li>"
            for e in chunk
        )
        pager = pager_html(INDEX_STEM, number, len(pages))
        title = f"{labels.index} ({number}/{len(pages)})" if len(pages) > 1 else labels.index
        body = f'<nav class="index">\n<ul>\n{items}\n</ul>\n</nav>\n{pager}'
        out.append(NavPage(page_name(INDEX_STEM, number, len(pages)), html_page(lang_code, f"{labels.title}: {title}", body)))
    return out


def libreoffice_nav(tree: LangTree, per_page: int = INDEX_PER_PAGE) -> TreeNav:
    """Static contents and index pages of a LibreOffice help tree (nothing when it has no ``contents.js``)."""
    root = Path(tree.root)
    contents_js = root / CONTENTS_JS
    bookmarks_js = root / BOOKMARKS_JS
    start = root / tree.start
    labels = help_labels(start.read_bytes()) if start.is_file() else HelpLabels()
    nav = TreeNav()
    if contents_js.is_file():
        fragment = contents_html(contents_js.read_text(encoding="utf-8", errors="replace"))
        if fragment:
            body = f'<div id="Contents" class="contents-treeview">\n{fragment}\n</div>'
            page = NavPage(CONTENTS_PAGE, html_page(tree.code, f"{labels.title}: {labels.contents}", body))
            nav += TreeNav((page,), ((CONTENTS_PAGE, labels.contents),))
    if bookmarks_js.is_file():
        pages = index_pages(parse_bookmarks(bookmarks_js.read_text(encoding="utf-8", errors="replace")),
                            labels, tree.code, per_page)
        if pages:
            nav += TreeNav(tuple(pages), ((pages[0].rel, labels.index),))
    return nav
