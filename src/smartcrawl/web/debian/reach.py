"""Which stored pages of a built web a link-following crawler can reach from the site seeds.

A breadth-first walk over the stored pages, with the crawler's own link extraction
(:func:`smartcrawl.crawl.links.extract_links`: ``<a>``/``<area>``/``<link rel=alternate>``,
``<base href>`` honoured, fragments dropped), following redirects and staying on the seed's host.
It checks that every ground-truth page of a site can be found by plain links; it needs no server.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from smartcrawl.crawl.htmldoc import parse_html
from smartcrawl.crawl.links import extract_links
from smartcrawl.web.debian.langid import sniff_charset
from smartcrawl.web.store import WebStore, page_key


def page_links(store: WebStore, url: str) -> list[str]:
    """The outlinks (stored-page keys) of the stored page ``url``: its redirect target or its HTML links."""
    page = store.get(url)
    if page is None:
        return []
    if page.location:
        return [page_key(urljoin(page.url, page.location))]
    if page.status != 200 or not page.content_type.startswith("text/html"):
        return []
    root = parse_html(page.body.decode(sniff_charset(page.body), errors="replace"))
    return [page_key(link) for link in extract_links(root, page.url).urls]


def reachable(store: WebStore, seeds: Iterable[str], cache: dict[str, list[str]] | None = None) -> dict[str, int]:
    """Stored URLs reachable from ``seeds`` by links (and redirects) that stay on a seed's host -> hops from a seed.

    ``cache`` (URL -> its links) saves parsing a page again in a later walk over the same store.
    """
    cache = {} if cache is None else cache
    seed_keys = [page_key(s) for s in seeds]
    hosts = {urlsplit(s).hostname for s in seed_keys}
    hops: dict[str, int] = {}
    missing: set[str] = set()
    todo: deque[tuple[str, int]] = deque((s, 0) for s in seed_keys)
    while todo:
        url, depth = todo.popleft()
        if url in hops or url in missing:
            continue
        if url not in cache:
            if store.get(url) is None:
                missing.add(url)
                continue
            cache[url] = page_links(store, url)
        hops[url] = depth
        for link in cache[url]:
            if link not in hops and urlsplit(link).hostname in hosts:
                todo.append((link, depth + 1))
    return hops


@dataclass(frozen=True)
class Reach:
    """Ground-truth pages of one site and how many of them the seeds reach."""

    host: str
    truth_pages: int
    reached: int
    stored_pages: int
    reached_stored: int
    max_hops: int

    @property
    def share(self) -> float:
        """Share of the truth pages reached (1.0 for a site without truth)."""
        return self.reached / self.truth_pages if self.truth_pages else 1.0


def site_reach(store: WebStore) -> list[Reach]:
    """Per site of the web: truth pages (``truth/langs.parquet``) reached from its seeds."""
    truth = store.truth_langs()
    out = []
    for site in store.sites():
        seen = reachable(store, site.seeds)
        urls = set(truth.loc[truth.host == site.host, "url"])
        stored = sum(1 for _ in _site_urls(store, site.host))
        out.append(Reach(site.host, len(urls), len(urls & seen.keys()), stored, len(seen), max(seen.values(), default=0)))
    return out


def _site_urls(store: WebStore, host: str) -> Iterable[str]:
    return (p.url for p in store.iter_pages() if urlsplit(p.url).hostname == host)
