"""Real, crawler-emulating negatives from WMT16 ``.lett`` files (paper, section 4.1).

The paper: "For each URL in the gold standard, we extract all the URLs linked in the
corresponding HTML content and discard those pointing to documents neither in English, nor in
French. We then build a set of URL pairs by pairing the original URL with every linked URL.
Finally, we check if one of these pairs appears in the gold standard, and if it does, we label the
rest of pairs as non-parallel; otherwise, we discard all the pairs in the set."

What :func:`lett_link_negatives` does, per ``.lett`` file (one crawled site):

1. one pass over the pages keeps the language of every page (URL without ``#fragment``) and the
   out-links of the pages that are gold URLs (``<a|area|link href>``, ``<frame|iframe src>``,
   resolved against the page URL, fragment removed);
2. for a gold URL ``g``, the linked URLs kept are the pages *of the same file* whose language is
   one of the languages of ``g``'s gold pairs (``eng``/``fra`` for WMT16), other than ``g``;
3. if one of them is a gold partner of ``g``, every other kept link ``w`` gives the negative
   ``(g, w)`` with the two pages' languages (so some are same-language pairs, as a crawler
   meets them); if none is, the set is discarded (counted);
4. at most ``per_gold_pair`` negatives per gold pair of ``g`` are kept, a seeded random sample.

Negatives are emitted as ``(origin, linked)``: the gold URL first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from html.parser import HTMLParser
from types import MappingProxyType
from typing import Protocol
from urllib.parse import urldefrag, urljoin

import numpy as np

from smartcrawl.data.splits import stable_hash64

_LINK_ATTRS: Mapping[str, str] = MappingProxyType(
    {"a": "href", "area": "href", "link": "href", "frame": "src", "iframe": "src"}
)


class LettPage(Protocol):
    """What this module needs of a ``.lett`` page (``smartcrawl.data.sources.LettDocument``)."""

    @property
    def lang(self) -> str: ...

    @property
    def url(self) -> str: ...

    @property
    def html(self) -> str: ...


@dataclass(frozen=True, slots=True)
class LinkNegative:
    """A gold URL, a page it links to that is not its translation, and both pages' languages."""

    src_url: str
    trg_url: str
    src_lang: str
    trg_lang: str


class _LinkParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        want = _LINK_ATTRS.get(tag)
        if want is None:
            return
        for name, value in attrs:
            if name == want and value:
                self.links.append(value.strip())


def extract_links(html: str, base_url: str) -> list[str]:
    """Absolute http(s) out-links of an HTML page, fragments removed, in document order, no repeats.

    Never raises: a page the parser cannot read gives the links found before the problem.
    """
    parser = _LinkParser()
    try:
        parser.feed(html)
        parser.close()
    except Exception:  # noqa: BLE001 - html.parser may raise on pathological input; keep what we have
        pass
    out: dict[str, None] = {}
    for href in parser.links:
        try:
            absolute = urldefrag(urljoin(base_url, href))[0]
        except ValueError:
            continue
        if absolute.startswith(("http://", "https://")):
            out.setdefault(absolute, None)
    return list(out)


def lett_link_negatives(
    pages: Iterable[LettPage],
    gold_partners: Mapping[str, frozenset[str]],
    gold_langs: Mapping[str, frozenset[str]],
    per_gold_pair: int,
    seed: int,
    counts: Counter[str],
) -> Iterator[LinkNegative]:
    """Crawler-emulating negatives of one ``.lett`` file (one site); see the module docstring.

    ``gold_partners[g]`` are the URLs paired with gold URL ``g`` (either order); ``gold_langs[g]``
    the languages of those pairs. ``counts`` receives ``pages``, ``gold_pages``,
    ``gold_pages_without_gold_link`` and ``capped`` (links dropped by the cap).
    """
    lang_of: dict[str, str] = {}
    links_of: dict[str, tuple[str, list[str]]] = {}
    for page in pages:
        counts["pages"] += 1
        url = urldefrag(page.url)[0]
        lang_of.setdefault(url, page.lang)
        if url in gold_partners and url not in links_of:
            html = page.html if isinstance(page.html, str) else bytes(page.html).decode("utf-8", "replace")
            links_of[url] = (page.lang, extract_links(html, page.url))
    for origin in sorted(links_of):
        counts["gold_pages"] += 1
        origin_lang, links = links_of[origin]
        wanted_langs = gold_langs.get(origin, frozenset())
        kept = [w for w in links if w != origin and lang_of.get(w) in wanted_langs]
        partners = gold_partners[origin]
        if not any(w in partners for w in kept):
            counts["gold_pages_without_gold_link"] += 1
            continue
        rest = [w for w in kept if w not in partners]
        cap = max(0, per_gold_pair) * len(partners)
        if len(rest) > cap:
            counts["capped"] += len(rest) - cap
            rng = np.random.default_rng([seed, stable_hash64(origin, "lett")])
            rest = [rest[i] for i in sorted(rng.choice(len(rest), size=cap, replace=False))]
        for w in rest:
            yield LinkNegative(origin, w, origin_lang, lang_of[w])
