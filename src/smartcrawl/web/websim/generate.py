"""Build a websim web: draw the sites, plan them, render every page and write a :class:`WebStore`.

Besides the store's own ground truth (``truth/langs.parquet``, ``truth/groups.parquet``), websim
writes two more tables to ``truth/``:

- ``traps.parquet`` (``url, host, kind, lang, site``): the stored prefix of the crawler traps
  (``calendar`` pages have no language, ``lang`` is null; ``session`` pages repeat the main home
  page's text under session-id URLs). Trap pages are *not* in ``langs.parquet``.
- ``redirects.parquet`` (``url, host, location, site``): the 301 from a main host's root to the
  main language's home page when that is elsewhere (``/`` -> ``/en/``); the root is the seed.
- ``sites.parquet`` (``site, host, main_host, role, convention, main_lang, langs, switcher,
  href_style, n_pages``): which hosts form one web site (language subdomains, country domains and
  the ``other`` convention spread a site over several hosts; each host is its own ``SiteInfo``
  in the manifest, and only the main host's ``SiteInfo`` has seeds).

``langs.parquet`` has, beyond ``url, host, lang``, the columns ``url_lang`` (the language slot of
the URL: differs from ``lang`` on fallback pages, which serve the main language's text),
``kind`` (home, list, doc, fallback), ``site`` and ``robots_allowed``.
``groups.parquet`` holds groups of two or more mutual translations (home pages and documents;
fallback pages are not translations and are left out).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from smartcrawl.web.store import SiteInfo, StoredPage, WebStore
from smartcrawl.web.websim.config import WebsimConfig, config_from_options
from smartcrawl.web.websim.conventions import GENERIC_TLDS, LabelMaker, language_tld
from smartcrawl.web.websim.graph import (
    CALENDAR,
    DOC,
    REDIRECT,
    SESSION,
    SiteDraw,
    SiteModel,
    draw,
    link_sites,
    plan_site,
    site_sizes,
)
from smartcrawl.web.websim.render import PageRenderer
from smartcrawl.web.websim.text import Lexicon, load_lexicons, supported_languages

log = logging.getLogger(__name__)


def draw_sites(cfg: WebsimConfig, labels: LabelMaker, rng: random.Random) -> list[SiteDraw]:
    """Sizes, conventions, languages and names of the sites of a web."""
    supported = supported_languages()
    for lang in cfg.pair:
        if lang not in supported:
            raise ValueError(f"websim has no text for {lang!r}; supported: {', '.join(supported)}")
    pool = [lang for lang in (cfg.other_lang_pool or supported) if lang in supported and lang not in cfg.pair]
    draws: list[SiteDraw] = []
    for i, budget in enumerate(site_sizes(cfg, rng)):
        convention = draw(rng, cfg.mix or {"dir_code": 1.0})
        main = cfg.pair[0] if rng.random() < cfg.main_first_prob else cfg.pair[1]
        k = min(len(pool), rng.randint(*cfg.other_langs))
        others = tuple(sorted(rng.sample(pool, k)))
        partner = cfg.pair[1] if main == cfg.pair[0] else cfg.pair[0]
        tld = language_tld(main) if main != "eng" and rng.random() < 0.5 else rng.choice(GENERIC_TLDS)
        draws.append(SiteDraw(i, budget, convention, main, (main, partner) + others, labels.new(), tld))
    return draws


def plan_web(cfg: WebsimConfig, lexicons: dict[str, Lexicon] | None = None) -> list[SiteModel]:
    """Plan every site of the web described by ``cfg`` (resolved), without rendering any page."""
    cfg = cfg.resolved()
    lexicons = lexicons or load_lexicons()
    web_rng = random.Random(f"websim/{cfg.seed}/web")
    labels = LabelMaker(random.Random(f"websim/{cfg.seed}/labels"))
    sites = [
        plan_site(d, cfg, lexicons, labels, random.Random(f"websim/{cfg.seed}/site/{d.index}"))
        for d in draw_sites(cfg, labels, web_rng)
    ]
    link_sites(sites, cfg, random.Random(f"websim/{cfg.seed}/links"), labels)
    return sites


def site_infos(site: SiteModel) -> list[SiteInfo]:
    """One :class:`SiteInfo` per host of the site; the main host carries the seed."""
    infos = []
    for host in site.hosts():
        seeds = [site.root_url] if host == site.main_host else []
        infos.append(SiteInfo(host=host, seeds=seeds, scheme=site.urls.style.scheme,
                              robots_txt=site.robots_txt(host), langs=site.host_langs(host)))
    return infos


def render_site(site: SiteModel, lexicons: dict[str, Lexicon]) -> Iterator[tuple[StoredPage, dict[str, Any]]]:
    """Every stored page of a site with its truth row (``kind`` says content page or trap)."""
    renderer = PageRenderer(site, lexicons)
    for ref in site.pages():
        host = ref.url.split("/", 3)[2]
        if ref.kind == REDIRECT:
            row_r = {"url": ref.url, "host": host, "kind": REDIRECT, "location": site.seed_url, "site": site.label}
            yield StoredPage(url=ref.url, status=301, location=site.seed_url), row_r
            continue
        body = renderer.render(ref).encode("utf-8")
        row: dict[str, Any]
        if ref.kind in (CALENDAR, SESSION):
            row = {"url": ref.url, "host": host, "kind": ref.kind, "lang": ref.lang, "site": site.label}
        else:
            lang = ref.lang or site.main
            content = site.docs[ref.key].content_lang(lang, site.main) if ref.kind == DOC else lang
            kind = "fallback" if content != lang else ref.kind
            row = {"url": ref.url, "host": host, "lang": content, "url_lang": lang, "kind": kind,
                   "site": site.label, "robots_allowed": site.allowed(ref.url)}
        yield StoredPage(url=ref.url, body=body), row


def write_web(sites: Sequence[SiteModel], cfg: WebsimConfig, out_dir: str | Path,
              lexicons: dict[str, Lexicon] | None = None) -> WebStore:
    """Render ``sites`` into a web directory (pages, manifest and ground truth)."""
    lexicons = lexicons or load_lexicons()
    store = WebStore(out_dir)
    name = f"websim-{cfg.pair[0]}-{cfg.pair[1]}-s{cfg.n_sites}-p{cfg.n_pages}-seed{cfg.seed}"
    store.create(name, (cfg.pair[0], cfg.pair[1]), [info for site in sites for info in site_infos(site)])
    lang_rows: list[dict[str, Any]] = []
    trap_rows: list[dict[str, Any]] = []
    redirect_rows: list[dict[str, Any]] = []
    site_rows: list[dict[str, Any]] = []
    for site in sites:
        batch: list[StoredPage] = []
        for page, row in render_site(site, lexicons):
            batch.append(page)
            if row["kind"] == REDIRECT:
                redirect_rows.append(row)
            else:
                (trap_rows if row["kind"] in (CALENDAR, SESSION) else lang_rows).append(row)
        store.add_pages(batch)
        for host in site.hosts():
            site_rows.append({
                "site": site.label, "host": host, "main_host": site.main_host,
                "role": "main" if host == site.main_host else "language",
                "convention": site.convention, "main_lang": site.main, "langs": ",".join(site.langs),
                "switcher": site.switcher, "href_style": site.href_style, "n_pages": len(batch),
            })
    group_rows = [
        {"group": gid, "url": url, "host": url.split("/", 3)[2], "lang": lang}
        for site in sites for gid, members in site.groups() for url, lang in members
    ]
    langs_df = pd.DataFrame(lang_rows, columns=["url", "host", "lang", "url_lang", "kind", "site", "robots_allowed"])
    groups_df = pd.DataFrame(group_rows, columns=["group", "url", "host", "lang"])
    store.write_truth(langs_df, groups_df)
    pd.DataFrame(trap_rows, columns=["url", "host", "kind", "lang", "site"]).to_parquet(
        store.root / "truth" / "traps.parquet", index=False)
    pd.DataFrame(redirect_rows, columns=["url", "host", "location", "site"]).to_parquet(
        store.root / "truth" / "redirects.parquet", index=False)
    pd.DataFrame(site_rows).to_parquet(store.root / "truth" / "sites.parquet", index=False)
    log.info("websim: wrote %d sites, %d pages (%d trap pages) to %s", len(sites),
             len(lang_rows) + len(trap_rows), len(trap_rows), store.root)
    return store


def build_websim(out_dir: str | Path, pair: tuple[str, str] = ("eng", "mlt"), n_sites: int = 50,
                 n_pages: int = 20_000, seed: int = 0, **options: Any) -> WebStore:
    """Generate a websim web into ``out_dir`` and return its :class:`WebStore`.

    ``options`` are further :class:`~smartcrawl.web.websim.config.WebsimConfig` fields (``mix``,
    ``other_langs``, ``calendar_trap_prob``, ...). The same arguments always give the same web.
    """
    cfg = config_from_options(pair, n_sites, n_pages, seed, **options).resolved()
    lexicons = load_lexicons()
    sites = plan_web(cfg, lexicons)
    return write_web(sites, cfg, out_dir, lexicons)
