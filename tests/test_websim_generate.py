"""websim webs: determinism, ground-truth consistency, reachability from the seeds, traps, robots, sizes."""

from __future__ import annotations

import random
import re
from collections import deque
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import pandas as pd
import pytest

from smartcrawl.web.store import WebStore, page_key
from smartcrawl.web.websim import CONVENTIONS, build_websim
from smartcrawl.web.websim.config import WebsimConfig
from smartcrawl.web.websim.graph import site_sizes
from smartcrawl.web.websim.render import make_href

_HREF = re.compile(r'href="([^"]*)"')
OPTIONS: dict[str, Any] = dict(
    mix={c: 1.0 for c in CONVENTIONS},  # every convention shows up
    other_langs=(1, 2),
    calendar_trap_prob=0.6,
    session_trap_prob=0.4,
    robots_disallow_prob=0.5,
    trap_depth=10,
)


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> WebStore:
    out = tmp_path_factory.mktemp("websim") / "web"
    return build_websim(out, ("spa", "eus"), n_sites=12, n_pages=2400, seed=7, **OPTIONS)


def _links(url: str, body: bytes) -> list[str]:
    out = []
    for href in _HREF.findall(body.decode("utf-8")):
        target = urljoin(url, unescape(href))
        if urlsplit(target).scheme in ("http", "https"):
            out.append(page_key(target.split("#", 1)[0]))
    return out


def _reachable(store: WebStore) -> set[str]:
    seeds = [page_key(s) for site in store.sites() for s in site.seeds]
    seen = set(seeds)
    queue = deque(seeds)
    while queue:
        url = queue.popleft()
        page = store.get(url)
        if page is None:
            continue
        targets = [page_key(urljoin(url, page.location))] if page.location else _links(url, page.body)
        for target in targets:
            if target not in seen:
                seen.add(target)
                queue.append(target)
    return seen


def test_manifest_hosts_cover_every_page(web: WebStore) -> None:
    manifest = web.manifest()
    assert manifest["pair"] == ["spa", "eus"]
    hosts = {s.host for s in web.sites()}
    assert len(hosts) == len(web.sites())
    assert {urlsplit(p.url).hostname for p in web.iter_pages()} <= hosts
    sites = pd.read_parquet(web.root / "truth" / "sites.parquet")
    assert set(sites["host"]) == hosts
    assert sites.groupby("site")["role"].apply(lambda r: (r == "main").sum()).eq(1).all()
    for info in web.sites():
        main = sites.loc[sites["host"] == info.host, "role"].item() == "main"
        assert bool(info.seeds) == main
        assert info.robots_txt.startswith("User-agent: *\n")
        assert set(info.langs) <= {"spa", "eus", *web.truth_langs()["lang"]}


def test_every_site_has_the_pair_and_conventions_vary(web: WebStore) -> None:
    sites = pd.read_parquet(web.root / "truth" / "sites.parquet").drop_duplicates("site")
    assert len(sites) == 12
    for langs in sites["langs"]:
        assert {"spa", "eus"} <= set(langs.split(","))
        assert len(langs.split(",")) >= 3  # other_langs=(1, 2)
    assert sites["convention"].nunique() >= 5


def test_truth_is_consistent_with_the_store(web: WebStore) -> None:
    langs = web.truth_langs()
    groups = web.truth_groups()
    traps = pd.read_parquet(web.root / "truth" / "traps.parquet")
    redirects = pd.read_parquet(web.root / "truth" / "redirects.parquet")
    stored = {p.url for p in web.iter_pages()}
    assert langs["url"].is_unique and traps["url"].is_unique
    assert set(langs["url"]).isdisjoint(traps["url"])
    # Every page is content, trap or a root redirect to a stored home page.
    assert set(langs["url"]) | set(traps["url"]) | set(redirects["url"]) == stored
    assert set(redirects["location"]) <= set(langs["url"])
    for url, location in zip(redirects["url"], redirects["location"]):
        page = web.get(url)
        assert page is not None and page.status == 301 and page.location == location
    assert set(groups["url"]) <= set(langs["url"])
    assert langs["lang"].notna().all()
    assert (traps.loc[traps["kind"] == "calendar", "lang"].isna()).all()
    # Group members carry their page's true language, one member per language.
    merged = groups.merge(langs[["url", "lang"]], on="url", suffixes=("", "_truth"))
    assert (merged["lang"] == merged["lang_truth"]).all()
    assert not groups.duplicated(["group", "lang"]).any()
    assert groups.groupby("group").size().min() >= 2
    # Fallback pages: URL in one language, text in another; never in a translation group.
    fallback = langs[langs["kind"] == "fallback"]
    assert (fallback["lang"] != fallback["url_lang"]).all()
    assert set(fallback["url"]).isdisjoint(groups["url"])
    assert (langs.loc[langs["kind"] != "fallback", "lang"] == langs.loc[langs["kind"] != "fallback", "url_lang"]).all()


def test_every_translation_is_reachable_from_the_seeds(web: WebStore) -> None:
    reached = _reachable(web)
    groups = web.truth_groups()
    missing = set(groups["url"].map(page_key)) - reached
    assert not missing, sorted(missing)[:5]
    assert set(web.truth_langs()["url"].map(page_key)) <= reached


def test_links_resolve_to_stored_pages_or_traps_or_off_web(web: WebStore) -> None:
    hosts = {s.host for s in web.sites()}
    stored = {p.url for p in web.iter_pages()}
    dangling = []
    for page in web.iter_pages():
        for target in _links(page.url, page.body):
            if urlsplit(target).hostname in hosts and target not in stored:
                dangling.append((page.url, target))
    # Only the ends of the stored trap chains point past what is stored.
    assert all("/calendar/" in t or "sid=" in t for _, t in dangling), dangling[:5]


def test_pages_are_html_with_language_switchers(web: WebStore) -> None:
    langs = web.truth_langs().set_index("url")
    n_hreflang = n_switch = 0
    for page in web.iter_pages():
        if page.status != 200:
            continue
        html = page.body.decode("utf-8")
        assert html.startswith("<!DOCTYPE html>") and "<title>" in html and html.rstrip().endswith("</html>")
        if page.url in langs.index:
            assert re.search(r'<html lang="[a-z]{2,3}">', html)
        n_hreflang += 'hreflang="' in html
        n_switch += 'class="languages"' in html
    assert n_hreflang > 0 and n_switch > 0


def test_traps_and_robots(web: WebStore) -> None:
    traps = pd.read_parquet(web.root / "truth" / "traps.parquet")
    assert set(traps["kind"]) <= {"calendar", "session"}
    assert len(traps) > 0 and len(traps) % 10 == 0  # trap_depth=10 per trap
    langs = web.truth_langs()
    assert langs["robots_allowed"].dtype == bool
    if not langs["robots_allowed"].all():
        blocked = langs.loc[~langs["robots_allowed"], "url"].iloc[0]
        host = urlsplit(blocked).hostname
        robots = next(s.robots_txt for s in web.sites() if s.host == host)
        assert any(urlsplit(blocked).path.startswith(line.split(": ", 1)[1])
                   for line in robots.splitlines() if line.startswith("Disallow: /"))


def test_page_budget_is_met(web: WebStore) -> None:
    n = sum(1 for _ in web.iter_pages())
    assert 0.85 * 2400 <= n <= 1.2 * 2400


def test_sizes_are_heavy_tailed() -> None:
    cfg = WebsimConfig(n_sites=200, n_pages=80_000)
    sizes = sorted(site_sizes(cfg, random.Random(0)))
    assert abs(sum(sizes) - 80_000) / 80_000 < 0.05
    assert sizes[-1] > 5 * sizes[len(sizes) // 2]  # the largest site dwarfs the median one
    assert sizes[0] >= cfg.min_site_pages


def test_same_seed_same_web_other_seed_other_web(tmp_path: Path) -> None:
    a = build_websim(tmp_path / "a", ("eng", "isl"), n_sites=4, n_pages=400, seed=3, **OPTIONS)
    b = build_websim(tmp_path / "b", ("eng", "isl"), n_sites=4, n_pages=400, seed=3, **OPTIONS)
    c = build_websim(tmp_path / "c", ("eng", "isl"), n_sites=4, n_pages=400, seed=4, **OPTIONS)
    pages_a = [(p.url, p.body) for p in a.iter_pages()]
    assert pages_a == [(p.url, p.body) for p in b.iter_pages()]
    assert a.manifest() == b.manifest()
    pd.testing.assert_frame_equal(a.truth_langs(), b.truth_langs())
    pd.testing.assert_frame_equal(a.truth_groups(), b.truth_groups())
    assert pages_a != [(p.url, p.body) for p in c.iter_pages()]


def test_unsupported_pair_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no text"):
        build_websim(tmp_path / "x", ("eng", "jpn"), n_sites=1, n_pages=50)
    with pytest.raises(TypeError, match="unknown websim options"):
        build_websim(tmp_path / "x", ("eng", "fin"), n_sites=1, n_pages=50, colour="red")


@pytest.mark.parametrize("style", ["absolute", "root", "relative", "mixed"])
def test_hrefs_resolve_back(style: str) -> None:
    rng = random.Random(0)
    urls = ["http://a.com/", "http://a.com/es/", "http://a.com/es/noticias/", "http://a.com/es/noticias/x.html",
            "http://a.com/noticias/page/2/?lang=es", "http://a.com/index.php?id=3", "http://a.com/node/12",
            "http://b.com/x/", "http://a.com/a%C3%B1o/d%C3%ADa"]
    for src in urls:
        for dst in urls:
            assert urljoin(src, make_href(src, dst, style, rng)) == dst, (src, dst)
