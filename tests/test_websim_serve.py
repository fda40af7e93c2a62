"""A websim web served by the loopback test-bed server: a breadth-first crawl through the proxy
from the manifest seeds reaches every page of every translation group."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from collections import deque
from html import unescape
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from smartcrawl.web.store import WebStore, page_key
from smartcrawl.web.websim import CONVENTIONS, build_websim

server = pytest.importorskip("smartcrawl.web.server")

_HREF = re.compile(r'href="([^"]*)"')


def test_crawl_through_the_server_reaches_every_translation(tmp_path: Path) -> None:
    store = build_websim(tmp_path / "web", ("eng", "mlt"), n_sites=len(CONVENTIONS), n_pages=900, seed=11,
                         mix={c: 1.0 for c in CONVENTIONS}, calendar_trap_prob=0.0, session_trap_prob=0.0)
    hosts = {s.host for s in store.sites()}
    seeds = [s for info in store.sites() for s in info.seeds]
    wanted = set(store.truth_groups()["url"].map(page_key))
    store.close()
    fetched: set[str] = set()
    with server.serve_webs([tmp_path / "web"]) as handle:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": handle.proxy_url}))
        with opener.open(f"http://{next(iter(hosts))}/robots.txt", timeout=10) as resp:
            assert resp.read().startswith(b"User-agent: *")
        queue = deque(seeds)
        seen = set(seeds)
        while queue:
            url = queue.popleft()
            try:
                with opener.open(url, timeout=10) as resp:  # follows the root redirects
                    final, body = resp.geturl(), resp.read().decode("utf-8")
            except urllib.error.HTTPError:
                continue
            fetched.add(page_key(final))
            for href in _HREF.findall(body):
                target = page_key(urljoin(final, unescape(href)))
                if urlsplit(target).hostname in hosts and target not in seen:
                    seen.add(target)
                    queue.append(target)
    assert wanted <= fetched, sorted(wanted - fetched)[:5]
