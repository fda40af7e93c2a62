"""Static navigation pages added to a language tree (contents, index, site map): page shell and pagination.

A :class:`TreeNav` holds the pages generated for one language tree (paths relative to the tree
root) and the entry points among them that the site's language chooser links to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class NavPage:
    """One generated page: its path relative to the tree root and its HTML (UTF-8)."""

    rel: str
    body: bytes


@dataclass(frozen=True)
class TreeNav:
    """Generated pages of one tree and the entry points ``(rel, label)`` the chooser links to."""

    pages: tuple[NavPage, ...] = ()
    entries: tuple[tuple[str, str], ...] = ()

    def __add__(self, other: TreeNav) -> TreeNav:
        return TreeNav(self.pages + other.pages, self.entries + other.entries)


def paginate(items: Sequence[T], per_page: int) -> list[list[T]]:
    """``items`` cut into pages of at most ``per_page`` (no page when there are no items)."""
    if per_page < 1:
        raise ValueError(f"per_page must be positive, got {per_page}")
    return [list(items[i:i + per_page]) for i in range(0, len(items), per_page)]


def page_name(stem: str, number: int, count: int) -> str:
    """File name of page ``number`` (1-based) of a series: ``stem.html``, then ``stem-2.html``, ..."""
    if not 1 <= number <= count:
        raise ValueError(f"page {number} outside 1..{count}")
    return f"{stem}.html" if number == 1 else f"{stem}-{number}.html"


def pager_html(stem: str, number: int, count: int) -> str:
    """A pagination bar linking every page of the series (relative names), the current one unlinked."""
    if count <= 1:
        return ""
    items = []
    for n in range(1, count + 1):
        if n == number:
            items.append(f'<li class="page active"><span>{n}</span></li>')
        else:
            items.append(f'<li class="page"><a href="{escape(page_name(stem, n, count), quote=True)}">{n}</a></li>')
    return '<nav class="pagination-container"><ul class="pagination">' + "".join(items) + "</ul></nav>"


def html_page(lang_code: str, title: str, body: str, base: str | None = None) -> bytes:
    """A complete UTF-8 HTML page (``title`` is text, ``body`` HTML); ``base`` adds a ``<base href>``."""
    base_tag = f'<base href="{escape(base, quote=True)}">\n' if base else ""
    return (
        f'<!DOCTYPE html>\n<html lang="{escape(lang_code, quote=True)}">\n<head>\n{base_tag}'
        '<meta http-equiv="Content-Type" content="text/html; charset=utf-8">\n'
        f"<title>{escape(title)}</title>\n</head>\n<body>\n<h1>{escape(title)}</h1>\n{body}\n</body>\n</html>\n"
    ).encode("utf-8")
