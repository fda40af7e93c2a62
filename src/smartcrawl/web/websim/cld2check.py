"""How well CLD2 identifies the language of websim pages, per language.

The check renders pages exactly as a web stores them and runs ``pycld2.detect`` on their visible
text (tags, scripts and styles removed); CLD2's codes are mapped to ISO 639-3 with
:func:`smartcrawl.langs.to_iso3`. A page counts as correct when CLD2's top language is the page's
true content language (for fallback pages: the main language they really show).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from html import unescape

import pycld2

from smartcrawl.langs import to_iso3
from smartcrawl.web.store import WebStore
from smartcrawl.web.websim.config import WebsimConfig
from smartcrawl.web.websim.generate import plan_web, render_site
from smartcrawl.web.websim.text import load_lexicons, supported_languages

_SCRIPT = re.compile(r"<(script|style)\b.*?</\1>", re.S | re.I)
_TAG = re.compile(r"<[^>]+>")


def visible_text(html: str) -> str:
    """The text of an HTML page: no tags, scripts or styles, entities decoded, spaces collapsed."""
    text = _TAG.sub(" ", _SCRIPT.sub(" ", html))
    return " ".join(unescape(text).split())


def detect(text: str) -> str:
    """CLD2's top language of ``text`` as ISO 639-3 (``und`` when CLD2 cannot tell)."""
    try:
        _, _, details = pycld2.detect(text)
    except pycld2.error:
        return "und"
    code = details[0][1]
    if code in ("un", "xxx"):
        return "und"
    return to_iso3(code) or "und"


@dataclass
class LangAccuracy:
    """CLD2 results for the pages of one language."""

    lang: str
    n: int = 0
    correct: int = 0
    confusions: Counter[str] = field(default_factory=Counter)

    @property
    def accuracy(self) -> float:
        """Share of pages identified correctly."""
        return self.correct / self.n if self.n else 0.0

    def add(self, predicted: str) -> None:
        """Count one page whose CLD2 prediction is ``predicted``."""
        self.n += 1
        if predicted == self.lang:
            self.correct += 1
        else:
            self.confusions[predicted] += 1


def _score(pages: Iterable[tuple[str, str]], results: dict[str, LangAccuracy]) -> None:
    for lang, html in pages:
        results.setdefault(lang, LangAccuracy(lang)).add(detect(visible_text(html)))


def check_web(store: WebStore, max_per_lang: int | None = None, seed: int = 0) -> dict[str, LangAccuracy]:
    """CLD2 accuracy per language over the content pages of a stored web (optionally sampled)."""
    truth = store.truth_langs()
    rng = random.Random(seed)
    chosen: list[tuple[str, str]] = []
    for lang, grp in truth.groupby("lang", sort=True):
        urls = list(grp["url"])
        if max_per_lang is not None and len(urls) > max_per_lang:
            urls = rng.sample(urls, max_per_lang)
        chosen += [(str(lang), u) for u in urls]
    results: dict[str, LangAccuracy] = {}
    pages = []
    for lang, url in chosen:
        page = store.get(url)
        if page is not None:
            pages.append((lang, page.body.decode("utf-8", "replace")))
    _score(pages, results)
    return results


def check_languages(langs: Sequence[str] | None = None, pages_per_lang: int = 200, seed: int = 0,
                    base: WebsimConfig | None = None) -> dict[str, LangAccuracy]:
    """CLD2 accuracy per language on freshly generated (not stored) pages.

    For each language a small web is planned with that language in the pair (partner: English,
    or Spanish for English) and up to ``pages_per_lang`` of its pages in that language are checked.
    """
    langs = list(langs or supported_languages())
    lexicons = load_lexicons()
    base = base or WebsimConfig()
    results: dict[str, LangAccuracy] = {}
    for lang in langs:
        partner = "spa" if lang == "eng" else "eng"
        cfg = replace(base, pair=(lang, partner), n_sites=4, n_pages=max(60, 3 * pages_per_lang), seed=seed,
                      other_langs=(0, 1), calendar_trap_prob=0.0, session_trap_prob=0.0).resolved()
        pages: list[tuple[str, str]] = []
        for site in plan_web(cfg, lexicons):
            for page, row in render_site(site, lexicons):
                if row.get("lang") == lang and "url_lang" in row:
                    pages.append((lang, page.body.decode("utf-8")))
        rng = random.Random(f"{seed}/{lang}")
        if len(pages) > pages_per_lang:
            pages = rng.sample(pages, pages_per_lang)
        _score(pages, results)
    return results


def accuracy_table(results: dict[str, LangAccuracy]) -> str:
    """A per-language table: pages, correct, accuracy and the most common confusions."""
    lines = [f"{'lang':<6}{'pages':>7}{'correct':>9}{'accuracy':>10}  confusions", "-" * 48]
    for lang in sorted(results):
        r = results[lang]
        conf = ", ".join(f"{k} {v}" for k, v in r.confusions.most_common(3))
        lines.append(f"{lang:<6}{r.n:>7}{r.correct:>9}{100 * r.accuracy:>9.1f}%  {conf}")
    n = sum(r.n for r in results.values())
    c = sum(r.correct for r in results.values())
    lines.append("-" * 48)
    lines.append(f"{'all':<6}{n:>7}{c:>9}{100 * c / max(1, n):>9.1f}%  min {100 * min((r.accuracy for r in results.values()), default=0):.1f}%")
    return "\n".join(lines)
