"""URL parsing, registered domains and the classifiers' URL pre-processing.

Registered domains come from the public suffix list bundled with ``tldextract`` (no network).
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

import tldextract

# suffix_list_urls=() keeps tldextract on its bundled snapshot; cache_dir=None avoids writing to $HOME.
_EXTRACT = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)

_SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
_WHITESPACE_RE = re.compile(r"\s")
# Fast path for the common case: scheme, then a netloc without userinfo or IPv6 brackets.
_SIMPLE_NETLOC_RE = re.compile(r"^(https?)://([A-Za-z0-9.-]+)(?::(\d{1,5}))?(?=[/?#]|$)", re.IGNORECASE)


class BadURL(ValueError):
    """A URL that cannot be used; ``reason`` is a short stable key for counting."""

    def __init__(self, reason: str, url: str) -> None:
        super().__init__(f"{reason}: {url[:200]!r}")
        self.reason = reason
        self.url = url


class HostParts(NamedTuple):
    """A host split by the public suffix list."""

    subdomain: str
    domain: str
    suffix: str

    @property
    def registered_domain(self) -> str:
        """``domain.suffix`` (or the bare host when it has no public suffix, e.g. an IP address)."""
        if self.domain and self.suffix:
            return f"{self.domain}.{self.suffix}"
        return self.domain or self.suffix


@functools.lru_cache(maxsize=262144)
def host_parts(host: str) -> HostParts:
    """Split a host name into subdomain, domain and public suffix (cached: hosts repeat a lot)."""
    ext = _EXTRACT(host, include_psl_private_domains=False)
    return HostParts(ext.subdomain, ext.domain, ext.suffix)


def url_host(url: str) -> str:
    """Lower-cased host of an absolute http(s) URL; raises :class:`BadURL` when there is none."""
    url = url.strip()
    if not url:
        raise BadURL("empty_url", url)
    if _WHITESPACE_RE.search(url):
        raise BadURL("whitespace_in_url", url)
    m = _SIMPLE_NETLOC_RE.match(url)
    if m:
        host = m.group(2).lower().rstrip(".")
        if "." not in host:
            raise BadURL("no_host", url)
        return host
    if not _SCHEME_RE.match(url):
        url = "http://" + url
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError as exc:  # e.g. bad IPv6 literal or port
        raise BadURL("unparsable_url", url) from exc
    if parts.scheme.lower() not in ("http", "https"):
        raise BadURL("not_http_url", url)
    if not host or "." not in host.strip("."):
        raise BadURL("no_host", url)
    return host.rstrip(".")


def is_usable(url: str) -> bool:
    """Whether ``url`` is an absolute http(s) URL with a host (see :func:`url_host`)."""
    try:
        url_host(url)
    except BadURL:
        return False
    return True


def registered_domain(url: str) -> str:
    """Registered web domain of a URL (``https://www.bbc.co.uk/x`` -> ``bbc.co.uk``).

    Raises :class:`BadURL` for URLs without a usable host.
    """
    m = _SIMPLE_NETLOC_RE.match(url)
    if m is not None and not _WHITESPACE_RE.search(url):
        # Hot path of data preparation: one cached look-up per distinct host name.
        return _host_registered_domain(m.group(2))
    return host_parts(url_host(url)).registered_domain


@functools.lru_cache(maxsize=262144)
def _host_registered_domain(netloc: str) -> str:
    host = netloc.lower().rstrip(".")
    if "." not in host:
        raise BadURL("no_host", netloc)
    return host_parts(host).registered_domain


def preprocess_url(url: str) -> str:
    """The classifiers' view of a URL, as in the paper authors' code.

    Strips the scheme, percent-decodes, and splits on ``/`` so that the subword tokeniser sees
    path segments as words: ``https://a.com/en/x%20y`` -> ``a.com / en / x y``.
    """
    text = _SCHEME_RE.sub("", url.strip(), count=1)
    text = unquote(text, errors="replace")
    return " / ".join(seg for seg in text.split("/") if seg)
