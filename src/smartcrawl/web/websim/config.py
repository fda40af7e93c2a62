"""Configuration of a websim web, and the calibrated default mix of URL conventions.

The default convention mix, the share of sites whose main language carries no URL mark, the
forms of language codes and the names of language query parameters are measured on real URL
pairs by ``python -m smartcrawl.web websim-calibrate --write-default`` and stored in
``default_mix.json`` beside this module; no number of that file is typed by hand.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any

from smartcrawl.web.websim.conventions import CODE_FORMS, CONVENTIONS

DEFAULT_MIX_FILE = "default_mix.json"


def default_mix_path() -> Path:
    """Path of the committed calibration result (``default_mix.json`` in this package)."""
    return Path(str(resources.files("smartcrawl.web.websim") / DEFAULT_MIX_FILE))


def load_default_mix(path: str | Path | None = None) -> dict[str, Any]:
    """The calibrated defaults: ``mix``, ``unmarked_main_share``, ``code_forms``, ``query_params``."""
    p = Path(path) if path else default_mix_path()
    if not p.is_file():
        raise FileNotFoundError(
            f"{p} is missing; regenerate it with `python -m smartcrawl.web websim-calibrate --write-default`"
        )
    return json.loads(p.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class WebsimConfig:
    """Every knob of a websim web; ``None`` fields take the calibrated default (``default_mix.json``)."""

    pair: tuple[str, str] = ("eng", "mlt")
    n_sites: int = 50
    n_pages: int = 20_000
    seed: int = 0
    # Languages: each site has the pair plus k other languages, k uniform in this range.
    other_langs: tuple[int, int] = (0, 3)
    other_lang_pool: tuple[str, ...] | None = None  # default: every language websim has text for
    main_first_prob: float = 0.5  # P(the pair's first language is the site's main language)
    # Sizes: lognormal weights, scaled to n_pages, clipped.
    size_sigma: float = 1.1
    min_site_pages: int = 25
    max_site_share: float = 0.25
    # URL conventions (None = calibrated default).
    mix: Mapping[str, float] | None = None
    unmarked_main_share: float | None = None
    code_forms: Mapping[str, float] | None = None
    query_params: Mapping[str, float] | None = None
    # Translation coverage: fraction of documents translated into the pair's other language / others.
    coverage_pair: tuple[float, float] = (0.35, 1.0)
    coverage_other: tuple[float, float] = (0.1, 0.7)
    fallback_site_prob: float = 0.3  # sites that serve untranslated pages in the main language
    fallback_page_prob: float = 0.5  # ... for this share of their untranslated pages
    english_slug_prob: float = 0.2  # translated slugs that stay in English (or the main language)
    unicode_slug_prob: float = 0.1  # sites whose slugs are percent-encoded UTF-8, not ASCII-folded
    # Link graph.
    switcher_mix: Mapping[str, float] = field(default_factory=lambda: {"hreflang": 0.45, "plain": 0.4, "none": 0.15})
    switcher_home_prob: float = 0.4  # the switcher links a missing translation to that language's home
    href_mix: Mapping[str, float] = field(
        default_factory=lambda: {"absolute": 0.25, "root": 0.45, "relative": 0.15, "mixed": 0.15}
    )
    related_links: tuple[int, int] = (1, 4)
    external_link_prob: float = 0.3  # per document: a link to another site of the web or off the web
    calendar_trap_prob: float = 0.2
    session_trap_prob: float = 0.1
    trap_depth: int = 30  # stored prefix of an endless trap chain
    robots_disallow_prob: float = 0.25
    per_page: tuple[int, ...] = (10, 12, 15, 20)

    def resolved(self) -> "WebsimConfig":
        """A copy with every ``None`` default filled from ``default_mix.json`` and checked."""
        calib: dict[str, Any] = {}
        if None in (self.mix, self.unmarked_main_share, self.code_forms, self.query_params):
            calib = load_default_mix()
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        for name in ("mix", "unmarked_main_share", "code_forms", "query_params"):
            if values[name] is None:
                values[name] = calib[name]
        cfg = WebsimConfig(**values)
        cfg.check()
        return cfg

    def check(self) -> None:
        """Raise ``ValueError`` for inconsistent settings."""
        if self.pair[0] == self.pair[1]:
            raise ValueError(f"the pair needs two languages, got {self.pair}")
        if self.n_sites < 1 or self.n_pages < 1:
            raise ValueError("n_sites and n_pages must be positive")
        if self.mix is not None:
            unknown = set(self.mix) - set(CONVENTIONS)
            if unknown:
                raise ValueError(f"unknown conventions in mix: {sorted(unknown)}; known: {CONVENTIONS}")
            if sum(self.mix.values()) <= 0:
                raise ValueError("the convention mix has no positive weight")
        if self.code_forms is not None and set(self.code_forms) - set(CODE_FORMS):
            raise ValueError(f"unknown code forms: {sorted(set(self.code_forms) - set(CODE_FORMS))}")
        lo, hi = self.other_langs
        if not 0 <= lo <= hi:
            raise ValueError(f"bad other_langs range {self.other_langs}")


def config_from_options(pair: tuple[str, str], n_sites: int, n_pages: int, seed: int, **options: Any) -> WebsimConfig:
    """Build a :class:`WebsimConfig`; ``options`` are its other fields (unknown names raise)."""
    known = {f.name for f in fields(WebsimConfig)}
    unknown = set(options) - known
    if unknown:
        raise TypeError(f"unknown websim options: {sorted(unknown)}")
    return WebsimConfig(pair=tuple(pair), n_sites=n_sites, n_pages=n_pages, seed=seed, **options)  # type: ignore[arg-type]
