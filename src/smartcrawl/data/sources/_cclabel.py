"""Turn one CommonCrawl index entry (URL, languages, status, MIME type) into a language fact.

Shared by the CDX and the columnar (Parquet) index readers. ``languages`` is CommonCrawl's
comma-separated list of ISO 639-3 codes detected by CLD2 in the content, largest share first; the
label is the first one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from smartcrawl.data.records import LangRecord, Rejects
from smartcrawl.data.sources._fields import url_ok
from smartcrawl.langs import to_iso3

HTML_MIME = "text/html"
_MAX_ACCEPTED = 1_000_000  # bound on the memo of accepted ``languages`` strings


def is_html(mime: str) -> bool:
    """True for ``text/html`` (any case, parameters such as ``; charset=...`` ignored)."""
    return mime == HTML_MIME or mime.split(";", 1)[0].strip().lower() == HTML_MIME


@dataclass
class CCLabeller:
    """Checks one index entry and returns its :class:`LangRecord`, or counts why it is rejected.

    Checks in this order, each with its reject reason: URL empty or containing whitespace
    (``empty_or_whitespace_url``); status present and not 200 (``not_200``, when ``require_200``); MIME type present
    and not ``text/html`` (``not_html``, when ``require_html``); languages missing or empty
    (``no_language``); first language not a known code (``unknown_language``); more than one language
    when ``single_language_only`` (``multilingual``).

    :attr:`accepted` memoises ``languages`` strings that passed, with their label, so a hot loop can
    skip the checks for an entry that is plainly fine (good URL, status 200, HTML) and call
    :meth:`label` for everything else.
    """

    rejects: Rejects
    source: str
    single_language_only: bool = False
    require_200: bool = True
    require_html: bool = True
    accepted: dict[str, str] = field(default_factory=dict)

    def label(
        self,
        url: str | None,
        languages: str | None,
        status: str | None,
        mime: str | None,
        example: str | None = None,
    ) -> LangRecord | None:
        """The language fact of one entry (``status`` as text), or ``None`` after counting the reject.

        ``example`` is what :class:`Rejects` keeps for a rejected entry (default: the fields, tab-joined).
        """
        reason, iso3 = self._check(url, languages, status, mime)
        if url is None or languages is None or iso3 is None:
            self.rejects.add(reason, example or f"{url}\t{languages}\t{status}\t{mime}")
            return None
        if len(self.accepted) < _MAX_ACCEPTED:
            self.accepted[languages] = iso3
        return LangRecord(url, iso3, self.source)

    def _check(
        self, url: str | None, languages: str | None, status: str | None, mime: str | None
    ) -> tuple[str, str | None]:
        """``("", label)`` for a good entry, else ``(reject reason, None)``."""
        if url is None or not url_ok(url):
            return "empty_or_whitespace_url", None
        if self.require_200 and status is not None and status != "200":
            return "not_200", None
        if self.require_html and mime is not None and not is_html(mime):
            return "not_html", None
        if not languages:
            return "no_language", None
        first, comma, _ = languages.partition(",")
        iso3 = to_iso3(first)
        if iso3 is None:
            return "unknown_language", None
        if comma and self.single_language_only:
            return "multilingual", None
        return "", iso3
