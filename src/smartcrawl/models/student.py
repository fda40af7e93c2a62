"""Small student classifiers for distillation: a narrow, shallow BERT that shares the teacher's tokenizer.

:func:`build_student` makes the student and initialises it from the teacher:

- same hidden size as the teacher: the teacher's embeddings and its first ``layers`` encoder layers
  are copied (DistilBERT-style layer truncation; heads and feed-forward width default to the teacher's);
- smaller hidden size: the word and position embeddings are the teacher's projected onto their
  top ``hidden`` principal components (so the 250k-piece vocabulary starts with meaningful,
  mutually consistent vectors instead of noise); the encoder layers start random.

The classification head always starts random.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import torch
from transformers import BertConfig, BertForSequenceClassification, PreTrainedModel

from smartcrawl.models.pooling import POOLINGS, BertMeanPoolForSequenceClassification, to_mean_pooling


@dataclass(frozen=True)
class StudentSpec:
    """Size of the student: ``layers`` encoder layers of width ``hidden`` (heads of 64 dims by default)."""

    layers: int = 1
    hidden: int = 128
    heads: int | None = None  # default: hidden // 64 (at least 1)
    intermediate: int | None = None  # default: 4 * hidden
    pooling: str | None = None  # cls | mean; default: the teacher's
    seed: int = 0

    def __post_init__(self) -> None:
        if self.layers < 1 or self.hidden < 1:
            raise ValueError(f"student layers and hidden must be >= 1, got {self.layers} and {self.hidden}")
        if self.pooling not in (None, *POOLINGS):
            raise ValueError(f"pooling: unknown pooling {self.pooling!r}; allowed: {', '.join(POOLINGS)}")
        if self.hidden % self.num_heads:
            raise ValueError(f"hidden={self.hidden} is not a multiple of heads={self.num_heads}")

    @property
    def num_heads(self) -> int:
        """Attention heads."""
        return self.heads or max(1, self.hidden // 64)

    @property
    def intermediate_size(self) -> int:
        """Width of the feed-forward layer."""
        return self.intermediate or 4 * self.hidden

    @property
    def name(self) -> str:
        """A short name, e.g. ``student-1l-128``."""
        return f"student-{self.layers}l-{self.hidden}"


def teacher_pooling(teacher: PreTrainedModel) -> str:
    """``mean`` for a :class:`~smartcrawl.models.pooling.BertMeanPoolForSequenceClassification`, else ``cls``."""
    return "mean" if isinstance(teacher, BertMeanPoolForSequenceClassification) else "cls"


def resolve(spec: StudentSpec, teacher: PreTrainedModel) -> StudentSpec:
    """``spec`` with unset values taken from the teacher: pooling, and heads and feed-forward width
    when the widths agree."""
    t: Any = teacher.config
    spec = replace(spec, pooling=spec.pooling or teacher_pooling(teacher))
    if spec.hidden != t.hidden_size:
        return spec
    return replace(spec, heads=spec.heads or t.num_attention_heads, intermediate=spec.intermediate or t.intermediate_size)


def student_config(spec: StudentSpec, teacher: PreTrainedModel) -> BertConfig:
    """The student's ``BertConfig``: the teacher's vocabulary, positions and labels at the student's size."""
    t: Any = teacher.config
    kwargs: dict[str, Any] = {
        "vocab_size": t.vocab_size, "hidden_size": spec.hidden, "num_hidden_layers": spec.layers,
        "num_attention_heads": spec.num_heads, "intermediate_size": spec.intermediate_size,
        "max_position_embeddings": t.max_position_embeddings, "type_vocab_size": getattr(t, "type_vocab_size", 2),
        "pad_token_id": t.pad_token_id, "bos_token_id": getattr(t, "bos_token_id", None),
        "eos_token_id": getattr(t, "eos_token_id", None), "num_labels": t.num_labels,
        "id2label": dict(t.id2label), "label2id": dict(t.label2id),
        "layer_norm_eps": getattr(t, "layer_norm_eps", 1e-12),
    }
    return BertConfig(**kwargs)


def pca_projection(weight: torch.Tensor, k: int) -> torch.Tensor:
    """The ``(d, k)`` matrix of the top ``k`` principal directions of the rows of ``weight`` (``(n, d)``)."""
    w = weight.detach().float()
    centred = w - w.mean(0, keepdim=True)
    cov = centred.T @ centred / max(1, w.shape[0] - 1)
    _, vectors = torch.linalg.eigh(cov)  # ascending eigenvalues
    return vectors[:, -k:].flip(-1)


@torch.no_grad()
def _init_from_teacher(student: PreTrainedModel, teacher: PreTrainedModel) -> str:
    """Copy or project the teacher's weights into ``student``; returns how it was initialised."""
    s_base: Any = student.base_model
    t_base: Any = teacher.base_model
    s_emb, t_emb = s_base.embeddings, t_base.embeddings
    s_hidden, t_hidden = student.config.hidden_size, teacher.config.hidden_size
    if s_hidden == t_hidden:
        s_emb.load_state_dict(t_emb.state_dict())
        t_layers, copied = t_base.encoder.layer, 0
        for i, layer in enumerate(s_base.encoder.layer):
            source = t_layers[i].state_dict() if i < len(t_layers) else None
            shapes_agree = source is not None and all(
                v.shape == source[k].shape for k, v in layer.state_dict().items() if k in source)
            if shapes_agree and source is not None:
                layer.load_state_dict(source)
                copied += 1
        return f"copied embeddings and the first {copied} layers"
    if s_hidden > t_hidden:
        return "random (student wider than teacher)"
    proj = pca_projection(t_emb.word_embeddings.weight, s_hidden)
    for name in ("word_embeddings", "position_embeddings", "token_type_embeddings"):
        src, dst = getattr(t_emb, name, None), getattr(s_emb, name, None)
        if src is not None and dst is not None and src.weight.shape[0] == dst.weight.shape[0]:
            dst.weight.copy_(src.weight.float() @ proj)
    return f"embeddings projected on the teacher's top {s_hidden} principal components; layers random"


def build_student(spec: StudentSpec, teacher: PreTrainedModel) -> tuple[PreTrainedModel, str]:
    """A seeded student classifier initialised from ``teacher`` (see the module doc) and a note on how.

    The student pools like the teacher unless ``spec.pooling`` says otherwise (mean pooling:
    :class:`~smartcrawl.models.pooling.BertMeanPoolForSequenceClassification`).
    """
    spec = resolve(spec, teacher)
    with torch.random.fork_rng():
        torch.manual_seed(spec.seed)
        student: PreTrainedModel = BertForSequenceClassification(student_config(spec, teacher))
        if spec.pooling == "mean":
            student = to_mean_pooling(student)
    how = _init_from_teacher(student, teacher)
    return student, f"{spec.pooling} pooling; {how}"
