"""Domain-disjoint train/dev/test assignment.

A web domain goes to exactly one split, decided by a salted stable hash of the domain, so the
assignment is streaming (no global pass), reproducible across runs and machines, and the same for
both tasks (a domain in the language-ID test split is in the parallel test split too).
"""

from __future__ import annotations

import functools
import hashlib
import zlib
from collections.abc import Mapping

SPLITS: tuple[str, ...] = ("train", "dev", "test")


class SplitFractions:
    """Validated split fractions, e.g. ``{"train": 0.8, "dev": 0.1, "test": 0.1}``."""

    def __init__(self, fractions: Mapping[str, float], salt: str = "smartcrawl") -> None:
        unknown = set(fractions) - set(SPLITS)
        if unknown:
            raise ValueError(f"split fractions: unknown split(s) {sorted(unknown)}; allowed: {list(SPLITS)}")
        values = [float(fractions.get(s, 0.0)) for s in SPLITS]
        if any(v < 0 for v in values) or abs(sum(values) - 1.0) > 1e-6:
            raise ValueError(f"split fractions must be >= 0 and sum to 1, got {dict(zip(SPLITS, values))}")
        self.fractions = dict(zip(SPLITS, values))
        self.salt = salt
        # Cumulative thresholds over a 2**32 hash space.
        acc, bounds = 0.0, []
        for v in values:
            acc += v
            bounds.append(int(round(acc * 2**32)))
        self._bounds = tuple(bounds)

    def split_of(self, domain: str) -> str:
        """The split of a web domain."""
        return _split_of(domain, self.salt, self._bounds)


@functools.lru_cache(maxsize=1 << 20)
def _split_of(domain: str, salt: str, bounds: tuple[int, ...]) -> str:
    h = int.from_bytes(hashlib.blake2b(f"{salt}\x00{domain}".encode(), digest_size=4).digest(), "big")
    for name, bound in zip(SPLITS, bounds):
        if h < bound:
            return name
    return SPLITS[-1]


def stable_hash32(text: str, salt: str = "") -> int:
    """A fast 32-bit hash of ``text`` that is the same in every process (CRC-32 seeded by ``salt``)."""
    return zlib.crc32(text.encode("utf-8", "surrogatepass"), _salt_crc(salt))


@functools.lru_cache(maxsize=64)
def _salt_crc(salt: str) -> int:
    return zlib.crc32(salt.encode())


def stable_hash64(text: str, salt: str = "") -> int:
    """A 64-bit hash of ``text`` that is the same in every process (unlike ``hash``)."""
    return int.from_bytes(hashlib.blake2b(f"{salt}\x00{text}".encode(), digest_size=8).digest(), "big")
