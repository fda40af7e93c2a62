"""Record types shared by every source reader, and the counter of rejected input."""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

log = logging.getLogger(__name__)


class LangRecord(NamedTuple):
    """A URL and the language (ISO 639-3) of the document it points to.

    A NamedTuple, not a dataclass: readers create one per input line and this is the cheapest
    immutable record Python has (it matters at CommonCrawl scale).
    """

    url: str
    lang: str
    source: str


class PairRecord(NamedTuple):
    """Two URLs whose documents are mutual translations; languages in ISO 639-3."""

    src_url: str
    trg_url: str
    src_lang: str
    trg_lang: str
    source: str

    def lang_records(self) -> tuple[LangRecord, LangRecord]:
        """The two (url, language) facts this pair carries."""
        return (
            LangRecord(self.src_url, self.src_lang, self.source),
            LangRecord(self.trg_url, self.trg_lang, self.source),
        )


@dataclass
class Rejects:
    """Counts rejected input per reason and keeps a few examples of each; never silent.

    Readers call :meth:`add` for every line or URL they cannot use; the data-set card and the
    log report :meth:`summary`.
    """

    max_examples: int = 3
    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, reason: str, example: str = "") -> None:
        """Count one rejected item under ``reason`` (a short stable key such as ``bad_columns``)."""
        self.counts[reason] += 1
        ex = self.examples.setdefault(reason, [])
        if len(ex) < self.max_examples:
            ex.append(example[:300])

    @property
    def total(self) -> int:
        """Number of rejected items over all reasons."""
        return sum(self.counts.values())

    def summary(self) -> dict[str, dict[str, object]]:
        """``{reason: {"count": n, "examples": [...]}}``, most frequent reason first."""
        return {r: {"count": n, "examples": self.examples.get(r, [])} for r, n in self.counts.most_common()}

    def log_summary(self, what: str) -> None:
        """Log one warning line per reason (or an info line when nothing was rejected)."""
        if not self.counts:
            log.info("%s: nothing rejected", what)
        for reason, n in self.counts.most_common():
            log.warning("%s: rejected %d item(s): %s (e.g. %s)", what, n, reason, self.examples.get(reason, [""])[:1])


@dataclass(frozen=True)
class SourceSpec:
    """One configured input: a reader ``kind`` (see ``smartcrawl.data.sources``), a path and its options."""

    kind: str
    path: str
    options: dict[str, object] = field(default_factory=dict)
