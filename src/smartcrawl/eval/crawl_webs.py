"""Test-bed webs for ``crawl_eval``: build one per language pair into a cache dir, once, and describe its sites.

A web source (``conf/web/``) is an object with a ``name`` and ``build(pair, cache_root) -> Path``
that returns a web directory (:mod:`smartcrawl.web.store` format) for the pair, building it only
when the cache lacks it: the web is written to a temporary directory and renamed into place
when complete, so an interrupted build is never reused and two runs never see half a web.

- :class:`WebsimWeb`: a websim web (:func:`smartcrawl.web.websim.build_websim`); the cache key
  holds the pair, size and seed (and a hash of further options).
- :class:`DebianDocsWeb`: the Debian documentation sites (``python -m smartcrawl.web debian``);
  packages come from apt into the Debian cache (a warm cache needs no apt).

:func:`crawl_sites` lists the crawl jobs of a web: one per site that has seeds, keyed by its host.
:func:`site_of_host` maps every host of the web to the job's site key (websim spreads one site over
several hosts and says so in ``truth/sites.parquet``).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

from smartcrawl.web.store import WebStore

COMPLETE = ".complete"


class WebSource(Protocol):
    """What ``crawl_eval`` needs from a test-bed web builder."""

    name: str

    def build(self, pair: Sequence[str], cache_root: str | Path) -> Path:
        """The web directory for ``pair`` under ``cache_root``, built when missing."""
        ...

    def web_id(self, pair: Sequence[str]) -> str:
        """A file-name-safe identifier of the web this source builds for ``pair`` (its cache key)."""
        ...


def _cached_build(target: Path, build: Any) -> Path:
    """Run ``build(tmp_dir)`` in a temporary sibling of ``target``, then rename it; reuse a complete ``target``."""
    if (target / COMPLETE).is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        build(tmp)
        (tmp / COMPLETE).write_text("")
        if target.exists():
            shutil.rmtree(target)
        tmp.rename(target)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target


def _pair_name(pair: Sequence[str]) -> str:
    if len(pair) != 2 or pair[0] == pair[1]:
        raise ValueError(f"a language pair needs two different languages, got {list(pair)}")
    return f"{pair[0]}-{pair[1]}"


@dataclass(frozen=True)
class WebsimWeb:
    """A websim web of ``n_sites`` sites and about ``n_pages`` pages (``options``: more WebsimConfig fields).

    With ``seed_per_pair`` (default) the websim seed mixes ``seed`` with the pair's name, so each pair
    gets its own sites, as the paper crawled different sites for each pair; without it every pair
    gets the same site structures (only the languages differ).
    """

    name: str = "websim"
    n_sites: int = 20
    n_pages: int = 5000
    seed: int = 0
    seed_per_pair: bool = True
    options: Mapping[str, Any] = field(default_factory=dict)

    def websim_seed(self, pair: Sequence[str]) -> int:
        """The seed handed to websim for ``pair``."""
        if not self.seed_per_pair:
            return int(self.seed)
        return zlib.crc32(f"{_pair_name(pair)}/{self.seed}".encode()) % 1_000_000

    def web_id(self, pair: Sequence[str]) -> str:
        """``websim-<pair>-s<sites>-p<pages>-seed<websim seed>[-<options hash>]``."""
        base = f"websim-{_pair_name(pair)}-s{self.n_sites}-p{self.n_pages}-seed{self.websim_seed(pair)}"
        if self.options:
            blob = json.dumps(dict(self.options), sort_keys=True, default=str).encode()
            base += "-" + hashlib.sha1(blob).hexdigest()[:8]
        return base

    def build(self, pair: Sequence[str], cache_root: str | Path) -> Path:
        """Generate the web (deterministic) into ``cache_root/<web_id>`` unless it is there."""
        from smartcrawl.web.websim import build_websim

        langs = (str(pair[0]), str(pair[1]))

        def run(out: Path) -> None:
            store = build_websim(out, langs, self.n_sites, self.n_pages, self.websim_seed(langs), **dict(self.options))
            store.close()

        return _cached_build(Path(cache_root) / self.web_id(langs), run)


@dataclass(frozen=True)
class DebianDocsWeb:
    """The Debian documentation sites that have both languages of the pair.

    ``sites``: among libreoffice, apache, install-guide; a site lacking a language is skipped.
    """

    name: str = "debian-docs"
    sites: Sequence[str] = ("libreoffice", "apache", "install-guide")
    extra_langs: Sequence[str] = ()
    apt_cache_dir: str | None = None

    def web_id(self, pair: Sequence[str]) -> str:
        """``debian-<pair>-<sites>[-x<extra languages>]-b<builder version>`` (a new builder makes a new web)."""
        from smartcrawl.web.debian.build import BUILD_VERSION

        base = f"debian-{_pair_name(pair)}-{'+'.join(self.sites)}"
        return base + (f"-x{'+'.join(self.extra_langs)}" if self.extra_langs else "") + f"-b{BUILD_VERSION}"

    def build(self, pair: Sequence[str], cache_root: str | Path) -> Path:
        """Build the web with ``python -m smartcrawl.web debian`` (in this process) unless it is cached."""
        from smartcrawl.web.cli import main as web_cli

        def run(out: Path) -> None:
            argv = ["debian", "--pair", _pair_name(pair), "--out", str(out), "--sites", ",".join(self.sites)]
            if self.extra_langs:
                argv += ["--extra-langs", ",".join(self.extra_langs)]
            if self.apt_cache_dir:
                argv += ["--cache-dir", str(self.apt_cache_dir)]
            if web_cli(argv) != 0:
                raise RuntimeError(
                    f"no Debian documentation site has both {_pair_name(pair)} ({', '.join(self.sites)})")

        return _cached_build(Path(cache_root) / self.web_id(pair), run)


@dataclass(frozen=True)
class CrawlSite:
    """One crawl job of a web: the site key (its seed host) and its seeds."""

    site: str
    seeds: tuple[str, ...]


def crawl_sites(web_dir: str | Path) -> list[CrawlSite]:
    """The sites of a web that have seeds, in manifest order (one crawl job each)."""
    store = WebStore(web_dir)
    return [CrawlSite(s.host, tuple(s.seeds)) for s in store.sites() if s.seeds]


def site_of_host(web_dir: str | Path) -> dict[str, str]:
    """Host -> site key (the host of the site's seeds).

    From ``truth/sites.parquet`` when present (websim), else each host is its own site.
    """
    store = WebStore(web_dir)
    out = {s.host: s.host for s in store.sites()}
    path = Path(web_dir) / "truth" / "sites.parquet"
    if path.is_file():
        sites = pd.read_parquet(path, columns=["host", "main_host"])
        out.update(dict(zip(sites["host"].astype(str), sites["main_host"].astype(str), strict=True)))
    return out
