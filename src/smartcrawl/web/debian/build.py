"""Turn Debian documentation sites into a test-bed web (the :mod:`smartcrawl.web.store` format).

For each site: every HTML page of every language tree is stored under ``http://<host><prefix><path>``
(absolute links to the real site rewritten to the test-bed host), the shared HTML pages too, other
files only with ``with_assets`` (at most :data:`ASSET_MAX_BYTES` each, compressed ``.gz`` never), and a
language-chooser page at ``/`` when the site has none.

**Reachability.** Every page of a tree must be reachable from the site's seed (``/``) by plain links,
as real documentation sites expose their pages to crawlers. The chooser links each tree's start
page and its navigation pages (the site's own contents and index where it builds them with
JavaScript, see ``SiteSource.navigation``); the tree's pages that are still unreachable (a
breadth-first walk over the stored pages' links, :mod:`.reach`) are listed in a per-tree site map
(:mod:`.sitemap`) that the chooser links too. The report counts, per tree, the navigation pages,
the pages only the site map reaches (``sitemap_links``) and the ground-truth pages reached from the
seed (``truth_reached``), and per site the most hops a reached page needs (``max_hops``).

Ground truth (decided here, counted in ``build_report.json``):

- **page language** = the language of the page's tree *when CLD2's top language on the page's visible
  text agrees* (reliable or not). Pages where CLD2 disagrees (mostly untranslated pages that the
  package ships as English copies inside another language's tree) are still served, but get no
  language in ``truth/langs.parquet``; they are listed with CLD2's verdict in
  ``truth/disagreements.parquet`` (``url, host, tree_lang, cld2_lang, reliable, percent``).
  Shared pages and the chooser have no language.
- **translation groups** = pages with the same path relative to their language trees, keeping only
  confirmed pages; a group needs at least two languages. The group id is ``<host>:<relative path>``.
"""

from __future__ import annotations

import json
import logging
import mimetypes
import os
import re
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import quote

import pandas as pd

from smartcrawl.web.debian.chooser import chooser_html
from smartcrawl.web.debian.langid import detect_html, sniff_charset
from smartcrawl.web.debian.navpages import TreeNav
from smartcrawl.web.debian.reach import reachable
from smartcrawl.web.debian.sitemap import page_title, sitemap_nav
from smartcrawl.web.debian.source import LangTree, SiteSource
from smartcrawl.web.store import SiteInfo, StoredPage, WebStore, page_key

log = logging.getLogger(__name__)

# Bump when the builder changes what it writes (pages, links, ground truth): cached webs carry it in their id.
BUILD_VERSION = 2
ASSET_MAX_BYTES = 2_000_000
HTML_SUFFIXES = (".html", ".htm", ".xhtml")
_BATCH = 500
_PATH_SAFE = "/-._~!$&'()*+,;=:@"


@dataclass
class LangReport:
    """Counts for one language tree of a site."""

    code: str
    lang: str
    html_pages: int = 0
    confirmed: int = 0
    confirmed_unreliable: int = 0
    disagreements: dict[str, int] = field(default_factory=dict)
    nav_pages: int = 0
    sitemap_links: int = 0
    truth_reached: int = 0


@dataclass
class SiteReport:
    """Counts for one built site."""

    name: str
    host: str
    langs: list[LangReport] = field(default_factory=list)
    shared_pages: int = 0
    assets: int = 0
    rewritten_links: int = 0
    chooser_added: bool = False
    groups: int = 0
    pair_groups: int = 0
    max_hops: int = 0


@dataclass
class _Truth:
    langs: list[dict[str, str]] = field(default_factory=list)
    groups: list[dict[str, str]] = field(default_factory=list)
    disagreements: list[dict[str, object]] = field(default_factory=list)


def walk_files(root: Path, exclude: frozenset[str] = frozenset()) -> Iterator[tuple[str, Path]]:
    """Files under ``root`` as (relative POSIX path, path), sorted, skipping hidden names and top-level ``exclude``."""
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = Path(dirpath).relative_to(root)
        dirnames[:] = sorted(
            d for d in dirnames if not d.startswith(".") and not (rel_dir == Path(".") and d in exclude)
        )
        for name in sorted(filenames):
            if name.startswith(".") or (rel_dir == Path(".") and name in exclude):
                continue
            path = Path(dirpath) / name
            if path.is_file():
                yield (rel_dir / name).as_posix(), path


def page_url(host: str, prefix: str, rel: str) -> str:
    """The served URL of a file: ``http://host`` + ``prefix`` + the percent-encoded relative path."""
    return page_key(f"http://{host}{quote(prefix + rel, safe=_PATH_SAFE)}")


def rewrite_links(body: bytes, rewrites: Sequence[tuple[str, str]]) -> tuple[bytes, int]:
    """Replace absolute URL prefixes in ``href``/``src`` attributes; returns the new body and the count."""
    total = 0
    for old, new in rewrites:
        pattern = re.compile(rb"""((?:href|src)\s*=\s*["']?)""" + re.escape(old.encode()), re.IGNORECASE)
        body, n = pattern.subn(lambda m: m.group(1) + new.encode(), body)
        total += n
    return body, total


def is_html(rel: str) -> bool:
    """Whether a file name is an HTML page."""
    return rel.lower().endswith(HTML_SUFFIXES)


def html_content_type(body: bytes) -> str:
    """``text/html`` with the charset the page declares (UTF-8 by default)."""
    return f"text/html; charset={sniff_charset(body)}"


def asset_content_type(rel: str) -> str:
    """The content type of a non-HTML file from its name."""
    kind, _ = mimetypes.guess_type(rel)
    if kind and kind.startswith("text/"):
        return f"{kind}; charset=utf-8"
    return kind or "application/octet-stream"


def _asset_ok(rel: str, path: Path) -> bool:
    return not rel.endswith(".gz") and path.stat().st_size <= ASSET_MAX_BYTES


class _PageSink:
    """Writes pages to a store in batches and remembers which URLs it wrote."""

    def __init__(self, store: WebStore) -> None:
        self.store = store
        self.batch: list[StoredPage] = []
        self.urls: set[str] = set()

    def add(self, page: StoredPage) -> None:
        self.urls.add(page.url)
        self.batch.append(page)
        if len(self.batch) >= _BATCH:
            self.flush()

    def flush(self) -> None:
        if self.batch:
            self.store.add_pages(self.batch)
            self.batch = []


def _build_site(sink: _PageSink, source: SiteSource, truth: _Truth, pair: Sequence[str] | None,
               with_assets: bool = False) -> SiteReport:
    """Store one site's pages through ``sink`` and add its ground truth to ``truth``."""
    report = SiteReport(name=source.name, host=source.host)
    members: dict[str, list[tuple[str, str]]] = defaultdict(list)
    tree_pages: dict[str, list[tuple[str, str, Path]]] = {}
    navs: dict[str, TreeNav] = {}
    for tree in source.trees:
        lrep = LangReport(code=tree.code, lang=tree.lang)
        pages = tree_pages[tree.code] = []
        disagree: Counter[str] = Counter()
        rewrites = [(old, new.format(code=tree.code)) for old, new in source.rewrites]
        for rel, path in walk_files(tree.root):
            url = page_url(source.host, tree.prefix, rel)
            if not is_html(rel):
                if with_assets and _asset_ok(rel, path):
                    sink.add(StoredPage(url=url, content_type=asset_content_type(rel), body=path.read_bytes()))
                    report.assets += 1
                continue
            body, n = rewrite_links(path.read_bytes(), rewrites)
            report.rewritten_links += n
            sink.add(StoredPage(url=url, content_type=html_content_type(body), body=body))
            pages.append((rel, url, path))
            lrep.html_pages += 1
            guess = detect_html(body)
            if guess.lang == tree.lang:
                lrep.confirmed += 1
                lrep.confirmed_unreliable += not guess.reliable
                truth.langs.append({"url": url, "host": source.host, "lang": tree.lang})
                members[rel].append((url, tree.lang))
            else:
                disagree[guess.lang] += 1
                truth.disagreements.append({
                    "url": url, "host": source.host, "tree_lang": tree.lang, "cld2_lang": guess.lang,
                    "reliable": guess.reliable, "percent": guess.percent,
                })
        lrep.disagreements = dict(disagree.most_common())
        navs[tree.code] = _add_nav(sink, source, tree, source.navigation(tree) if source.navigation else TreeNav())
        lrep.nav_pages = len(navs[tree.code].pages)
        report.langs.append(lrep)
        log.info("%s %s: %d HTML pages, %d confirmed by CLD2", source.host, tree.code, lrep.html_pages, lrep.confirmed)
    for shared in source.shared:
        for rel, path in walk_files(shared.root, shared.exclude):
            url = page_url(source.host, shared.prefix, rel)
            if is_html(rel):
                body = path.read_bytes()
                sink.add(StoredPage(url=url, content_type=html_content_type(body), body=body))
                report.shared_pages += 1
            elif with_assets and _asset_ok(rel, path):
                sink.add(StoredPage(url=url, content_type=asset_content_type(rel), body=path.read_bytes()))
                report.assets += 1
    sink.flush()
    _add_sitemaps(sink, source, report, tree_pages, navs)
    _add_root(sink, source, report, {code: nav.entries for code, nav in navs.items()})
    sink.flush()
    _count_reached(sink.store, source, report, truth)
    pair_set = set(pair or ())
    for rel, group in sorted(members.items()):
        if len({lang for _, lang in group}) < 2:
            continue
        report.groups += 1
        report.pair_groups += bool(pair_set) and pair_set <= {lang for _, lang in group}
        gid = f"{source.host}:{rel}"
        truth.groups.extend({"group": gid, "url": u, "host": source.host, "lang": lang} for u, lang in group)
    sink.flush()
    return report


def _add_nav(sink: _PageSink, source: SiteSource, tree: LangTree, nav: TreeNav) -> TreeNav:
    """Store a tree's navigation pages (never over a page of the package); returns the ones stored."""
    kept = []
    for page in nav.pages:
        url = page_url(source.host, tree.prefix, page.rel)
        if url in sink.urls:
            log.warning("%s: the package has %s, not replaced by a navigation page", source.host, url)
            continue
        sink.add(StoredPage(url=url, content_type="text/html; charset=utf-8", body=page.body))
        kept.append(page)
    rels = {p.rel for p in kept}
    return TreeNav(tuple(kept), tuple(e for e in nav.entries if e[0] in rels))


def _entry_urls(source: SiteSource, navs: dict[str, TreeNav]) -> list[str]:
    """What the chooser links: each tree's start page and navigation entries."""
    urls = []
    for tree in source.trees:
        urls.append(page_url(source.host, tree.prefix, tree.start))
        urls.extend(page_url(source.host, tree.prefix, rel) for rel, _ in navs[tree.code].entries)
    return urls


def _add_sitemaps(sink: _PageSink, source: SiteSource, report: SiteReport,
                  tree_pages: dict[str, list[tuple[str, str, Path]]], navs: dict[str, TreeNav]) -> None:
    """Give each tree a site map of its pages that the chooser's links do not reach (stored pages must be flushed)."""
    reached = reachable(sink.store, _entry_urls(source, navs))
    for tree, lrep in zip(source.trees, report.langs, strict=True):
        pages = tree_pages[tree.code]
        orphans = [(rel, page_title(path.read_bytes(), rel)) for rel, url, path in pages if url not in reached]
        if not orphans:
            continue
        taken = {rel for rel, _ in walk_files(tree.root)} | {p.rel for p in navs[tree.code].pages}
        sitemap = _add_nav(sink, source, tree, sitemap_nav(tree.code, source.title, orphans, taken=taken))
        navs[tree.code] += sitemap
        lrep.nav_pages += len(sitemap.pages)
        lrep.sitemap_links = len(orphans)
        log.info("%s %s: %d pages reached only through the site map", source.host, tree.code, len(orphans))


def _count_reached(store: WebStore, source: SiteSource, report: SiteReport, truth: _Truth) -> None:
    """Count, per tree, the ground-truth pages reachable from the site's seed, and the most hops needed."""
    hops = reachable(store, [f"http://{source.host}/"])
    report.max_hops = max(hops.values(), default=0)
    urls = {row["url"] for row in truth.langs if row["host"] == source.host and row["url"] in hops}
    for tree, lrep in zip(source.trees, report.langs, strict=True):
        prefix = page_url(source.host, tree.prefix, "")
        lrep.truth_reached = sum(1 for u in urls if u.startswith(prefix))
        if lrep.truth_reached < lrep.confirmed:
            log.warning("%s %s: %d of %d ground-truth pages unreachable from the seed", source.host, tree.code,
                        lrep.confirmed - lrep.truth_reached, lrep.confirmed)


def _add_root(sink: _PageSink, source: SiteSource, report: SiteReport,
              entries: dict[str, tuple[tuple[str, str], ...]]) -> None:
    """Give the site a page at ``/``: a redirect to ``/index.html`` if it has one, else a language chooser.

    The chooser links each tree's start page and its ``entries`` (navigation pages).
    """
    root = page_key(f"http://{source.host}/")
    index = page_key(f"http://{source.host}/index.html")
    if root in sink.urls or index in sink.urls:
        if any(entries.values()):
            log.warning("%s has its own root page: its navigation pages are not linked from it", source.host)
        if root not in sink.urls:
            sink.add(StoredPage(url=root, status=301, content_type="text/html; charset=utf-8", location=index))
        return
    sink.add(StoredPage(url=root, body=chooser_html(source, entries)))
    report.chooser_added = True


def build_web(out: Path, name: str, pair: Sequence[str] | None, sources: Sequence[SiteSource],
              with_assets: bool = False) -> dict[str, object]:
    """Write a web directory with every site of ``sources`` and its ground truth; returns the build report.

    The report (also written to ``out/build_report.json``) counts pages, CLD2 confirmations and
    disagreements per language, and translation groups per site.
    """
    store = WebStore(out)
    sites = [
        SiteInfo(host=s.host, seeds=[f"http://{s.host}/"], scheme="http", robots_txt=s.robots_txt, langs=s.langs)
        for s in sources
    ]
    store.create(name, (pair[0], pair[1]) if pair else None, sites)
    truth = _Truth()
    sink = _PageSink(store)
    reports = [_build_site(sink, s, truth, pair, with_assets) for s in sources]
    store.write_truth(
        pd.DataFrame(truth.langs, columns=["url", "host", "lang"]),
        pd.DataFrame(truth.groups, columns=["group", "url", "host", "lang"]),
    )
    pd.DataFrame(
        truth.disagreements, columns=["url", "host", "tree_lang", "cld2_lang", "reliable", "percent"]
    ).to_parquet(out / "truth" / "disagreements.parquet", index=False)
    store.close()
    report: dict[str, object] = {
        "name": name,
        "build_version": BUILD_VERSION,
        "pair": list(pair) if pair else None,
        "pages": len(sink.urls),
        "truth_pages": len(truth.langs),
        "groups": sum(r.groups for r in reports),
        "pair_groups": sum(r.pair_groups for r in reports),
        "sites": [asdict(r) for r in reports],
    }
    (out / "build_report.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    return report
