"""Counterparts: links whose URL, language tokens removed, is that of a page already downloaded.

The paper's smart score only looks at the page being parsed and its own outlinks. On a site whose
pages do not link to their translations (no language switcher: the two languages' sections meet
only at the home pages) the translation of a page is found from another page of the other
language, often long after the page itself; the paper's score then rates it like any other link.

:class:`CounterpartIndex` remembers, per crawler process, the language-stripped forms of the pages
downloaded in each language of the pair and of the links offered so far (WMT16 URL matching,
:class:`~smartcrawl.models.baselines.url_matching.UrlMatcher`, restricted to the pair's tokens).
It answers two questions:

- :meth:`CounterpartIndex.completes`: does this new link complete a pair, i.e. is it the
  counterpart of a downloaded page of the other language?
- :meth:`CounterpartIndex.download`: the page just downloaded is the counterpart of which links
  offered earlier (still waiting, at a low priority)? The caller offers them again at the best
  priority; the frontier re-queues a waiting URL found again with a better priority.

A page whose URL is marked as the other language only (``/fi/x`` downloaded with English text) is
a fallback: the site serves its untranslated page under the translation's URL. Its counterpart
by URL is the page it copies, not a translation, so it is not recorded.

Memory is bounded: each table keeps its ``max_entries`` most recent keys. Several crawler
processes sharing a Redis frontier each know only their own pages, which loses some matches and
nothing else.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence

from smartcrawl.models.baselines.url_matching import CachedUrlMatcher


class _Table:
    """A bounded key -> set of URLs map; the oldest keys go first."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self.data: OrderedDict[str, set[str]] = OrderedDict()

    def add(self, key: str, url: str) -> None:
        urls = self.data.get(key)
        if urls is None:
            urls = self.data[key] = set()
            while len(self.data) > self.max_entries:
                self.data.popitem(last=False)
        else:
            self.data.move_to_end(key)
        urls.add(url)

    def get(self, key: str | None) -> set[str]:
        if key is None:
            return set()
        return self.data.get(key, set())

    def discard(self, key: str | None, url: str) -> None:
        if key is None:
            return
        urls = self.data.get(key)
        if urls is not None:
            urls.discard(url)
            if not urls:
                del self.data[key]


class CounterpartIndex:
    """Language-stripped URL forms of downloaded pages and offered links (module docstring)."""

    def __init__(self, pair: Sequence[str], max_entries: int = 200_000) -> None:
        self.pair = (str(pair[0]), str(pair[1]))
        self.matcher = CachedUrlMatcher(self.pair[0], self.pair[1], all_langs=self.pair, max_entries=max_entries)
        # downloaded pages, per language: stripped form -> urls, canonical form -> urls
        self._pages_stripped = {lang: _Table(max_entries) for lang in self.pair}
        self._pages_canonical = {lang: _Table(max_entries) for lang in self.pair}
        # offered links that may be in `lang`: stripped-as-`lang` form -> urls; canonical form -> urls
        self._links_stripped = {lang: _Table(max_entries) for lang in self.pair}
        self._links_canonical = _Table(max_entries)

    def other(self, lang: str) -> str:
        """The other language of the pair."""
        return self.pair[1] if lang == self.pair[0] else self.pair[0]

    def _forms(self, url: str) -> tuple[str, str | None, str | None]:
        """(canonical, stripped as pair[0], stripped as pair[1]) of a URL."""
        m = self.matcher
        return m.canonical(url), m.strip(url, self.pair[0]), m.strip(url, self.pair[1])

    def _stripped(self, url: str, lang: str) -> tuple[str, str | None]:
        canonical, first, second = self._forms(url)
        return canonical, (first if lang == self.pair[0] else second)

    def completes(self, url: str) -> bool:
        """Whether ``url``, in one language of the pair, matches a page downloaded in the other one."""
        for lang in self.pair:
            canonical, stripped = self._stripped(url, lang)
            other = self.other(lang)
            pages = self._pages_stripped[other]
            if pages.get(stripped) - {url} or pages.get(canonical) - {url} or \
                    self._pages_canonical[other].get(stripped) - {url}:
                return True
        return False

    def offer(self, urls: Iterable[str]) -> None:
        """Remember links that wait in the frontier, so a later download can find them."""
        for url in urls:
            canonical = self._forms(url)[0]
            self._links_canonical.add(canonical, url)
            for lang in self.pair:
                stripped = self._stripped(url, lang)[1]
                if stripped is not None:
                    self._links_stripped[lang].add(stripped, url)

    def download(self, url: str, lang: str) -> list[str]:
        """Record a page downloaded in ``lang`` (of the pair); return the offered links that are its counterparts.

        The returned links are forgotten (they are offered once more, by the caller, not again).
        """
        if lang not in self.pair:
            return []
        other = self.other(lang)
        if self.matcher.marks(url, other) and not self.matcher.marks(url, lang):
            self._forget_link(url)  # a fallback (module docstring)
            return []
        canonical, stripped = self._stripped(url, lang)
        if stripped is not None:
            self._pages_stripped[lang].add(stripped, url)
        self._pages_canonical[lang].add(canonical, url)
        found: set[str] = set()
        if stripped is not None:
            found |= self._links_stripped[other].get(stripped)
            found |= self._links_canonical.get(stripped)
        found |= self._links_stripped[other].get(canonical)
        found.discard(url)
        for link in found:
            self._forget_link(link)
        self._forget_link(url)
        return sorted(found)

    def _forget_link(self, url: str) -> None:
        canonical = self._forms(url)[0]
        self._links_canonical.discard(canonical, url)
        for lang in self.pair:
            self._links_stripped[lang].discard(self._stripped(url, lang)[1], url)
