"""URL tokens and the max-Jaccard search behind the ``jaccard_*`` negative generators.

Tokens follow the paper authors' code (transducens/parallel-urls-classifier): only the part of the
URL after the authority (path, query, fragment) is tokenised, percent-decoded, into runs of
letters, runs of digits, runs of ``_``, runs of other punctuation and runs of whitespace. The
similarity of two URLs is the Jaccard index of their token *sets*; ties are broken by the Jaccard
index of the *character* sets of the whole URLs (as the authors do), then by candidate position.

The search is exact for the token Jaccard and never scores all ``n x n`` URL pairs: see
:class:`SimilarityIndex` (an inverted index for rare tokens, frequent-token profiles for the rest),
so a domain of 20,000 URLs is searched in seconds.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from urllib.parse import unquote

import numpy as np
from scipy import sparse

_SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
# Decoded text: letters | digits | underscores | other punctuation | whitespace (covers every char).
_TOKEN_RE = re.compile(r"[^\W\d_]+|\d+|_+|[^\w\s]+|\s+")
# Raw (percent-encoded) text: a percent escape sticks to the letters around it, so removing a
# token never leaves half of a multi-byte escape behind.
_RAW_TOKEN_RE = re.compile(r"(?:[^\W\d_]|%[0-9A-Fa-f]{2})+|\d+|_+|[^\w\s%]+|%|\s+")

# Batches hold at most this many query x profile scores (float64: 32 MB).
_BATCH_CELLS = 4_000_000
# Tokens in at most this many URLs (or n/64 for bigger pools) go to the inverted index.
_RARE_DF = 32
# Pools up to this size are searched by plain set operations (no matrices).
_BRUTE_FORCE_MAX = 200
# Extra ranked candidates returned beyond ``k``, so callers can skip some (positives, duplicates).
_SLACK = 8


def split_resource(url: str) -> tuple[str, str]:
    """Split a URL into the part no generator may touch and the rest.

    The fixed part is the scheme, the authority (user info, host, port) and the delimiter that
    ends the authority (``/``, ``?`` or ``#``): ``http://a.com:8080/en/x?y=1`` ->
    ``("http://a.com:8080/", "en/x?y=1")``. A URL without a path gives ``(url, "")``.
    """
    m = _SCHEME_RE.match(url)
    start = m.end() if m else 0
    for i in range(start, len(url)):
        if url[i] in "/?#":
            return url[: i + 1], url[i + 1 :]
    return url, ""


def raw_tokens(resource: str) -> list[str]:
    """Tokens of an un-decoded resource string; ``"".join(raw_tokens(r)) == r`` always holds."""
    return _RAW_TOKEN_RE.findall(resource)


def jaccard_tokens(url: str) -> frozenset[str]:
    """The token set of a URL used for Jaccard similarity (resource part, percent-decoded)."""
    return frozenset(_TOKEN_RE.findall(unquote(split_resource(url)[1], errors="replace")))


def jaccard(a: Collection[str], b: Collection[str]) -> float:
    """Jaccard index of two sets (0 when both are empty)."""
    sa, sb = set(a), set(b)
    union = len(sa | sb)
    return len(sa & sb) / union if union else 0.0


class SimilarityIndex:
    """Exact token-Jaccard nearest-neighbour search over a fixed list of candidate URLs.

    Tokens are split by document frequency. A query meets the candidates that share one of its
    *rare* tokens through an inverted index (a sparse product). Every other candidate shares
    only *frequent* tokens with it, so its score depends only on its frequent-token signature and
    its token count: candidates are grouped into such *profiles* (few on a real site), scored per
    profile, and taken best profile first. The result is the exact token-Jaccard ranking; equal
    scores are ordered by character-set Jaccard of the whole URLs, then by position.
    """

    def __init__(self, urls: Sequence[str]) -> None:
        self.urls: tuple[str, ...] = tuple(urls)
        token_sets = [jaccard_tokens(u) for u in self.urls]
        self._chars = [frozenset(u) for u in self.urls]
        # Small pools (most web domains) are searched by plain set operations.
        self._token_sets: list[frozenset[str]] | None = token_sets if len(token_sets) <= _BRUTE_FORCE_MAX else None
        if self._token_sets is not None:
            return
        vocab: dict[str, int] = {}
        indices: list[int] = []
        indptr = [0]
        for tokens in token_sets:
            indices.extend(vocab.setdefault(t, len(vocab)) for t in sorted(tokens))
            indptr.append(len(indices))
        n, v = len(self.urls), len(vocab)
        cols = np.asarray(indices, dtype=np.int64)
        matrix = sparse.csr_matrix(
            (np.ones(len(indices), dtype=np.float32), cols, np.asarray(indptr, dtype=np.int64)), shape=(n, v)
        )
        df = np.bincount(cols, minlength=v)
        frequent = df > max(_RARE_DF, n // 64)
        dense_cols, rare_cols = np.flatnonzero(frequent), np.flatnonzero(~frequent)
        self._vocab = vocab
        # Column of each token in the frequent (>= 0) or the rare (< 0, as -1 - j) block.
        self._where = np.empty(v, dtype=np.int64)
        self._where[dense_cols] = np.arange(len(dense_cols))
        self._where[rare_cols] = -1 - np.arange(len(rare_cols))
        self._n_rare = len(rare_cols)
        self._rare_t = matrix[:, rare_cols].T.tocsr()  # rare tokens x candidates
        self._sizes = np.diff(np.asarray(indptr, dtype=np.int64)).astype(np.float64)
        # Profiles: candidates with the same frequent tokens and the same token count.
        freq = matrix[:, dense_cols].tocsr()
        keys: dict[tuple[int, tuple[int, ...]], int] = {}
        profile_of = np.empty(n, dtype=np.int64)
        members: list[list[int]] = []
        for c in range(n):
            sig = tuple(freq.indices[freq.indptr[c] : freq.indptr[c + 1]].tolist())
            p = keys.setdefault((int(self._sizes[c]), sig), len(keys))
            if p == len(members):
                members.append([])
            members[p].append(c)
            profile_of[c] = p
        self._profile_of = profile_of
        self._members = [np.asarray(m, dtype=np.int64) for m in members]
        self._profiles = np.zeros((len(keys), len(dense_cols)), dtype=np.float32)
        self._profile_sizes = np.zeros(len(keys), dtype=np.float64)
        for (size, sig), p in keys.items():
            self._profiles[p, list(sig)] = 1.0
            self._profile_sizes[p] = size

    def __len__(self) -> int:
        return len(self.urls)

    def most_similar(
        self, queries: Sequence[str], k: int, exclude: Sequence[Collection[int]] | None = None
    ) -> list[list[int]]:
        """For each query URL, candidate positions ranked by similarity, best first.

        Returns up to ``k`` plus a few spare candidates (so a caller can skip some), never a
        position listed in the query's ``exclude``.
        """
        n = len(self.urls)
        if n == 0 or k <= 0 or not queries:
            return [[] for _ in queries]
        excl: Sequence[Collection[int]] = exclude if exclude is not None else [()] * len(queries)
        m = k + _SLACK
        if self._token_sets is not None:
            return [self._rank_small(q, m, set(e)) for q, e in zip(queries, excl)]
        batch = max(1, _BATCH_CELLS // max(1, len(self._members)))
        out: list[list[int]] = []
        for start in range(0, len(queries), batch):
            out.extend(self._rank_batch(queries[start : start + batch], m, excl[start : start + batch]))
        return out

    def _rank_small(self, query: str, m: int, skip: set[int]) -> list[int]:
        assert self._token_sets is not None
        q = jaccard_tokens(query)
        scored = {}
        for c, tokens in enumerate(self._token_sets):
            if c not in skip:
                union = len(q | tokens)
                scored[c] = len(q & tokens) / union if union else 0.0
        return self._order(query, scored, m)

    def _encode(self, queries: Sequence[str]) -> tuple[sparse.csr_matrix, np.ndarray, np.ndarray]:
        rows: list[int] = []
        cols: list[int] = []
        dense = np.zeros((len(queries), self._profiles.shape[1]), dtype=np.float32)
        sizes = np.zeros(len(queries), dtype=np.float64)
        for r, q in enumerate(queries):
            tokens = jaccard_tokens(q)
            sizes[r] = len(tokens)
            for t in sorted(tokens):
                j = self._vocab.get(t)
                if j is None:
                    continue
                w = int(self._where[j])
                if w >= 0:
                    dense[r, w] = 1.0
                else:
                    rows.append(r)
                    cols.append(-1 - w)
        rare = sparse.csr_matrix(
            (np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(len(queries), self._n_rare)
        )
        return rare, dense, sizes

    def _rank_batch(self, queries: Sequence[str], m: int, excl: Sequence[Collection[int]]) -> list[list[int]]:
        rare, dense, q_sizes = self._encode(queries)
        shared = (rare @ self._rare_t).tocsr()  # rare tokens in common, sparse
        p_inter = (dense @ self._profiles.T).astype(np.float64) if self._profiles.shape[1] else (
            np.zeros((len(queries), len(self._members)))
        )
        p_union = q_sizes[:, None] + self._profile_sizes[None, :] - p_inter
        p_score = np.divide(p_inter, p_union, out=np.zeros_like(p_inter), where=p_union > 0)
        ranked: list[list[int]] = []
        for r, q in enumerate(queries):
            skip = set(excl[r])
            # Candidates sharing a rare token: exact intersection = rare part + frequent part.
            lo, hi = shared.indptr[r], shared.indptr[r + 1]
            r_cols = shared.indices[lo:hi].astype(np.int64)
            inter = shared.data[lo:hi].astype(np.float64) + p_inter[r, self._profile_of[r_cols]]
            union = q_sizes[r] + self._sizes[r_cols] - inter
            r_score = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
            scored = {int(c): float(s) for c, s in zip(r_cols, r_score) if int(c) not in skip}
            seen = set(r_cols.tolist()) | skip
            # Other candidates: best profiles first, until m of them.
            self._take_profiles(p_score[r], m, seen, scored)
            ranked.append(self._order(q, scored, m))
        return ranked

    def _take_profiles(self, p_score: np.ndarray, m: int, seen: set[int], scored: dict[int, float]) -> None:
        """Add to ``scored`` the ``m`` best candidates not in ``seen`` (profile score order)."""
        n_prof = len(p_score)
        head = min(n_prof, m + 16)
        # Usually the best few profiles hold m candidates: sort only those first.
        top = np.argpartition(-p_score, head - 1)[:head] if head < n_prof else np.arange(n_prof)
        taken, done = 0, set()
        for full in (False, True):
            if full and head == n_prof:
                return
            # The full order is only computed when the head was not enough.
            order = np.lexsort((np.arange(n_prof), -p_score)) if full else top[np.lexsort((top, -p_score[top]))]
            for p in order.tolist():
                if p in done:
                    continue
                done.add(p)
                for c in self._members[p].tolist():
                    if c not in seen:
                        scored[c] = float(p_score[p])
                        taken += 1
                        if taken >= m:
                            return

    def _order(self, query: str, scored: dict[int, float], m: int) -> list[int]:
        """The ``m`` best of ``scored`` (token Jaccard), ties ordered by character-set Jaccard."""
        items = sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))
        if len(items) > m:
            cut = items[m - 1][1]
            # Every candidate tied with the m-th competes in the tie-break (at most 4m of them).
            items = [kv for kv in items if kv[1] >= cut][: 4 * m + 4]
        q_chars = frozenset(query)
        keyed = []
        for j, (c, v) in enumerate(items):
            tied = (j > 0 and items[j - 1][1] == v) or (j + 1 < len(items) and items[j + 1][1] == v)
            keyed.append((-v, -_set_jaccard(q_chars, self._chars[c]) if tied else 0.0, c))
        keyed.sort()
        return [c for _, _, c in keyed[:m]]


def _set_jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 0.0
