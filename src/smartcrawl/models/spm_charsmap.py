"""Build a SentencePiece ``precompiled_charsmap`` from a ``{source: replacement}`` table.

The Hugging Face ``tokenizers.normalizers.Precompiled`` normaliser (and SentencePiece itself) read
the charsmap as ``u32 trie_bytes`` + a darts-clone double-array trie over the UTF-8 bytes of the
sources + a pool of NUL-terminated UTF-8 replacements; a trie key's value is the byte offset of its
replacement in the pool.

Double-array layout (one little-endian u32 per unit): a node reached with byte ``c`` lives at
``parent_base ^ c`` and stores ``c`` in bits 0-7, a has-leaf flag in bit 8 and the XOR distance to
its own children's base in bits 10-30 (bit 9 set means "shift that distance left by 8"). The value
of a key ending at a node sits at that node's base (the label-0 slot) as ``value | 1 << 31``. The
root is unit 0. Different nodes never share a base, so no lookup can land on a foreign child.
"""

from __future__ import annotations

import struct
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field

_HAS_LEAF = 1 << 8
_EXTENSION = 1 << 9
_IS_VALUE = 1 << 31
_MAX_OFFSET = 1 << 29


@dataclass
class _Node:
    """A node of the plain (pointer) trie that is laid out into the double array."""

    children: dict[int, _Node] = field(default_factory=dict)
    value: int | None = None


def _encode_offset(offset: int) -> int:
    """The offset bits of a unit (bits 9-30)."""
    if offset < (1 << 21):
        return offset << 10
    if offset % 256 == 0 and offset < _MAX_OFFSET:
        return ((offset >> 8) << 10) | _EXTENSION
    raise ValueError(f"double-array offset {offset} cannot be encoded")


class _DoubleArray:
    """Greedy first-fit placement of a trie into darts-clone units."""

    def __init__(self) -> None:
        self.units: list[int] = [0]
        self.used: list[bool] = [True]  # unit 0 is the root
        self.bases: set[int] = set()
        self.first_free = 1

    def _grow(self, size: int) -> None:
        while len(self.units) < size:
            self.units.append(0)
            self.used.append(False)

    def _fits(self, base: int, labels: list[int]) -> bool:
        if base in self.bases:
            return False
        for label in labels:
            pos = base ^ label
            if pos < len(self.used) and self.used[pos]:
                return False
        return True

    def find_base(self, labels: list[int]) -> int:
        """The lowest base whose child slots ``base ^ label`` are all free."""
        pos = self.first_free
        while True:
            if pos >= len(self.used) or not self.used[pos]:
                base = pos ^ labels[0]
                if self._fits(base, labels):
                    return base
            pos += 1

    def place(self, node_pos: int, labels: list[int]) -> int:
        """Reserve the child slots of the node at ``node_pos``; returns the base."""
        base = self.find_base(labels)
        self.bases.add(base)
        self._grow(max(base ^ label for label in labels) + 1)
        for label in labels:
            self.used[base ^ label] = True
        while self.first_free < len(self.used) and self.used[self.first_free]:
            self.first_free += 1
        self.units[node_pos] |= _encode_offset(node_pos ^ base)
        return base


def _build_trie(keys: Mapping[bytes, int]) -> _Node:
    root = _Node()
    for key, value in keys.items():
        if not key or 0 in key:
            raise ValueError(f"invalid charsmap key {key!r}")
        node = root
        for byte in key:
            node = node.children.setdefault(byte, _Node())
        node.value = value
    return root


def build_double_array(keys: Mapping[bytes, int]) -> list[int]:
    """darts-clone units for ``keys`` (non-empty byte strings without NUL) mapping to 31-bit values."""
    root = _build_trie(keys)
    array = _DoubleArray()
    queue: deque[tuple[int, _Node]] = deque([(0, root)])
    while queue:
        node_pos, node = queue.popleft()
        labels = ([0] if node.value is not None else []) + sorted(node.children)
        if not labels:
            continue
        base = array.place(node_pos, labels)
        if node.value is not None:
            if node.value >= _IS_VALUE:
                raise ValueError("charsmap value does not fit in 31 bits")
            array.units[node_pos] |= _HAS_LEAF
            array.units[base] = node.value | _IS_VALUE
        for label, child in sorted(node.children.items()):
            array.units[base ^ label] = label
            queue.append((base ^ label, child))
    return array.units


def build_precompiled_charsmap(mapping: Mapping[str, str]) -> bytes:
    """The ``precompiled_charsmap`` bytes that rewrite each source string to its replacement.

    Sources are matched on their UTF-8 bytes (shortest matching prefix wins in the Hugging Face
    reader); an empty replacement deletes the source.
    """
    pool = bytearray()
    pool_offsets: dict[str, int] = {}
    keys: dict[bytes, int] = {}
    for source, replacement in sorted(mapping.items()):
        if replacement not in pool_offsets:
            pool_offsets[replacement] = len(pool)
            pool += replacement.encode("utf-8") + b"\0"
        keys[source.encode("utf-8")] = pool_offsets[replacement]
    units = build_double_array(keys)
    trie = struct.pack(f"<{len(units)}I", *units)
    return struct.pack("<I", len(trie)) + trie + bytes(pool)
