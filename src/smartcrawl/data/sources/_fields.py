"""Small field checks shared by the readers: URLs and configured language codes."""

from __future__ import annotations

import re

from smartcrawl.langs import to_iso3

_SPACE_RE = re.compile(r"\s")


def clean_url(field: str) -> str | None:
    """The URL in a text field with outer whitespace removed; ``None`` if empty or containing whitespace.

    Readers do not validate URL syntax further; builders count unparsable URLs themselves.
    """
    url = field.strip()
    if not url or _SPACE_RE.search(url):
        return None
    return url


def config_lang(code: str, what: str) -> str:
    """Normalise a language given in configuration to ISO 639-3; raise ``ValueError`` if unknown."""
    iso3 = to_iso3(code)
    if iso3 is None:
        raise ValueError(f"{what}: unknown language code {code!r}")
    return iso3
