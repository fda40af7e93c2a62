"""Canonical URLs and fingerprints: the key of the crawler's seen-set.

The crawler fetches a URL as it was found, but de-duplicates on its canonical form (as Heritrix's
canonicalisation rules and Scrapy's request fingerprints do): w3lib's canonical URL (sorted query,
normalised percent-encoding, no fragment, lower-case host), without the default port, without
session-id query parameters or ``;jsessionid=`` path parameters. So ``/page?sid=1`` and
``/page?sid=2`` are one page, which ends session-id traps.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from types import MappingProxyType
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from w3lib.url import canonicalize_url

SESSION_PARAMS: frozenset[str] = frozenset({
    "sid", "sessionid", "session_id", "jsessionid", "phpsessid", "aspsessionid", "cfid", "cftoken", "sessid",
})
_PATH_SESSION = re.compile(r";(jsessionid|phpsessid|sid)=[^/?#]*", re.IGNORECASE)
_DEFAULT_PORTS: Mapping[str, int] = MappingProxyType({"http": 80, "https": 443})


def strip_session_ids(url: str) -> str:
    """``url`` without session-id query parameters and ``;jsessionid=...`` path parameters."""
    parts = urlsplit(url)
    path = _PATH_SESSION.sub("", parts.path)
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        kept = [(k, v) for k, v in pairs if k.lower() not in SESSION_PARAMS]
        if len(kept) != len(pairs):
            query = urlencode(kept)
    return urlunsplit((parts.scheme, parts.netloc, path, query, parts.fragment))


def canonical_url(url: str) -> str:
    """The canonical form of an absolute URL (see the module docstring); raises ``ValueError`` if it does not parse."""
    canon = canonicalize_url(strip_session_ids(url.strip()), keep_fragments=False)
    parts = urlsplit(canon)
    port = parts.port  # raises ValueError on a bad port
    if port is not None and _DEFAULT_PORTS.get(parts.scheme) == port:
        host = parts.hostname or ""
        netloc = (f"{parts.username}@" if parts.username else "") + host
        canon = urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))
    return canon


def fingerprint(url: str) -> bytes:
    """SHA-1 (20 bytes) of the canonical URL: the seen-set key."""
    return hashlib.sha1(canonical_url(url).encode("utf-8")).digest()
