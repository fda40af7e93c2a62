"""``python -m smartcrawl.web debian``: build a test-bed web from Debian documentation packages."""

from __future__ import annotations

import argparse
import json
import logging
from functools import partial
from pathlib import Path

from smartcrawl.langs import to_iso3
from smartcrawl.web.debian import apt
from smartcrawl.web.debian.build import build_web
from smartcrawl.web.debian.sites import SITES, MissingLanguage, prepare_site
from smartcrawl.web.debian.source import SiteSource

log = logging.getLogger(__name__)


def parse_langs(text: str, sep: str = ",") -> list[str]:
    """``"eng-fin"`` (``sep="-"``) or ``"en,fi"`` -> ISO 639-3 codes, in order, without repeats."""
    out: list[str] = []
    for part in text.split(sep):
        part = part.strip()
        if not part:
            continue
        code = to_iso3(part)
        if code is None or code == "und":
            raise SystemExit(f"unknown language {part!r}")
        if code not in out:
            out.append(code)
    return out


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register the ``debian`` sub-command."""
    p = subparsers.add_parser(
        "debian",
        help="build a web from Debian documentation packages (LibreOffice help, Apache manual, install guide)",
        description=__doc__,
    )
    p.add_argument("--pair", help="language pair, e.g. eng-fin, spa-eus (ISO 639-3 or 639-1); required unless --list")
    p.add_argument("--out", type=Path, help="web directory to write (required unless --list)")
    p.add_argument("--cache-dir", type=Path, default=None,
                   help=f"where .deb files are downloaded and unpacked (default {apt.default_cache_dir()})")
    p.add_argument("--sites", default=",".join(SITES),
                   help=f"comma-separated sites among {', '.join(SITES)} (default: all); a site that lacks a"
                        " language of the pair (or of --extra-langs) is skipped")
    p.add_argument("--extra-langs", default="",
                   help="more languages to serve on each site that has them (comma-separated), as distractors")
    p.add_argument("--with-assets", action="store_true",
                   help="also store style sheets, scripts and images (HTML only by default)")
    p.add_argument("--name", default=None, help="web name in the manifest (default debian-<pair>)")
    p.add_argument("--list", action="store_true", help="only print which languages each site has, then exit")
    p.set_defaults(func=run)


def _sources(args: argparse.Namespace, pair: list[str], extra: list[str], cache: Path) -> list[SiteSource]:
    fetch = partial(apt.fetch_package, cache_dir=cache)
    out = []
    for site in [s.strip() for s in args.sites.split(",") if s.strip()]:
        try:
            source = prepare_site(site, pair, fetch)
        except MissingLanguage as exc:
            log.warning("skipping %s: %s", site, exc)
            continue
        langs = pair + [l for l in extra if l in source.languages_available and l not in pair]
        missing = [l for l in extra if l not in source.languages_available]
        if missing:
            log.info("%s has no %s: not served there", site, ", ".join(missing))
        if langs != pair:
            source = prepare_site(site, langs, fetch)
        out.append(source)
    return out


def run(args: argparse.Namespace) -> int:
    """Fetch the packages, build the web and print its report; exit code 1 when no site has the pair."""
    cache = args.cache_dir or apt.default_cache_dir()
    if apt.apt_tools_available():
        try:
            apt.update_lists_if_needed()
        except apt.AptError as exc:  # a warm cache still works without package lists
            log.warning("could not refresh apt's package lists: %s", exc)
    if args.list:
        for site in SITES:
            try:
                src = prepare_site(site, [], partial(apt.fetch_package, cache_dir=cache))
            except MissingLanguage as exc:  # pragma: no cover - no languages requested
                print(site, exc)
                continue
            print(f"{site}: {' '.join(src.languages_available)}")
        return 0
    if args.out is None or args.pair is None:
        raise SystemExit("--pair and --out are required")
    pair = parse_langs(args.pair, sep="," if "," in args.pair else "-")
    if len(pair) != 2:
        raise SystemExit(f"--pair needs two different languages, got {args.pair!r}")
    extra = parse_langs(args.extra_langs) if args.extra_langs else []
    sources = _sources(args, pair, extra, cache)
    if not sources:
        log.error("no site has both %s", "-".join(pair))
        return 1
    report = build_web(args.out, args.name or f"debian-{'-'.join(pair)}", pair, sources, args.with_assets)
    print(json.dumps(report, indent=1, ensure_ascii=False))
    return 0
