"""What a Debian documentation site is made of: language trees, language-neutral files and link rewrites.

A :class:`SiteSource` says where the unpacked files lie and under which URL path each tree is
served; :mod:`smartcrawl.web.debian.sites` makes them from unpacked packages and
:mod:`smartcrawl.web.debian.build` turns them into a test-bed web.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from smartcrawl.langs import LANGUAGES, to_iso3
from smartcrawl.web.debian.navpages import TreeNav

DEFAULT_ROBOTS = "User-agent: *\nDisallow:\n"


@dataclass(frozen=True)
class LangTree:
    """One language's copy of the documentation.

    ``code`` is the directory name as the package spells it (``en-US``, ``pt-br``, ``zh_CN``) and stays
    in the URL, ``lang`` its ISO 639-3 code, ``prefix`` the URL path it is served under (``/help/fi/``),
    ``start`` the page (relative to the tree) that the language chooser links to.
    """

    code: str
    lang: str
    root: Path
    prefix: str
    start: str = "index.html"


@dataclass(frozen=True)
class SharedDir:
    """Language-neutral files (style sheets, scripts, images, top index) served under ``prefix``.

    ``exclude`` names top-level entries of ``root`` that are not shared (the language trees).
    """

    root: Path
    prefix: str
    exclude: frozenset[str] = frozenset()


@dataclass(frozen=True)
class SiteSource:
    """A documentation site to build: host, language trees, shared files and absolute-link rewrites.

    ``rewrites`` maps absolute URL prefixes of the real site (``https://httpd.apache.org/docs/2.4/``)
    to a path template on the test-bed host (``/manual/{code}/``), so links to the real site stay on it.
    ``navigation`` renders static navigation pages of a tree (contents, index) that the site itself
    builds with JavaScript; the builder adds them to the tree and links them from the chooser.
    """

    name: str
    host: str
    title: str
    trees: tuple[LangTree, ...]
    shared: tuple[SharedDir, ...] = ()
    rewrites: tuple[tuple[str, str], ...] = ()
    robots_txt: str = DEFAULT_ROBOTS
    languages_available: tuple[str, ...] = field(default_factory=tuple)
    navigation: Callable[[LangTree], TreeNav] | None = None

    @property
    def langs(self) -> list[str]:
        """ISO 639-3 codes of the trees, in tree order."""
        return [t.lang for t in self.trees]


def lang_dirs(parent: Path) -> dict[str, str]:
    """Sub-directories of ``parent`` named by a language code, as ``{dir name: ISO 639-3}``.

    Names must look like ``xx``, ``xxx``, ``xx-YY`` or ``xx_YY`` (so ``images`` or ``style`` never
    count); a three-letter base counts only for a language of :data:`smartcrawl.langs.LANGUAGES`, so
    that directories such as ``css`` or ``img`` are not taken for rare ISO 639-3 languages.
    """
    out: dict[str, str] = {}
    if not parent.is_dir():
        return out
    for child in sorted(parent.iterdir()):
        if not child.is_dir():
            continue
        name = child.name
        base = name.replace("_", "-").split("-", 1)
        if not (base[0].isalpha() and len(base[0]) in (2, 3)):
            continue
        if len(base) == 2 and not (base[1].isalpha() and 2 <= len(base[1]) <= 4):
            continue
        lang = to_iso3(name)
        if len(base[0]) == 3 and lang not in LANGUAGES:
            continue
        if lang and lang != "und":
            out[name] = lang
    return out


def pick_code(codes: Mapping[str, str], lang: str) -> str | None:
    """The directory (or package) code to use for ``lang`` among ``codes`` ({code: ISO 639-3}).

    Prefers the bare code (``pt`` over ``pt-br``), then a US variant (``en-US`` over ``en-GB``), then
    the alphabetically first one; ``None`` when no code maps to ``lang``.
    """
    matches = [c for c, l in codes.items() if l == lang]
    if not matches:
        return None

    def rank(code: str) -> tuple[int, int, str]:
        norm = code.lower().replace("_", "-")
        return ("-" in norm, not norm.endswith("-us"), norm)

    return sorted(matches, key=rank)[0]
