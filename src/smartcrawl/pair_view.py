"""What the pair classifier reads for two URLs: both pre-processed, optionally with their differences marked.

``plain`` is the paper's input: the two pre-processed URLs (:func:`smartcrawl.urls.preprocess_url`)
as one sequence pair. ``marked`` (ours) also brackets the words in which the two URLs differ, found by
aligning their word sequences (``difflib``): ``a.com / en / news / 12`` and ``a.com / fr / news / 13``
become ``a.com / [ en ] / news / [ 12 ]`` and ``a.com / [ fr ] / news / [ 13 ]``. A small encoder
then sees at once whether two URLs differ only by language marks (or by words that translate each
other) or also by an id or a slug, the cue it otherwise has to find by comparing two long sequences
token by token. The view is saved in the model card, so the scorer feeds a model what it was
trained on.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from smartcrawl.urls import preprocess_url

PAIR_VIEWS: tuple[str, ...] = ("plain", "marked")
OPEN, CLOSE = "[ ", " ]"
_WORD = re.compile(r"\w+|[^\w\s]")


def check_pair_view(view: str) -> str:
    """``view`` if it is a known pair view, else a ValueError naming the allowed ones."""
    if view not in PAIR_VIEWS:
        raise ValueError(f"pair_view: unknown view {view!r}; allowed: {', '.join(PAIR_VIEWS)}")
    return view


def mark_differences(a: str, b: str) -> tuple[str, str]:
    """Both texts with each run of words that the other text does not share put in ``[ ... ]``.

    Words are runs of letters/digits or single punctuation marks; the text between them (spaces)
    is kept as it is, so outside the brackets each text reads exactly as before.
    """
    words_a, words_b = list(_WORD.finditer(a)), list(_WORD.finditer(b))
    matcher = difflib.SequenceMatcher(a=[m.group() for m in words_a], b=[m.group() for m in words_b],
                                      autojunk=False)
    differ_a, differ_b = [False] * len(words_a), [False] * len(words_b)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "equal":
            differ_a[i1:i2] = [True] * (i2 - i1)
            differ_b[j1:j2] = [True] * (j2 - j1)
    return _render(a, words_a, differ_a), _render(b, words_b, differ_b)


def _render(text: str, words: Sequence[re.Match[str]], differ: Sequence[bool]) -> str:
    out: list[str] = []
    pos, inside = 0, False
    for word, marked in zip(words, differ):
        if inside and not marked:
            out.append(CLOSE)
            inside = False
        out.append(text[pos : word.start()])
        if marked and not inside:
            out.append(OPEN)
            inside = True
        out.append(word.group())
        pos = word.end()
    if inside:
        out.append(CLOSE)
    out.append(text[pos:])
    return "".join(out)


def pair_inputs(src_urls: Sequence[str], trg_urls: Sequence[str], view: str = "plain") -> tuple[list[str], list[str]]:
    """The two input texts of each URL pair in the given view (see the module docstring)."""
    check_pair_view(view)
    first = [preprocess_url(u) for u in src_urls]
    second = [preprocess_url(u) for u in trg_urls]
    if view == "marked":
        marked = [mark_differences(a, b) for a, b in zip(first, second)]
        first, second = [m[0] for m in marked], [m[1] for m in marked]
    return first, second
