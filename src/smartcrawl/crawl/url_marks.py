"""The language a URL is marked with, where it has a mark: ``/sv/``, ``?lang=sv``, ``sv.site.com``, ``page.sv.html``.

The smart strategy (``language_marks``) uses it to send last the links that go to another
language's section of a site, the least useful ones to explore, and to follow early the links of a
"choose your language" page that go to the pair's sections. It reads three of the URL-rules
baseline's parts (query values, directories, subdomain;
:class:`~smartcrawl.models.baselines.url_rules.UrlRulesClassifier`), then a code before the file
extension (``index.gl.htm``, ``page_sv.php``), which that baseline does not look at. The public
suffix is left out: ``.is`` names a country, and the whole site shares it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from smartcrawl.langs import LANGUAGES
from smartcrawl.models.baselines.url_rules import UrlRulesClassifier, language_codes

_FILE_CODE = re.compile(r"[._-]([A-Za-z]{2,3})\.[A-Za-z0-9]{2,5}$")


class LanguageMarks:
    """Finds the language code a URL carries, among ``langs`` (default: every known language)."""

    def __init__(self, langs: Iterable[str] | None = None) -> None:
        labels = set(LANGUAGES) if langs is None else set(langs)
        self._rules = UrlRulesClassifier(labels)
        self._codes = language_codes(labels)

    def language_of(self, url: str) -> str | None:
        """The ISO 639-3 language the URL is marked with, or ``None`` when it has no mark."""
        parts = self._rules.detect(url)
        for part in ("params", "dirs", "subdomain"):
            if parts[part] is not None:
                return parts[part]
        try:
            path = urlsplit(url).path
        except ValueError:
            return None
        found = _FILE_CODE.search(path.rsplit("/", 1)[-1])
        return self._codes.get(found.group(1).lower()) if found else None
