"""A BERT sequence classifier over the mean of the token states (e5's own pooling).

multilingual-e5 was trained with mean pooling, so its ``[CLS]`` state carries little at first and
a classifier on it (Hugging Face's ``BertForSequenceClassification``, with a fresh pooler) learns
slowly; the mean of the non-padding states gives the head a useful input from the first step.

The class is registered with the ``Auto*`` factories on import, so a saved model directory loads
with ``AutoModelForSequenceClassification.from_pretrained`` once this module has been imported.
"""

from __future__ import annotations

import torch
from torch import nn
from transformers import (
    AutoConfig,
    AutoModelForSequenceClassification,
    BertConfig,
    BertModel,
    BertPreTrainedModel,
    PreTrainedModel,
)
from transformers.modeling_outputs import SequenceClassifierOutput

POOLINGS: tuple[str, ...] = ("cls", "mean")


class MeanPoolBertConfig(BertConfig):
    """``BertConfig`` of :class:`BertMeanPoolForSequenceClassification`."""

    model_type = "smartcrawl_bert_meanpool"


class BertMeanPoolForSequenceClassification(BertPreTrainedModel):
    """BERT encoder, masked mean over tokens, dropout, linear head; cross-entropy when given labels."""

    config_class = MeanPoolBertConfig

    def __init__(self, config: MeanPoolBertConfig) -> None:
        super().__init__(config)
        self.num_labels = config.num_labels
        self.bert = BertModel(config, add_pooling_layer=False)
        self.dropout = nn.Dropout(config.classifier_dropout or config.hidden_dropout_prob)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)
        self.post_init()

    def forward(
        self,
        input_ids: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
        **kwargs: object,
    ) -> SequenceClassifierOutput:
        """Logits of a tokenised batch (and the loss when ``labels`` are given)."""
        states = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state
        if attention_mask is None:
            pooled = states.mean(dim=1)
        else:
            mask = attention_mask.unsqueeze(-1).to(states.dtype)
            pooled = (states * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
        logits = self.classifier(self.dropout(pooled))
        loss = None if labels is None else nn.functional.cross_entropy(logits, labels)
        return SequenceClassifierOutput(loss=loss, logits=logits)


AutoConfig.register(MeanPoolBertConfig.model_type, MeanPoolBertConfig)
AutoModelForSequenceClassification.register(MeanPoolBertConfig, BertMeanPoolForSequenceClassification)


def to_mean_pooling(model: PreTrainedModel) -> BertMeanPoolForSequenceClassification:
    """The same encoder weights (and labels) under a mean-pooling head (a fresh classifier)."""
    base = getattr(model, "bert", None)
    if not isinstance(base, BertModel):
        raise TypeError(f"mean pooling needs a BERT encoder, got {type(model).__name__}")
    values = model.config.to_dict()
    for key in ("model_type", "architectures", "transformers_version"):
        values.pop(key, None)
    config = MeanPoolBertConfig(**values)
    out = BertMeanPoolForSequenceClassification(config)
    missing, unexpected = out.bert.load_state_dict(base.state_dict(), strict=False)
    if [k for k in missing if "pooler" not in k] or [k for k in unexpected if "pooler" not in k]:
        raise RuntimeError(f"encoder weights did not transfer: missing {missing}, unexpected {unexpected}")
    return out
