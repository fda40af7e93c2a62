"""Synthetic negative URL pairs for the parallelism task (paper, section 4.1 and Appendix A).

Six generators, each from a group of positive pairs ``(u_A, v_B)`` that share a web domain and a
language pair (the candidate pool, as in the authors' code, which generates per web domain):

- ``rand_bi``: ``(u_A, v_B')`` with ``v_B'`` a random other ``B`` URL of the pool (random match).
- ``jaccard_bi``: ``(u_A, v_B')`` with ``v_B'`` the ``B`` URL of the pool most similar to ``u_A``
  (token-set Jaccard, see :mod:`smartcrawl.data.negatives_jaccard`; the authors' code compares
  with ``u_A``, the paper's text says ``v_B``: for real sites the two are nearly the same).
- ``remove_bi``: ``(u_A', v_B')``, random tokens removed from both URLs, never from the scheme,
  the authority (host, port) or the delimiter after it; the number removed is drawn like the
  authors do, ``round(N(L/2, L/6))`` clipped to ``[1, L]`` for a URL of ``L`` tokens.
- ``rand_mono``, ``jaccard_mono``, ``remove_mono``: the same methods started from identical
  pairs ``(u_A, u_A)`` and ``(v_B, v_B)`` (every distinct URL of each side of the group), giving
  same-language negatives ``(u_A, u_A')`` and ``(v_B, v_B')``.

``per_positive`` is the number of negatives per positive per generator (per distinct URL *and
side* for the monolingual ones). When the domain's own pool cannot give that many, the rest comes
from the *fallback* pool: the same language pair in the same split (``fallback="pair"``; the
authors had none, ``fallback="none"`` reproduces that). Every candidate passes a
:class:`NegativeFilter`: a negative is never a positive (in either order), never two identical
URLs and never a duplicate of an earlier negative (generators run in :data:`GENERATION_ORDER`).

Short names (``negatives=`` takes any ``+``-joined combination) are in :data:`NEGATIVE_NAMES`;
``rand+jaccard+remove`` is the paper's best setting.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence, Set
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from smartcrawl.data.negatives_jaccard import SimilarityIndex, raw_tokens, split_resource

GENERATORS: tuple[str, ...] = ("rand_bi", "rand_mono", "jaccard_bi", "jaccard_mono", "remove_bi", "remove_mono")

NEGATIVE_NAMES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "none": (),
        "rand": ("rand_bi", "rand_mono"),
        "jaccard": ("jaccard_bi", "jaccard_mono"),
        "remove": ("remove_bi",),
        "all": GENERATORS,
        **{g: (g,) for g in GENERATORS},
    }
)

_DESCRIPTIONS: Mapping[str, str] = MappingProxyType(
    {
        "rand_bi": "random match, bilingual: (u_A, v_B') with v_B' a random other B-URL of the domain",
        "rand_mono": "random match, monolingual: (u_A, u_A') and (v_B, v_B') with random other same-language URLs",
        "jaccard_bi": "max Jaccard, bilingual: (u_A, v_B') with v_B' the B-URL most similar to u_A",
        "jaccard_mono": "max Jaccard, monolingual: (u_A, u_A') / (v_B, v_B') with the most similar other URL",
        "remove_bi": "remove random tokens from both u_A and v_B (never scheme, host or port)",
        "remove_mono": "remove random tokens, monolingual: two different token removals of u_A (and of v_B)",
    }
)

# The order generators run in on a group: the hard, similarity-based negatives first, so that a
# pair that is both "most similar" and "random" is labelled (and counted) as the former.
GENERATION_ORDER: tuple[str, ...] = ("jaccard_bi", "jaccard_mono", "remove_bi", "remove_mono", "rand_bi", "rand_mono")

FALLBACKS: tuple[str, ...] = ("pair", "none")

# Random draws per wanted negative before giving up on a big pool.
_DRAWS_PER_WANTED = 3


def parse_negatives(spec: str | Sequence[str]) -> tuple[str, ...]:
    """Expand ``"rand+jaccard+remove"`` (or a list of names) into canonical generator names.

    The result is in :data:`GENERATORS` order without repeats; ``"none"`` expands to ``()``.
    Raises :class:`ValueError` naming the unknown name and the allowed ones.
    """
    parts = spec.split("+") if isinstance(spec, str) else list(spec)
    allowed = ", ".join(NEGATIVE_NAMES)
    chosen: set[str] = set()
    for part in parts:
        name = str(part).strip().lower()
        if not name:
            raise ValueError(f"negatives: empty generator name in {spec!r}; allowed: {allowed} (joined with '+')")
        if name not in NEGATIVE_NAMES:
            raise ValueError(f"negatives: unknown generator {name!r}; allowed: {allowed} (joined with '+')")
        chosen.update(NEGATIVE_NAMES[name])
    return tuple(g for g in GENERATORS if g in chosen)


def describe_negatives() -> str:
    """A Markdown table of every name ``negatives=`` accepts and what it expands to (for the README)."""
    lines = ["| name | expands to |", "|---|---|"]
    for name, gens in NEGATIVE_NAMES.items():
        lines.append(f"| `{name}` | {' + '.join(f'`{g}`' for g in gens) if gens else '(no negatives)'} |")
    lines += ["", "| generator | what it builds |", "|---|---|"]
    lines += [f"| `{g}` | {_DESCRIPTIONS[g]} |" for g in GENERATORS]
    return "\n".join(lines)


class NegativeFilter:
    """Admits a candidate negative only if it is not a positive, not ``(x, x)`` and not seen before.

    One filter per output split: it remembers the negatives it admitted and counts refusals per
    ``(kind, reason)``.
    """

    def __init__(self, positives: Set[tuple[str, str]]) -> None:
        self._positives = positives
        self._seen: set[tuple[str, str]] = set()
        self.refused: Counter[tuple[str, str]] = Counter()

    def admit(self, src: str, trg: str, kind: str) -> bool:
        """True (and remembered) when ``(src, trg)`` may be emitted as a negative of ``kind``."""
        if src == trg:
            reason = "identical_urls"
        elif (src, trg) in self._positives or (trg, src) in self._positives:
            reason = "is_positive"
        elif (src, trg) in self._seen:
            reason = "duplicate"
        else:
            self._seen.add((src, trg))
            return True
        self.refused[(kind, reason)] += 1
        return False


class UrlPool:
    """The distinct URLs of one side (one language) of a group, with a lazily built Jaccard index."""

    def __init__(self, urls: Sequence[str]) -> None:
        self.urls: tuple[str, ...] = tuple(dict.fromkeys(urls))
        self.position: dict[str, int] = {u: i for i, u in enumerate(self.urls)}
        self._index: SimilarityIndex | None = None

    def __len__(self) -> int:
        return len(self.urls)

    @property
    def index(self) -> SimilarityIndex:
        """The similarity index over :attr:`urls` (built on first use)."""
        if self._index is None:
            self._index = SimilarityIndex(self.urls)
        return self._index


class PositiveGroup:
    """Positive pairs of one language pair that form one candidate pool (a domain, or a whole split)."""

    def __init__(self, key: str, src_lang: str, trg_lang: str, pairs: Sequence[tuple[str, str]]) -> None:
        self.key = key
        self.src_lang = src_lang
        self.trg_lang = trg_lang
        self.pairs: tuple[tuple[str, str], ...] = tuple(dict.fromkeys(pairs))
        self.src = UrlPool([u for u, _ in self.pairs])
        self.trg = UrlPool([v for _, v in self.pairs])
        # The first positive each URL comes from (attribution of monolingual negatives).
        self.src_origin: dict[str, int] = {}
        self.trg_origin: dict[str, int] = {}
        for i, (u, v) in enumerate(self.pairs):
            self.src_origin.setdefault(u, i)
            self.trg_origin.setdefault(v, i)


@dataclass(frozen=True, slots=True)
class Negative:
    """A generated negative pair; it derives from positive ``origin`` of group ``group``."""

    src_url: str
    trg_url: str
    src_lang: str
    trg_lang: str
    kind: str
    origin: int
    group: int = 0
    from_fallback: bool = False


GeneratorFn = Callable[
    [Sequence[PositiveGroup], int, Sequence[np.random.Generator], NegativeFilter, "PositiveGroup | None"],
    list[Negative],
]


def generate(
    name: str,
    group: PositiveGroup,
    per_positive: int,
    rng: np.random.Generator,
    accept: NegativeFilter,
    fallback: PositiveGroup | None = None,
) -> list[Negative]:
    """Run generator ``name`` (one of :data:`GENERATORS`) on one ``group``."""
    return generate_groups(name, [group], per_positive, [rng], accept, fallback)


def generate_groups(
    name: str,
    groups: Sequence[PositiveGroup],
    per_positive: int,
    rngs: Sequence[np.random.Generator],
    accept: NegativeFilter,
    fallback: PositiveGroup | None = None,
) -> list[Negative]:
    """Run generator ``name`` on several groups of one language pair sharing one ``fallback`` pool.

    ``rngs[i]`` drives group ``i``; each :class:`Negative` says which group it comes from. The
    fallback pool is searched once for all groups (much faster than group by group).
    """
    if name not in _FUNCTIONS:
        raise ValueError(f"negatives: unknown generator {name!r}; allowed: {', '.join(GENERATORS)}")
    if len(rngs) != len(groups):
        raise ValueError(f"generate_groups: {len(groups)} groups but {len(rngs)} random generators")
    if per_positive <= 0 or not groups:
        return []
    return _FUNCTIONS[name](groups, per_positive, rngs, accept, fallback)


def _side(group: PositiveGroup, side: str) -> tuple[UrlPool, dict[str, int], str]:
    if side == "src":
        return group.src, group.src_origin, group.src_lang
    return group.trg, group.trg_origin, group.trg_lang


@dataclass(frozen=True, slots=True)
class _Query:
    """One starting point: ``url`` looks for partners in ``pool`` (never those in ``exclude``)."""

    group: int
    origin: int
    url: str
    src_lang: str
    trg_lang: str
    pool: UrlPool
    fallback_pool: UrlPool | None
    exclude: tuple[str, ...]


def _bi_queries(groups: Sequence[PositiveGroup], fallback: PositiveGroup | None) -> list[_Query]:
    """``(u_A, ?)`` for every positive ``(u_A, v_B)``: partners among ``B`` URLs, never ``v_B``."""
    fb = fallback.trg if fallback is not None else None
    return [
        _Query(gi, i, u, g.src_lang, g.trg_lang, g.trg, fb, (v,))
        for gi, g in enumerate(groups)
        for i, (u, v) in enumerate(g.pairs)
    ]


def _mono_queries(groups: Sequence[PositiveGroup], fallback: PositiveGroup | None) -> list[_Query]:
    """``(x, ?)`` for every distinct URL ``x`` of each side: partners among URLs of its language."""
    out: list[_Query] = []
    for gi, g in enumerate(groups):
        for side in ("src", "trg"):
            pool, origin, lang = _side(g, side)
            fb = _side(fallback, side)[0] if fallback is not None else None
            out += [_Query(gi, origin[u], u, lang, lang, pool, fb, (u,)) for u in pool.urls]
    return out


# --- random match -----------------------------------------------------------------------------


def _random_order(n: int, wanted: int, rng: np.random.Generator) -> list[int]:
    """Candidate positions in random order: all of them for a small pool, a random sample otherwise."""
    draws = wanted * _DRAWS_PER_WANTED + 4
    if n <= draws:
        return [int(i) for i in rng.permutation(n)]
    return [int(i) for i in rng.choice(n, size=draws, replace=False)]


def _take_random(
    src: str,
    pool: UrlPool,
    wanted: int,
    rng: np.random.Generator,
    accept: NegativeFilter,
    kind: str,
    exclude: Collection[str] = (),
) -> list[str]:
    """Up to ``wanted`` admitted random candidates of ``pool`` for ``src`` (never ``src`` or ``exclude``)."""
    got: list[str] = []
    for i in _random_order(len(pool), wanted, rng):
        cand = pool.urls[i]
        if cand != src and cand not in exclude and accept.admit(src, cand, kind):
            got.append(cand)
            if len(got) == wanted:
                break
    return got


def _random(kind: str, queries: Sequence[_Query], per_positive: int, rngs: Sequence[np.random.Generator],
            accept: NegativeFilter) -> list[Negative]:
    out: list[Negative] = []
    own: dict[int, frozenset[str]] = {}
    for q in queries:
        rng = rngs[q.group]
        got = _take_random(q.url, q.pool, per_positive, rng, accept, kind, q.exclude)
        out += [Negative(q.url, c, q.src_lang, q.trg_lang, kind, q.origin, q.group) for c in got]
        if len(got) < per_positive and q.fallback_pool is not None:
            skip = own.setdefault(id(q.pool), frozenset(q.pool.urls))
            more = _take_random(q.url, q.fallback_pool, per_positive - len(got), rng, accept, kind, skip)
            out += [Negative(q.url, c, q.src_lang, q.trg_lang, kind, q.origin, q.group, True) for c in more]
    return out


def rand_bi(
    groups: Sequence[PositiveGroup], per_positive: int, rngs: Sequence[np.random.Generator],
    accept: NegativeFilter, fallback: PositiveGroup | None = None,
) -> list[Negative]:
    """Random match, bilingual: ``(u_A, v_B')`` with ``v_B'`` drawn from the group's ``B`` URLs."""
    return _random("rand_bi", _bi_queries(groups, fallback), per_positive, rngs, accept)


def rand_mono(
    groups: Sequence[PositiveGroup], per_positive: int, rngs: Sequence[np.random.Generator],
    accept: NegativeFilter, fallback: PositiveGroup | None = None,
) -> list[Negative]:
    """Random match, monolingual: ``(u_A, u_A')`` and ``(v_B, v_B')`` from the same-language URLs."""
    return _random("rand_mono", _mono_queries(groups, fallback), per_positive, rngs, accept)


# --- max Jaccard ------------------------------------------------------------------------------


def _take_ranked(
    queries: Sequence[str],
    pool: UrlPool,
    wanted: Sequence[int],
    exclude: Sequence[Collection[str]],
    accept: NegativeFilter,
    kind: str,
) -> list[list[str]]:
    """For each query, up to ``wanted[i]`` admitted candidates of ``pool``, most similar first."""
    todo = [i for i, w in enumerate(wanted) if w > 0]
    result: list[list[str]] = [[] for _ in queries]
    if not todo or not len(pool):
        return result
    excl = [[pool.position[x] for x in exclude[i] if x in pool.position] for i in todo]
    ranked = pool.index.most_similar([queries[i] for i in todo], max(wanted), excl)
    for i, cands in zip(todo, ranked):
        for c in cands:
            cand = pool.urls[c]
            if accept.admit(queries[i], cand, kind):
                result[i].append(cand)
                if len(result[i]) == wanted[i]:
                    break
    return result


def _jaccard(kind: str, queries: Sequence[_Query], per_positive: int, accept: NegativeFilter) -> list[Negative]:
    out: list[Negative] = []
    short: list[tuple[_Query, int]] = []
    by_pool: dict[int, list[_Query]] = {}
    for q in queries:
        by_pool.setdefault(id(q.pool), []).append(q)
    for qs in by_pool.values():
        found = _take_ranked([q.url for q in qs], qs[0].pool, [per_positive] * len(qs), [q.exclude for q in qs],
                             accept, kind)
        for q, cands in zip(qs, found):
            out += [Negative(q.url, c, q.src_lang, q.trg_lang, kind, q.origin, q.group) for c in cands]
            if len(cands) < per_positive and q.fallback_pool is not None:
                short.append((q, per_positive - len(cands)))
    by_fallback: dict[int, list[tuple[_Query, int]]] = {}
    for q, n in short:
        by_fallback.setdefault(id(q.fallback_pool), []).append((q, n))
    for items in by_fallback.values():
        fb_pool = items[0][0].fallback_pool
        assert fb_pool is not None
        # The group's own URLs were ranked already: the fallback adds other domains' URLs only.
        found = _take_ranked([q.url for q, _ in items], fb_pool, [n for _, n in items],
                             [q.pool.urls for q, _ in items], accept, kind)
        for (q, _), cands in zip(items, found):
            out += [Negative(q.url, c, q.src_lang, q.trg_lang, kind, q.origin, q.group, True) for c in cands]
    return out


def jaccard_bi(
    groups: Sequence[PositiveGroup], per_positive: int, rngs: Sequence[np.random.Generator],
    accept: NegativeFilter, fallback: PositiveGroup | None = None,
) -> list[Negative]:
    """Max Jaccard, bilingual: ``(u_A, v_B')`` with ``v_B'`` the ``B`` URL most similar to ``u_A``."""
    del rngs  # deterministic
    return _jaccard("jaccard_bi", _bi_queries(groups, fallback), per_positive, accept)


def jaccard_mono(
    groups: Sequence[PositiveGroup], per_positive: int, rngs: Sequence[np.random.Generator],
    accept: NegativeFilter, fallback: PositiveGroup | None = None,
) -> list[Negative]:
    """Max Jaccard, monolingual: each URL with the most similar other URL of its own language."""
    del rngs  # deterministic
    return _jaccard("jaccard_mono", _mono_queries(groups, fallback), per_positive, accept)


# --- remove random tokens ---------------------------------------------------------------------


def remove_random_tokens(url: str, rng: np.random.Generator, fraction: float = 0.5) -> str:
    """``url`` with random tokens of its path/query/fragment removed (scheme, host, port kept).

    The count follows the authors: ``round(N(fraction * L, fraction * L / 3))`` clipped to
    ``[1, L]``; repeated ``/`` left behind are collapsed. A URL without a path comes back unchanged.
    """
    fixed, resource = split_resource(url)
    tokens = raw_tokens(resource)
    n = len(tokens)
    if n == 0:
        return url
    k = int(min(max(round(rng.normal(n * fraction, n * fraction / 3.0)), 1), n))
    drop = set(rng.choice(n, size=k, replace=False).tolist())
    rest = "".join([t for i, t in enumerate(tokens) if i not in drop])
    while "//" in rest:
        rest = rest.replace("//", "/")
    if fixed.endswith("/"):
        rest = rest.lstrip("/")
    return fixed + rest


def _attempts(per_positive: int) -> int:
    return 2 * per_positive + 2


def remove_bi(
    groups: Sequence[PositiveGroup], per_positive: int, rngs: Sequence[np.random.Generator],
    accept: NegativeFilter, fallback: PositiveGroup | None = None,
) -> list[Negative]:
    """Remove random tokens from both URLs of each positive: ``(u_A', v_B')``."""
    del fallback  # needs no pool
    out: list[Negative] = []
    for gi, (group, rng) in enumerate(zip(groups, rngs)):
        for i, (u, v) in enumerate(group.pairs):
            got = 0
            for _ in range(_attempts(per_positive)):
                u2, v2 = remove_random_tokens(u, rng), remove_random_tokens(v, rng)
                if (u2, v2) == (u, v):
                    break  # neither URL has a path: nothing can be removed
                if accept.admit(u2, v2, "remove_bi"):
                    out.append(Negative(u2, v2, group.src_lang, group.trg_lang, "remove_bi", i, gi))
                    got += 1
                    if got == per_positive:
                        break
    return out


def remove_mono(
    groups: Sequence[PositiveGroup], per_positive: int, rngs: Sequence[np.random.Generator],
    accept: NegativeFilter, fallback: PositiveGroup | None = None,
) -> list[Negative]:
    """Remove random tokens from both copies of ``(u_A, u_A)`` (and ``(v_B, v_B)``) independently."""
    del fallback  # needs no pool
    out: list[Negative] = []
    for gi, (group, rng) in enumerate(zip(groups, rngs)):
        for side in ("src", "trg"):
            pool, origin, lang = _side(group, side)
            for u in pool.urls:
                if not raw_tokens(split_resource(u)[1]):
                    continue
                got = 0
                for _ in range(_attempts(per_positive)):
                    a, b = remove_random_tokens(u, rng), remove_random_tokens(u, rng)
                    if accept.admit(a, b, "remove_mono"):
                        out.append(Negative(a, b, lang, lang, "remove_mono", origin[u], gi))
                        got += 1
                        if got == per_positive:
                            break
    return out


_FUNCTIONS: Mapping[str, GeneratorFn] = MappingProxyType(
    {
        "rand_bi": rand_bi,
        "rand_mono": rand_mono,
        "jaccard_bi": jaccard_bi,
        "jaccard_mono": jaccard_mono,
        "remove_bi": remove_bi,
        "remove_mono": remove_mono,
    }
)
