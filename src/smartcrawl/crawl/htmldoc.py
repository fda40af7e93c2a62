"""Turn a downloaded body into an HTML tree, tolerantly, and spot bodies that are not text at all.

lxml's recovering parser reads malformed HTML (unclosed tags, stray bytes, truncated documents);
a body that yields no tree gives ``None``. :func:`looks_binary` catches binary files served as
``text/html`` before anything tries to read them as text.
"""

from __future__ import annotations

from lxml import etree

_CONTROL = bytes(range(0, 9)) + bytes(range(14, 32))
_SNIFF_BYTES = 4096


def looks_binary(body: bytes, max_control_share: float = 0.05) -> bool:
    """Whether a body looks binary: more than ``max_control_share`` control bytes (NUL included) in its first 4 KiB.

    A few stray control bytes in a malformed page do not make it binary.
    """
    head = body[:_SNIFF_BYTES]
    if not head:
        return False
    controls = sum(head.count(c) for c in _CONTROL)
    return controls / len(head) > max_control_share


def parse_html(text: str) -> etree._Element | None:
    """The root of ``text`` parsed as HTML (recovering from errors), or ``None`` when nothing parses."""
    if not text or not text.strip():
        return None
    parser = etree.HTMLParser(recover=True, encoding="utf-8", remove_comments=True, no_network=True)
    try:
        root = etree.fromstring(text.encode("utf-8", errors="replace"), parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return None
    return root


def base_href(root: etree._Element) -> str | None:
    """The document's ``<base href>``, if any."""
    for value in root.xpath("//base/@href"):
        value = str(value).strip()
        if value:
            return value
    return None
