"""How the smart strategy reads URLs: the :class:`UrlScorer` protocol and a model-free :class:`RuleScorer`.

A scorer answers two batched questions, one batch per downloaded page:

- ``lang_probs(urls, lang)``: P(the document at each URL is in ``lang``) (ISO 639-3);
- ``parallel_probs(pairs)``: P(the two URLs of each pair are mutual translations).

The trained classifiers (the paper's XLM-R models) plug in later with the same two methods; the
crawler needs nothing else from them. :class:`RuleScorer` turns the project's URL baselines into
probabilities:

- language: :class:`~smartcrawl.models.baselines.url_rules.UrlRulesClassifier` over every language of
  :data:`smartcrawl.langs.LANGUAGES` plus the pair. A URL whose code says ``lang`` gets ``hit_prob``
  (1.0); a URL whose code names another language gets ``miss_prob`` (0.01, not 0, as a code can be
  a false alarm such as ``/it/`` for "it"); a URL with no code gets the prior ``unknown_prob``,
  by default ``1 / len(pair)`` (0.5): with no mark in the URL, each language of the pair is as likely.
  (Most URLs carry no mark, English ones above all: the paper measured 94 % of English URLs.)
- parallelism: the extended WMT16 URL-matching rule
  (:func:`~smartcrawl.models.baselines.url_matching.url_matching_parallel`), tried with both
  orientations of the pair's languages: ``parallel_prob`` (1.0) when it matches, else ``epsilon``
  (0.01), so that non-matching links still rank by their language probability.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from smartcrawl.langs import LANGUAGES, UNKNOWN


@runtime_checkable
class UrlScorer(Protocol):
    """What the smart strategy needs from URL classifiers (see the module docstring)."""

    def lang_probs(self, urls: Sequence[str], lang: str) -> np.ndarray:
        """P(lang(url) == ``lang``) for each URL, shape ``(len(urls),)``, values in [0, 1]."""
        ...

    def parallel_probs(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """P(the two URLs are parallel) for each pair, shape ``(len(pairs),)``, values in [0, 1]."""
        ...


class RuleScorer:
    """Model-free :class:`UrlScorer` from the URL-rules and URL-matching baselines (module docstring)."""

    def __init__(
        self,
        langs: Iterable[str],
        *,
        known_langs: Iterable[str] | None = None,
        unknown_prob: float | None = None,
        hit_prob: float = 1.0,
        miss_prob: float = 0.01,
        parallel_prob: float = 1.0,
        epsilon: float = 0.01,
    ) -> None:
        # Imported here: the baselines pull in pandas and the metrics module, which a crawl with
        # another scorer (or none) does not need.
        from smartcrawl.models.baselines.url_rules import UrlRulesClassifier

        self.langs: tuple[str, ...] = tuple(str(x) for x in langs)
        if len(self.langs) != 2 or self.langs[0] == self.langs[1]:
            raise ValueError(f"a language pair needs two different languages, got {self.langs}")
        labels = set(LANGUAGES) if known_langs is None else {str(x) for x in known_langs}
        labels |= set(self.langs)
        for name, p in (("hit_prob", hit_prob), ("miss_prob", miss_prob), ("parallel_prob", parallel_prob),
                        ("epsilon", epsilon)):
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"{name} must lie in [0, 1], got {p}")
        self.unknown_prob = 1.0 / len(self.langs) if unknown_prob is None else float(unknown_prob)
        self.hit_prob, self.miss_prob = float(hit_prob), float(miss_prob)
        self.parallel_prob, self.epsilon = float(parallel_prob), float(epsilon)
        self._rules = UrlRulesClassifier(labels)

    def lang_probs(self, urls: Sequence[str], lang: str) -> np.ndarray:
        """P(lang(url) == ``lang``): ``hit_prob`` / ``miss_prob`` / ``unknown_prob`` (module docstring)."""
        preds = self._rules.predict(urls)
        out = np.empty(len(preds), dtype=np.float64)
        for i, pred in enumerate(preds):
            if pred == UNKNOWN:
                out[i] = self.unknown_prob
            else:
                out[i] = self.hit_prob if pred == lang else self.miss_prob
        return out

    def parallel_probs(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """``parallel_prob`` where URL matching pairs the two URLs (either language order), else ``epsilon``."""
        from smartcrawl.models.baselines.url_matching import url_matching_parallel

        a, b = self.langs
        out = np.empty(len(pairs), dtype=np.float64)
        for i, (src, trg) in enumerate(pairs):
            match = url_matching_parallel(src, trg, a, b) or url_matching_parallel(src, trg, b, a)
            out[i] = self.parallel_prob if match else self.epsilon
        return out
