"""The plan of one synthetic site: languages, URL addressing, sections, documents, links and traps.

A :class:`SiteModel` holds every decision about a site except the HTML text itself (rendered by
:mod:`smartcrawl.web.websim.render`), so the URL pairs of a web can be listed without rendering
(the calibration does that). Every page is reachable from the site's seed (its main home page):
home -> language homes -> sections -> paginated lists -> documents.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from urllib.parse import urlsplit

from smartcrawl.web.websim.config import WebsimConfig
from smartcrawl.web.websim.conventions import AddressPlan, LabelMaker, SiteUrls, assign_addresses
from smartcrawl.web.websim.text import (
    Lexicon,
    Paragraph,
    Sentence,
    Vocabulary,
    content_words,
    make_entities,
    make_paragraphs,
    make_title,
    slugify,
)

OFF_WEB_HOSTS: tuple[str, ...] = (
    "www.facebook.com", "twitter.com", "www.youtube.com", "www.instagram.com", "www.linkedin.com",
    "maps.google.com", "www.tripadvisor.com", "wordpress.org", "www.w3.org", "github.com",
)

# Page kinds.
HOME, LIST, DOC, CALENDAR, SESSION, REDIRECT = "home", "list", "doc", "calendar", "session", "redirect"


@dataclass(frozen=True)
class Section:
    """A section of the site (a menu entry) with its list pages."""

    idx: int
    concept: int  # noun id that names the section
    slugs: Mapping[str, str]  # lang -> path slug
    ids: Mapping[str, int]  # lang -> category id (opaque URLs)
    intro: tuple[Paragraph, ...]


@dataclass
class Doc:
    """A document and its language versions (real translations and main-language fallbacks)."""

    idx: int
    section: int
    title: Sentence
    body: tuple[Paragraph, ...]
    entities: tuple[str, ...]
    langs: frozenset[str]  # languages with a real translation (always includes the main language)
    fallback: frozenset[str]  # languages whose URL serves the main-language text
    related: tuple[int, ...]
    date: str
    urls: dict[str, str] = field(default_factory=dict)
    external: tuple[str, ...] = ()

    def content_lang(self, lang: str, main: str) -> str:
        """Language of the text served at the ``lang`` URL of this document."""
        return main if lang in self.fallback else lang


@dataclass(frozen=True)
class PageRef:
    """One page of a site: kind, the language slot of its URL, the URL, and what it shows."""

    kind: str
    lang: str | None  # language slot of the URL (None for calendar traps)
    url: str
    key: int = 0  # doc index, trap step or section index
    page: int = 1  # list page number


@dataclass
class SiteModel:
    """Everything about one site except its rendered HTML."""

    index: int
    label: str
    display_name: str
    convention: str
    main: str
    langs: tuple[str, ...]
    urls: SiteUrls
    translated_slugs: bool
    switcher: str  # "hreflang", "plain" or "none"
    switcher_home: bool
    href_style: str
    per_page: int
    sections: list[Section]
    docs: list[Doc]
    listings: dict[tuple[str, int], list[int]]
    home_intro: tuple[Paragraph, ...]
    calendar: bool
    session: bool
    trap_depth: int
    session_ids: tuple[str, ...]
    disallow: dict[str, list[str]]
    entities: tuple[str, ...] = ()
    footer_links: tuple[str, ...] = ()

    @property
    def main_host(self) -> str:
        """Host of the main language (the one with the seed)."""
        return self.urls.addresses[self.main].host

    @property
    def seed_url(self) -> str:
        """Home page of the main language (where the site's root leads)."""
        return self.urls.home(self.main)

    @property
    def root_url(self) -> str:
        """The crawl seed: the main host's root, redirecting to :attr:`seed_url` when that is elsewhere."""
        return f"{self.urls.style.scheme}://{self.main_host}/"

    def hosts(self) -> list[str]:
        """Every host of the site, main host first."""
        seen = [self.main_host]
        for lang in self.langs:
            h = self.urls.addresses[lang].host
            if h not in seen:
                seen.append(h)
        return seen

    def host_langs(self, host: str) -> list[str]:
        """Languages whose pages live on ``host``."""
        return [lang for lang in self.langs if self.urls.addresses[lang].host == host]

    def n_list_pages(self, lang: str, section: int) -> int:
        """How many list pages the section has in ``lang``."""
        return max(1, math.ceil(len(self.listings[(lang, section)]) / self.per_page))

    def list_url(self, lang: str, section: int, page: int = 1) -> str:
        """URL of a section's list page."""
        sec = self.sections[section]
        return self.urls.listing(lang, sec.slugs[lang], sec.ids[lang], page)

    def calendar_url(self, step: int) -> str:
        """URL of the ``step``-th month page of the endless calendar (step may exceed the stored depth)."""
        year, month = divmod(2024 * 12 + step, 12)
        return f"{self.urls.style.scheme}://{self.main_host}/calendar/{year}/{month + 1:02d}/"

    def session_url(self, step: int) -> str:
        """URL of the ``step``-th page of the session-id trap."""
        return f"{self.urls.style.scheme}://{self.main_host}/?sid={self.session_ids[step]}"

    def pages(self) -> Iterator[PageRef]:
        """Every stored page of the site (root redirect, content pages, then the stored prefix of traps)."""
        if self.root_url != self.seed_url:
            yield PageRef(REDIRECT, None, self.root_url)
        for lang in self.langs:
            yield PageRef(HOME, lang, self.urls.home(lang))
            for sec in self.sections:
                if not self.listings[(lang, sec.idx)]:
                    continue  # no document of this section in this language: no list page, no menu entry
                for page in range(1, self.n_list_pages(lang, sec.idx) + 1):
                    yield PageRef(LIST, lang, self.list_url(lang, sec.idx, page), sec.idx, page)
        for doc in self.docs:
            for lang in self.langs:
                if lang in doc.urls:
                    yield PageRef(DOC, lang, doc.urls[lang], doc.idx)
        if self.calendar:
            for step in range(self.trap_depth):
                yield PageRef(CALENDAR, None, self.calendar_url(step), step)
        if self.session:
            for step in range(self.trap_depth):
                yield PageRef(SESSION, self.main, self.session_url(step), step)

    def groups(self) -> Iterator[tuple[str, list[tuple[str, str]]]]:
        """Groups of mutual translations with two or more members: ``(group id, [(url, lang)])``."""
        yield f"{self.label}/home", [(self.urls.home(lang), lang) for lang in self.langs]
        for doc in self.docs:
            members = [(doc.urls[lang], lang) for lang in self.langs if lang in doc.langs]
            if len(members) >= 2:
                yield f"{self.label}/doc/{doc.idx}", members

    def robots_txt(self, host: str) -> str:
        """robots.txt of one host of the site."""
        lines = ["User-agent: *"]
        rules = self.disallow.get(host, [])
        lines += [f"Disallow: {p}" for p in rules] if rules else ["Disallow:"]
        return "\n".join(lines) + "\n"

    def allowed(self, url: str) -> bool:
        """Whether the site's robots.txt lets a crawler fetch ``url``."""
        parts = urlsplit(url)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        return not any(target.startswith(p) for p in self.disallow.get(parts.hostname or "", []))


def draw(rng: random.Random, weights: Mapping[str, float]) -> str:
    """Draw a key of ``weights`` with probability proportional to its weight (sorted keys: stable)."""
    keys = sorted(k for k, w in weights.items() if w > 0)
    return rng.choices(keys, weights=[weights[k] for k in keys])[0]


def site_sizes(cfg: WebsimConfig, rng: random.Random) -> list[int]:
    """Heavy-tailed (lognormal, clipped) page budgets of the sites, summing to about ``n_pages``."""
    raw = [rng.lognormvariate(0.0, cfg.size_sigma) for _ in range(cfg.n_sites)]
    cap = max(cfg.min_site_pages, int(cfg.max_site_share * cfg.n_pages)) if cfg.n_sites > 1 else cfg.n_pages
    sizes = [float(cfg.n_pages) * r / sum(raw) for r in raw]
    for _ in range(5):  # re-spread what the clipping removed or added
        clipped = [min(cap, max(cfg.min_site_pages, s)) for s in sizes]
        excess = cfg.n_pages - sum(clipped)
        free = [i for i, s in enumerate(clipped) if cfg.min_site_pages < s < cap]
        if abs(excess) < 1 or not free:
            sizes = clipped
            break
        room = sum(clipped[i] for i in free)
        sizes = [s + excess * s / room if i in free else s for i, s in enumerate(clipped)]
    return [max(cfg.min_site_pages, round(s)) for s in sizes]


@dataclass(frozen=True)
class SiteDraw:
    """The per-site random choices made before the site is planned."""

    index: int
    budget: int
    convention: str
    main: str
    langs: tuple[str, ...]
    label: str
    tld: str


def plan_site(draw_: SiteDraw, cfg: WebsimConfig, lexicons: Mapping[str, Lexicon], labels: LabelMaker,
              rng: random.Random) -> SiteModel:
    """Plan one site: addressing, sections, documents, coverage, links, traps and robots.txt."""
    vocab = Vocabulary()
    main, langs = draw_.main, draw_.langs
    unmarked = rng.random() < float(cfg.unmarked_main_share or 0.0)
    plan: AddressPlan = assign_addresses(
        draw_.convention, langs, main, draw_.label, draw_.tld, rng, cfg.code_forms or {"iso1": 1.0},
        cfg.query_params or {"lang": 1.0}, unmarked, labels, cfg.mix or {},
    )
    addresses = dict(plan.addresses)
    taken = {SiteUrls(addresses, plan.style).home(main)}
    for lang in langs:  # single-host sites without marks: each language needs its own home page
        home = SiteUrls(addresses, plan.style).home(lang)
        if lang != main and home in taken:
            base = slugify([lexicons[lang].ui_text("home")]) or "home"
            path, k = base, 1
            while SiteUrls({lang: replace(addresses[lang], home_path=path)}, plan.style).home(lang) in taken:
                k += 1
                path = f"{base}-{k}"
            addresses[lang] = replace(addresses[lang], home_path=path)
            home = SiteUrls(addresses, plan.style).home(lang)
        taken.add(home)
    urls = SiteUrls(addresses, plan.style)
    partner = cfg.pair[1] if main == cfg.pair[0] else cfg.pair[0]
    coverage = {lang: 1.0 if lang == main else rng.uniform(*(cfg.coverage_pair if lang == partner else cfg.coverage_other))
                for lang in langs}
    fallback_site = rng.random() < cfg.fallback_site_prob
    effective = sum(c + ((1 - c) * cfg.fallback_page_prob if fallback_site else 0.0) for c in coverage.values())
    per_page = rng.choice(cfg.per_page)
    budget = draw_.budget
    traps_allowed = budget >= 4 * cfg.trap_depth
    calendar = traps_allowed and rng.random() < cfg.calendar_trap_prob
    session = traps_allowed and rng.random() < cfg.session_trap_prob
    n_sections = min(8, max(2, round(math.log2(max(2.0, budget / len(langs)))) - 2))
    structural = len(langs) * (1 + n_sections) + cfg.trap_depth * (calendar + session)
    n_docs = max(2, round((budget - structural) / (effective * (1 + 1 / per_page))))

    slug_lexicon = {lang: lexicons[lang] for lang in langs}
    english = lexicons["eng"] if "eng" in langs else lexicons[main]
    keep_unicode = rng.random() < cfg.unicode_slug_prob

    def slug_lang(lang: str) -> str:
        """Language whose words make the slugs of ``lang`` pages (shared slugs: the main language)."""
        return lang if plan.translated_slugs else main

    concepts = rng.sample(range(vocab.n_nouns), n_sections)
    sections: list[Section] = []
    seen: set[str] = {urls.home(lang) for lang in langs}  # every URL handed out so far
    category_ids = iter(rng.sample(range(10, 10 + 10 * n_sections * len(langs)), n_sections * len(langs)))
    for i, concept in enumerate(concepts):
        slugs: dict[str, str] = {}
        ids: dict[str, int] = {}
        for lang in langs:
            ids[lang] = next(category_ids)
            slug = slugify([slug_lexicon[slug_lang(lang)].nouns[concept]], keep_unicode) or f"s{i}"
            while slug in ("page", "calendar", "node") or urls.listing(lang, slug, ids[lang], 1) in seen:
                slug += "-" + str(i)  # e.g. "hotel" in two languages of a site without marks
            seen.add(urls.listing(lang, slug, ids[lang], 1))
            slugs[lang] = slug
        sections.append(Section(i, concept, slugs, ids, make_paragraphs(rng, 0, vocab, (2, 2), (3, 4), (concept,))))

    site_entities = make_entities(rng, 12)
    section_weights = [1.0 / (k + 1) ** 0.7 for k in range(n_sections)]
    docs: list[Doc] = []
    for d in range(n_docs):
        sec_idx = rng.choices(range(n_sections), weights=section_weights)[0]
        topic = (sections[sec_idx].concept, rng.randrange(vocab.n_nouns), rng.randrange(vocab.n_nouns))
        entities = tuple(rng.sample(site_entities, 3))
        have = {main}
        fallback: set[str] = set()
        for lang in langs:
            if lang == main:
                continue
            if rng.random() < coverage[lang]:
                have.add(lang)
            elif fallback_site and rng.random() < cfg.fallback_page_prob:
                fallback.add(lang)
        year, day = rng.randint(2015, 2024), rng.randint(1, 365)
        docs.append(Doc(
            idx=d, section=sec_idx, title=make_title(rng, vocab, topic),
            body=make_paragraphs(rng, len(entities), vocab, (2, 5), (2, 5), topic), entities=entities,
            langs=frozenset(have), fallback=frozenset(fallback), related=(), date=f"{year}-{1 + day // 31:02d}-{1 + day % 28:02d}",
        ))
    by_section: dict[int, list[int]] = {}
    for doc in docs:
        by_section.setdefault(doc.section, []).append(doc.idx)
    for doc in docs:
        pool = by_section[doc.section] if len(by_section[doc.section]) >= 3 and rng.random() < 0.7 else range(n_docs)
        k = min(len(pool) - 1, rng.randint(*cfg.related_links))
        doc.related = tuple(o for o in rng.sample(pool, k + 1) if o != doc.idx)[:k] if k > 0 else ()

    # Document URLs, with collisions resolved by numbering the slug.
    listings: dict[tuple[str, int], list[int]] = {}
    for lang in langs:
        for sec in sections:
            listings[(lang, sec.idx)] = [d.idx for d in reversed(docs) if d.section == sec.idx
                                         and (lang in d.langs or lang in d.fallback)]
    opaque_ids = rng.sample(range(100, 100 + 20 * n_docs * len(langs) + 1000), n_docs * len(langs))
    for doc in docs:
        section = sections[doc.section]
        for j, lang in enumerate(langs):
            if lang not in doc.langs and lang not in doc.fallback:
                continue
            if plan.translated_slugs and lang in doc.langs:
                lex = english if rng.random() < cfg.english_slug_prob else slug_lexicon[lang]
            else:
                lex = slug_lexicon[main]
            base = slugify(content_words(doc.title, lex, doc.entities)[:5], keep_unicode) or f"page-{doc.idx}"
            number = opaque_ids[doc.idx * len(langs) + j] if urls.style.opaque else doc.idx + 1
            slug, k = base, 1
            url = urls.doc(lang, section.slugs[lang], slug, number)
            while url in seen:
                k += 1
                slug = f"{base}-{k}"
                url = urls.doc(lang, section.slugs[lang], slug, number)
            seen.add(url)
            doc.urls[lang] = url

    switcher = draw(rng, cfg.switcher_mix)
    disallow: dict[str, list[str]] = {}
    if rng.random() < 0.5:
        disallow.setdefault(urls.addresses[main].host, []).append(rng.choice(("/admin/", "/cgi-bin/", "/search", "/wp-admin/")))
    if rng.random() < cfg.robots_disallow_prob and n_sections > 2 and not urls.style.opaque:
        banned = rng.randrange(1, n_sections)
        for lang in langs:
            first = urlsplit(urls.listing(lang, sections[banned].slugs[lang], sections[banned].ids[lang], 1))
            prefix = first.path[: first.path.rfind("/") + 1]
            if prefix != "/" and prefix not in disallow.get(first.hostname or "", []):
                disallow.setdefault(first.hostname or "", []).append(prefix)
    if calendar and rng.random() < 0.5:
        disallow.setdefault(urls.addresses[main].host, []).append("/calendar/")
    session_ids = tuple(f"{rng.getrandbits(64):016x}" for _ in range(cfg.trap_depth + 1)) if session else ()
    return SiteModel(
        index=draw_.index, label=draw_.label, display_name=make_entities(rng, 1)[0], convention=draw_.convention,
        main=main, langs=langs, urls=urls, translated_slugs=plan.translated_slugs, switcher=switcher,
        switcher_home=rng.random() < cfg.switcher_home_prob, href_style=draw(rng, cfg.href_mix), per_page=per_page,
        sections=sections, docs=docs, listings=listings,
        home_intro=make_paragraphs(rng, len(site_entities), vocab, (2, 3), (3, 5)),
        calendar=calendar, session=session, trap_depth=cfg.trap_depth, session_ids=session_ids, disallow=disallow,
        entities=site_entities,
    )


def link_sites(sites: Sequence[SiteModel], cfg: WebsimConfig, rng: random.Random, labels: LabelMaker) -> None:
    """Add external links: footers and some documents link to other sites of the web and off the web."""
    off_web = list(OFF_WEB_HOSTS) + [f"www.{labels.new()}.com" for _ in range(10)]

    def elsewhere(site: SiteModel) -> str:
        """A link target outside ``site``: another site of the web, or a host off the web."""
        others = [s for s in sites if s is not site]
        if others and rng.random() < 0.6:
            other = rng.choice(others)
            if other.docs and rng.random() < 0.5:
                doc = rng.choice(other.docs)
                return doc.urls[other.main]
            return other.seed_url
        return f"http://{rng.choice(off_web)}/{rng.choice(('', 'share', 'about', 'page/1'))}"

    for site in sites:
        site.footer_links = tuple(elsewhere(site) for _ in range(rng.randint(1, 4)))
        for doc in site.docs:
            if rng.random() < cfg.external_link_prob:
                doc.external = tuple(elsewhere(site) for _ in range(rng.randint(1, 2)))
