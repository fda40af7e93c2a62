"""The language-chooser root page added to a site that has no page at ``/``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from smartcrawl.langs import LANGUAGES, info
from smartcrawl.web.debian.source import SiteSource


def _names(lang: str) -> tuple[str, str]:
    """(endonym, English name) of an ISO 639-3 code."""
    try:
        li = LANGUAGES.get(lang) or info(lang)
    except KeyError:
        return lang, lang
    return li.endonym, li.name


def chooser_html(source: SiteSource, entries: Mapping[str, Sequence[tuple[str, str]]] | None = None) -> bytes:
    """A root page listing each language tree's start page (endonym, ``hreflang`` = the tree's code).

    ``entries`` (tree code -> ``(path relative to the tree, label)``) adds links after a tree's start
    page, such as its contents, index and site map.
    """
    items = []
    for tree in source.trees:
        endonym, english = _names(tree.lang)
        code = escape(tree.code, quote=True)
        href = escape(tree.prefix + tree.start, quote=True)
        label = escape(endonym if endonym == english else f"{endonym} ({english})")
        extra = "".join(
            f' | <a href="{escape(tree.prefix + rel, quote=True)}" hreflang="{code}">{escape(text)}</a>'
            for rel, text in (entries or {}).get(tree.code, ())
        )
        items.append(f'<li><a href="{href}" hreflang="{code}">{label}</a>{extra}</li>')
    title = escape(source.title)
    return (
        "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{title}</title>\n</head>\n<body>\n<h1>{title}</h1>\n<ul>\n"
        + "\n".join(items)
        + "\n</ul>\n</body>\n</html>\n"
    ).encode("utf-8")
