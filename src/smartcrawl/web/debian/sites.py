"""The three Debian documentation sites, located in unpacked packages.

==================  ==============================  =======================================================
site                host                            URL layout (``<code>`` = the package's directory name)
==================  ==============================  =======================================================
``libreoffice``     ``help.libreoffice.test``       ``/help/<code>/text/...`` (``libreoffice-help-<code>``,
                                                    one package per language, shared files from
                                                    ``libreoffice-help-common`` under ``/help/``)
``apache``          ``httpd.apache.test``           ``/manual/<code>/...`` (``apache2-doc``: Debian ships
                                                    the manual split into one tree per language, with
                                                    English copies where a page is untranslated)
``install-guide``   ``install-guide.debian.test``   ``/<code>/...`` (``installation-guide-amd64``)
==================  ==============================  =======================================================

Each tree is served at the same relative layout as in the package, so the pages' relative links
(and LibreOffice's ``<base href>``) work unchanged. The LibreOffice help builds its contents and index
with JavaScript: :mod:`.helpnav` renders them as static pages in each tree. The ``*_from_*`` functions take unpacked roots
(tests give them small fake trees); :func:`prepare_site` downloads what a site needs first.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path

from smartcrawl.langs import to_iso3
from smartcrawl.web.debian import apt
from smartcrawl.web.debian.helpnav import libreoffice_nav
from smartcrawl.web.debian.source import LangTree, SharedDir, SiteSource, lang_dirs, pick_code

SITES: tuple[str, ...] = ("libreoffice", "apache", "install-guide")
HOSTS: dict[str, str] = {
    "libreoffice": "help.libreoffice.test",
    "apache": "httpd.apache.test",
    "install-guide": "install-guide.debian.test",
}
LIBREOFFICE_PREFIX = "libreoffice-help-"
LIBREOFFICE_HELP = Path("usr/share/libreoffice/help")
LIBREOFFICE_START = "text/shared/05/new_help.html"
APACHE_PACKAGE = "apache2-doc"
APACHE_MANUAL = Path("usr/share/doc/apache2-doc/manual")
GUIDE_PACKAGE = "installation-guide-amd64"
GUIDE_DOC = Path("usr/share/doc/installation-guide-amd64")

Fetcher = Callable[[str], Path]


class MissingLanguage(LookupError):
    """The site has no tree for one of the requested languages."""


def _trees(available: dict[str, str], roots: dict[str, Path], langs: Sequence[str], prefix: str,
           start: str, site: str) -> tuple[LangTree, ...]:
    trees = []
    for lang in langs:
        code = pick_code(available, lang)
        if code is None:
            raise MissingLanguage(f"{site} has no {lang} (it has: {', '.join(sorted(set(available.values())))})")
        root = roots[code]
        trees.append(LangTree(code=code, lang=lang, root=root, prefix=f"{prefix}{code}/", start=_start_page(root, start)))
    return tuple(trees)


def _start_page(root: Path, preferred: str) -> str:
    """``preferred`` when the tree has it, else its first HTML page (relative path), else ``preferred``."""
    if (root / preferred).is_file():
        return preferred
    pages = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.html"))
    return min(pages, key=lambda rel: (rel.count("/"), rel)) if pages else preferred


def libreoffice_from_roots(common_root: Path | None, lang_roots: dict[str, Path], langs: Sequence[str]) -> SiteSource:
    """The LibreOffice help site from unpacked packages (``lang_roots``: package language code -> unpacked root)."""
    roots: dict[str, Path] = {}
    available: dict[str, str] = {}
    for pkg_root in lang_roots.values():
        for code, lang in lang_dirs(pkg_root / LIBREOFFICE_HELP).items():
            roots[code] = pkg_root / LIBREOFFICE_HELP / code
            available[code] = lang
    trees = _trees(available, roots, langs, "/help/", LIBREOFFICE_START, "libreoffice")
    shared = () if common_root is None else (SharedDir(common_root / LIBREOFFICE_HELP, "/help/", frozenset(roots)),)
    return SiteSource(
        name="libreoffice", host=HOSTS["libreoffice"], title="LibreOffice Help", trees=trees, shared=shared,
        languages_available=tuple(sorted(set(available.values()))), navigation=libreoffice_nav,
    )


def apache_from_root(pkg_root: Path, langs: Sequence[str]) -> SiteSource:
    """The Apache HTTP Server manual from an unpacked ``apache2-doc``."""
    manual = pkg_root / APACHE_MANUAL
    available = lang_dirs(manual)
    roots = {code: manual / code for code in available}
    trees = _trees(available, roots, langs, "/manual/", "index.html", "apache")
    rewrites = tuple((f"{scheme}://httpd.apache.org/docs/2.4/", "/manual/{code}/") for scheme in ("http", "https"))
    return SiteSource(
        name="apache", host=HOSTS["apache"], title="Apache HTTP Server Documentation", trees=trees,
        shared=(SharedDir(manual, "/manual/", frozenset(available)),), rewrites=rewrites,
        languages_available=tuple(sorted(set(available.values()))),
    )


def install_guide_from_root(pkg_root: Path, langs: Sequence[str]) -> SiteSource:
    """The Debian installation guide (amd64) from an unpacked ``installation-guide-amd64``."""
    doc = pkg_root / GUIDE_DOC
    available = lang_dirs(doc)
    roots = {code: doc / code for code in available}
    trees = _trees(available, roots, langs, "/", "index.html", "install-guide")
    return SiteSource(
        name="install-guide", host=HOSTS["install-guide"], title="Debian GNU/Linux Installation Guide",
        trees=trees, languages_available=tuple(sorted(set(available.values()))),
    )


def libreoffice_packages() -> dict[str, str]:
    """``{package: ISO 639-3}`` of the ``libreoffice-help-<lang>`` packages apt knows."""
    out: dict[str, str] = {}
    for name in apt.package_names(LIBREOFFICE_PREFIX):
        code = name[len(LIBREOFFICE_PREFIX):]
        lang = to_iso3(code) if code != "common" else None
        if lang and lang != "und":
            out[name] = lang
    return out


def prepare_site(site: str, langs: Sequence[str], fetch: Fetcher) -> SiteSource:
    """Download and unpack what ``site`` needs for ``langs`` (through ``fetch``) and locate its trees.

    Raises :class:`MissingLanguage` when the site has no tree for one of ``langs``.
    """
    if site == "libreoffice":
        packages = libreoffice_packages()
        by_code = {pkg[len(LIBREOFFICE_PREFIX):]: lang for pkg, lang in packages.items()}
        codes = []
        for lang in langs:
            code = pick_code(by_code, lang)
            if code is None:
                raise MissingLanguage(
                    f"libreoffice has no {lang} (packages for: {', '.join(sorted(set(by_code.values())))})"
                )
            codes.append(code)
        lang_roots = {code: fetch(LIBREOFFICE_PREFIX + code) for code in codes}
        common = fetch(LIBREOFFICE_PREFIX + "common")
        source = libreoffice_from_roots(common, lang_roots, langs)
        return dataclasses.replace(source, languages_available=tuple(sorted(set(by_code.values()))))
    if site == "apache":
        return apache_from_root(fetch(APACHE_PACKAGE), langs)
    if site == "install-guide":
        return install_guide_from_root(fetch(GUIDE_PACKAGE), langs)
    raise ValueError(f"unknown Debian site {site!r} (choose from {', '.join(SITES)})")
