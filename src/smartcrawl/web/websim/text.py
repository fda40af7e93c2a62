"""Multilingual page text: concept-aligned lexicons, language-neutral text plans, rendering, slugs.

A *plan* is a language-neutral sequence of slots (function word, noun #i, verb #j, adjective #k,
entity #e, number); rendering a plan with a language's :class:`Lexicon` gives that language's text.
Translations of one page are renderings of the same plan, so they carry corresponding content
(same structure, same concepts in the same order, same entity names and numbers), with a length
ratio that follows the languages' own word lengths.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from urllib.parse import quote

# Slot kinds of a plan.
FUNC, NOUN, VERB, ADJ, ENTITY, NUMBER = "F", "N", "V", "A", "E", "D"

Slot = tuple[str, int]
Sentence = tuple[Slot, ...]
Paragraph = tuple[Sentence, ...]

UI_KEYS: tuple[str, ...] = (
    "home", "next", "previous", "page", "languages", "contact", "search", "read_more", "calendar",
    "related", "more_links",
)

# Sentence shapes (about 40 % function words, like running text).
_PATTERNS: tuple[str, ...] = (
    "FANVFFN", "FNFNVFAN", "FNVAFFN", "FFNVFNFD", "FANFNVFFAN", "NVFFNFE", "FNFFAN",
    "FNVFNFFANFN", "FFANVFNFN", "EVFFANFN", "FNFAVFFNFAN", "FNVFDFN",
)
_TITLE_PATTERNS: tuple[str, ...] = ("AN", "ANFN", "NFAN", "AAN", "NFN", "ANFAN")
_FUNC_RESOLUTION = 10_000
_SYLLABLES: tuple[str, ...] = (
    "ka", "lo", "mi", "ren", "dor", "vi", "sa", "tor", "na", "bel", "ro", "zan", "qui", "te", "mar",
    "ul", "ven", "ko", "ri", "das", "pe", "lin", "go", "ham", "tu", "sel", "bo", "nix", "a", "or",
)
# Characters that NFKD does not fold to ASCII.
_FOLD = str.maketrans({
    "ß": "ss", "æ": "ae", "Æ": "ae", "ð": "d", "Ð": "d", "þ": "th", "Þ": "th", "ø": "o", "Ø": "o",
    "œ": "oe", "Œ": "oe", "ħ": "h", "Ħ": "h", "ł": "l", "Ł": "l", "đ": "d", "Đ": "d", "ı": "i",
})
_NON_ALNUM = re.compile(r"[^0-9a-z]+")
_NON_WORD = re.compile(r"[^\w]+")


@dataclass(frozen=True)
class Lexicon:
    """The words of one language; nouns/verbs/adjectives are aligned by concept across languages."""

    lang: str
    function: tuple[str, ...]
    nouns: tuple[str, ...]
    verbs: tuple[str, ...]
    adjectives: tuple[str, ...]
    ui: tuple[tuple[str, str], ...]

    def ui_text(self, key: str) -> str:
        """The navigation string ``key`` (one of :data:`UI_KEYS`)."""
        for k, v in self.ui:
            if k == key:
                return v
        raise KeyError(key)

    def word(self, slot: Slot, entities: Sequence[str] = ()) -> str:
        """The word that renders one plan slot in this language."""
        kind, value = slot
        if kind == FUNC:
            n = len(self.function)
            return self.function[min(n - 1, int(n * (value / _FUNC_RESOLUTION) ** 2))]
        if kind == NOUN:
            return self.nouns[value]
        if kind == VERB:
            return self.verbs[value]
        if kind == ADJ:
            return self.adjectives[value]
        if kind == ENTITY:
            return entities[value] if entities else self.nouns[value % len(self.nouns)]
        return str(value)


def _lexicon_dir() -> Traversable:
    return resources.files("smartcrawl.web.websim") / "lexicon"


def supported_languages() -> tuple[str, ...]:
    """ISO 639-3 codes of the languages websim can write text in (one lexicon file each)."""
    return tuple(sorted(p.name[:-4] for p in _lexicon_dir().iterdir() if p.name.endswith(".txt")))


def parse_lexicon(lang: str, text: str) -> Lexicon:
    """Parse the text of a lexicon file (format in ``lexicon/README.md``)."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
            continue
        if current is None:
            raise ValueError(f"{lang}: text before the first section: {line!r}")
        current.append(line)

    def words(name: str) -> tuple[str, ...]:
        """The comma-separated entries of one section."""
        joined = " ".join(sections.get(name, []))
        return tuple(w.strip() for w in joined.split(",") if w.strip())

    ui = tuple(
        (k.strip(), v.strip()) for k, _, v in (entry.partition("=") for entry in sections.get("ui", []))
    )
    return Lexicon(lang, words("function"), words("nouns"), words("verbs"), words("adjectives"), ui)


def load_lexicon(lang: str) -> Lexicon:
    """Read the lexicon of ``lang`` (ISO 639-3) shipped with the package."""
    path = _lexicon_dir() / f"{lang}.txt"
    if not path.is_file():
        raise ValueError(f"websim has no text for language {lang!r}; supported: {', '.join(supported_languages())}")
    return parse_lexicon(lang, path.read_text(encoding="utf-8"))


def load_lexicons(langs: Sequence[str] | None = None) -> dict[str, Lexicon]:
    """Lexicons of ``langs`` (default: every supported language)."""
    return {lang: load_lexicon(lang) for lang in (langs or supported_languages())}


# -- plans -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Vocabulary:
    """Sizes of the concept lists, so plans can be drawn without loading a lexicon."""

    n_nouns: int = 100
    n_verbs: int = 50
    n_adjectives: int = 50


def make_sentence(rng: random.Random, n_entities: int, vocab: Vocabulary, patterns: Sequence[str] = _PATTERNS,
                  topic: Sequence[int] = ()) -> Sentence:
    """A language-neutral sentence plan; nouns come from ``topic`` half of the time when given."""
    pattern = rng.choice(patterns)
    slots: list[Slot] = []
    for kind in pattern:
        if kind == FUNC:
            slots.append((FUNC, rng.randrange(_FUNC_RESOLUTION)))
        elif kind == NOUN:
            noun = rng.choice(topic) if topic and rng.random() < 0.5 else rng.randrange(vocab.n_nouns)
            slots.append((NOUN, noun))
        elif kind == VERB:
            slots.append((VERB, rng.randrange(vocab.n_verbs)))
        elif kind == ADJ:
            slots.append((ADJ, rng.randrange(vocab.n_adjectives)))
        elif kind == ENTITY:
            if n_entities:
                slots.append((ENTITY, rng.randrange(n_entities)))
            else:
                slots.append((NOUN, rng.randrange(vocab.n_nouns)))
        else:
            slots.append((NUMBER, rng.choice((rng.randint(2, 99), rng.randint(1950, 2025), rng.randint(100, 9999)))))
    return tuple(slots)


def make_title(rng: random.Random, vocab: Vocabulary, topic: Sequence[int] = ()) -> Sentence:
    """A short title plan (adjectives and nouns, a function word or two)."""
    return make_sentence(rng, 0, vocab, _TITLE_PATTERNS, topic)


def make_paragraphs(rng: random.Random, n_entities: int, vocab: Vocabulary, n_paragraphs: tuple[int, int],
                    n_sentences: tuple[int, int], topic: Sequence[int] = ()) -> tuple[Paragraph, ...]:
    """A body plan: ``n_paragraphs`` paragraphs of ``n_sentences`` sentences (inclusive ranges)."""
    return tuple(
        tuple(make_sentence(rng, n_entities, vocab, topic=topic) for _ in range(rng.randint(*n_sentences)))
        for _ in range(rng.randint(*n_paragraphs))
    )


def make_entities(rng: random.Random, n: int) -> tuple[str, ...]:
    """``n`` invented proper names (people, places, brands), shared by every translation."""
    names: list[str] = []
    for _ in range(n):
        word = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3)))
        names.append(word.capitalize())
    return tuple(names)


# -- rendering --------------------------------------------------------------------------------------
def render_words(plan: Sentence, lex: Lexicon, entities: Sequence[str] = ()) -> list[str]:
    """The words of one rendered plan; function words ending in ``-`` are glued to the next word."""
    words: list[str] = []
    glue = False
    for slot in plan:
        w = lex.word(slot, entities)
        if glue and words:
            words[-1] += w
        else:
            words.append(w)
        glue = w.endswith("-")
    return words


def render_sentence(plan: Sentence, lex: Lexicon, entities: Sequence[str] = ()) -> str:
    """One sentence: capitalised, with a full stop."""
    text = " ".join(render_words(plan, lex, entities))
    return text[:1].upper() + text[1:] + "."


def render_title(plan: Sentence, lex: Lexicon, entities: Sequence[str] = ()) -> str:
    """A title: capitalised, no full stop."""
    text = " ".join(render_words(plan, lex, entities))
    return text[:1].upper() + text[1:]


def render_paragraph(plan: Paragraph, lex: Lexicon, entities: Sequence[str] = ()) -> str:
    """A paragraph of sentences."""
    return " ".join(render_sentence(s, lex, entities) for s in plan)


def content_words(plan: Sentence, lex: Lexicon, entities: Sequence[str] = ()) -> list[str]:
    """The content words (no function words) of a plan, as used in URL slugs."""
    return [lex.word(slot, entities) for slot in plan if slot[0] != FUNC]


# -- slugs ------------------------------------------------------------------------------------------
def ascii_fold(text: str) -> str:
    """Lower-case ASCII transliteration (``Íslenska`` -> ``islenska``, ``għali`` -> ``ghali``)."""
    text = text.translate(_FOLD)
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def slugify(words: Sequence[str], keep_unicode: bool = False) -> str:
    """A URL path slug from words: ASCII-folded and hyphenated, or percent-encoded UTF-8."""
    if keep_unicode:
        parts = [p for p in (_NON_WORD.sub("-", w.lower()).strip("-_") for w in words) if p]
        return quote("-".join(parts), safe="-")
    parts = [p for p in (_NON_ALNUM.sub("-", ascii_fold(w)).strip("-") for w in words) if p]
    return "-".join(parts)
