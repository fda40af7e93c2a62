"""Small field checks shared by the readers: URLs and configured language codes."""

from __future__ import annotations

import re

from smartcrawl.langs import UNKNOWN, to_iso3

_SPACE_RE = re.compile(r"\s")


def clean_url(field: str) -> str | None:
    """The URL in a text field with outer whitespace removed; ``None`` if empty or containing whitespace.

    Readers do not validate URL syntax further; builders count unparsable URLs themselves.
    """
    url = field.strip()
    return url if url_ok(url) else None


def url_ok(url: str) -> bool:
    """True when ``url`` is a non-empty string without any whitespace."""
    if not url or " " in url:
        return False
    return url.isprintable() or _SPACE_RE.search(url) is None


def config_lang(code: str, what: str) -> str:
    """Normalise a language given in configuration to ISO 639-3; raise ``ValueError`` if unknown or ``und``."""
    iso3 = to_iso3(code)
    if iso3 is None or iso3 == UNKNOWN:
        raise ValueError(f"{what}: unknown language code {code!r}")
    return iso3
