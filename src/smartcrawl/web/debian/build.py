"""Turn Debian documentation sites into a test-bed web (the :mod:`smartcrawl.web.store` format).

For each site: every HTML page of every language tree is stored under ``http://<host><prefix><path>``
(absolute links to the real site rewritten to the test-bed host), the shared HTML pages too, other
files only with ``with_assets`` (at most :data:`ASSET_MAX_BYTES` each, compressed ``.gz`` never), and a
language-chooser page at ``/`` when the site has none.

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
from smartcrawl.web.debian.source import SiteSource
from smartcrawl.web.store import SiteInfo, StoredPage, WebStore, page_key

log = logging.getLogger(__name__)

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
    for tree in source.trees:
        lrep = LangReport(code=tree.code, lang=tree.lang)
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
    _add_root(sink, source, report)
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


def _add_root(sink: _PageSink, source: SiteSource, report: SiteReport) -> None:
    """Give the site a page at ``/``: a redirect to ``/index.html`` if it has one, else a language chooser."""
    root = page_key(f"http://{source.host}/")
    if root in sink.urls:
        return
    index = page_key(f"http://{source.host}/index.html")
    if index in sink.urls:
        sink.add(StoredPage(url=root, status=301, content_type="text/html; charset=utf-8", location=index))
        return
    sink.add(StoredPage(url=root, body=chooser_html(source)))
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
        "pair": list(pair) if pair else None,
        "pages": len(sink.urls),
        "truth_pages": len(truth.langs),
        "groups": sum(r.groups for r in reports),
        "pair_groups": sum(r.pair_groups for r in reports),
        "sites": [asdict(r) for r in reports],
    }
    (out / "build_report.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    return report
