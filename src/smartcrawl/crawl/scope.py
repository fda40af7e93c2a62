"""Which URLs the crawler may follow, and which site each one belongs to.

- :class:`UrlFilter`: rules on the URL alone (the same answer whatever the crawl order): http(s)
  only, a host that parses, a length cap, a cap on path segments, no path segment repeated more
  than ``max_segment_repeats`` times in a row (Heritrix's ``PathologicalPathDecideRule``: it ends
  ``a/a/a/...`` relative-link traps), no file extension of a known binary type (the list of
  Scrapy's link extractor). :meth:`UrlFilter.reject_reason` says why a URL is refused.
- :class:`Scope`: the sites of the crawl. ``host`` keeps the seeds' hosts; ``domain`` (default)
  their registered domains (``www.x.com`` and ``mt.x.com`` are one site, as translations often
  live on sibling subdomains); ``any`` follows every host. The site key of a URL (budgets are per
  site) is its host in ``host`` mode and its registered domain otherwise.

Hosts under a suffix the public suffix list does not know (the test bed's ``.test``) take their
last two labels as the registered domain.
"""

from __future__ import annotations

import itertools
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from scrapy.linkextractors import IGNORED_EXTENSIONS

from smartcrawl.crawl.config import ScopeMode
from smartcrawl.urls import BadURL, host_parts, url_host

_SCHEMES = ("http", "https")
_BINARY_EXTENSIONS: frozenset[str] = frozenset("." + e for e in IGNORED_EXTENSIONS)


def site_domain(host: str) -> str:
    """Registered domain of a host; the last two labels when the public suffix is unknown."""
    parts = host_parts(host)
    if parts.suffix and parts.domain:
        return parts.registered_domain
    labels = host.split(".")
    if len(labels) == 4 and all(label.isdigit() for label in labels):
        return host  # an IPv4 address
    return ".".join(labels[-2:])


@dataclass(frozen=True)
class UrlFilter:
    """URL-only rules (see the module docstring)."""

    max_url_length: int = 2048
    max_path_segments: int = 20
    max_segment_repeats: int = 2

    def reject_reason(self, url: str) -> str | None:
        """``None`` when ``url`` may be followed, else a short reason key."""
        if len(url) > self.max_url_length:
            return "url_too_long"
        try:
            parts = urlsplit(url)
            scheme = parts.scheme.lower()
            parts.port  # noqa: B018  (raises ValueError on a bad port)
        except ValueError:
            return "bad_url"
        if scheme not in _SCHEMES:
            return "not_http"
        try:
            url_host(url)
        except BadURL:
            return "bad_url"
        segments = [s for s in parts.path.split("/") if s]
        if len(segments) > self.max_path_segments:
            return "too_many_segments"
        run = 1
        for prev, cur in itertools.pairwise(segments):
            run = run + 1 if cur == prev else 1
            if run > self.max_segment_repeats:
                return "repeated_segments"
        ext = posixpath.splitext(unquote(parts.path).lower())[1]
        if ext in _BINARY_EXTENSIONS:
            return "binary_extension"
        return None


class Scope:
    """The sites of a crawl, from its seeds (see the module docstring)."""

    def __init__(self, seeds: Iterable[str], mode: ScopeMode = "domain") -> None:
        if mode not in ("host", "domain", "any"):
            raise ValueError(f"unknown scope mode {mode!r} (host, domain, any)")
        self.mode: ScopeMode = mode
        self.seed_hosts: frozenset[str] = frozenset(url_host(s) for s in seeds)
        self.seed_domains: frozenset[str] = frozenset(site_domain(h) for h in self.seed_hosts)

    def site_of(self, url: str) -> str:
        """The site key of ``url`` (raises :class:`~smartcrawl.urls.BadURL` when it has no host)."""
        host = url_host(url)
        return host if self.mode == "host" else site_domain(host)

    def allows(self, url: str) -> bool:
        """Whether ``url`` lies inside the crawl's sites."""
        if self.mode == "any":
            return True
        try:
            host = url_host(url)
        except BadURL:
            return False
        if self.mode == "host":
            return host in self.seed_hosts
        return site_domain(host) in self.seed_domains


def same_domain(url_a: str, url_b: str) -> bool:
    """Whether two URLs share a registered domain (the authors' "same domain" of the smart policy)."""
    try:
        return site_domain(url_host(url_a)) == site_domain(url_host(url_b))
    except BadURL:
        return False
