"""Length-bucketed batches, class weights and the mean-pooling classifier."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import AutoModelForSequenceClassification, BertConfig, BertForSequenceClassification

from smartcrawl.models.pooling import BertMeanPoolForSequenceClassification, to_mean_pooling
from smartcrawl.training.batching import LengthBucketBatchSampler, class_weights


def test_bucketed_batches_cover_every_index_once_and_pad_less() -> None:
    rng = np.random.default_rng(0)
    lengths = rng.integers(5, 200, size=1000).tolist()
    sampler = LengthBucketBatchSampler(lengths, batch_size=32, seed=3, bucket_batches=10)
    batches = list(sampler)
    assert len(batches) == len(sampler) == 32
    flat = sorted(i for b in batches for i in b)
    assert flat == list(range(1000))
    padded = sum(len(b) * max(lengths[i] for i in b) for b in batches)
    plain = [list(range(i, min(i + 32, 1000))) for i in range(0, 1000, 32)]
    padded_plain = sum(len(b) * max(lengths[i] for i in b) for b in plain)
    assert padded < 0.7 * padded_plain
    assert [b for b in LengthBucketBatchSampler(lengths, 32, seed=3, bucket_batches=10)] == batches
    assert [b for b in LengthBucketBatchSampler(lengths, 32, seed=4, bucket_batches=10)] != batches


def test_class_weights_modes() -> None:
    labels = [0] * 90 + [1] * 10
    assert class_weights(labels, 3, "none") is None
    bal = class_weights(labels, 3, "balanced")
    assert bal is not None and bal[1] == pytest.approx(9 * bal[0]) and bal[2] == 0.0
    assert (90 * bal[0] + 10 * bal[1]) / 100 == pytest.approx(1.0)
    sq = class_weights(labels, 3, "sqrt")
    assert sq is not None and sq[1] == pytest.approx(3 * sq[0])
    with pytest.raises(ValueError, match="train.class_weights.*allowed: none, balanced, sqrt"):
        class_weights(labels, 3, "inverse")


def _bert() -> BertForSequenceClassification:
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=60, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=32, num_labels=3)
    return BertForSequenceClassification(cfg).eval()


def test_mean_pooling_keeps_encoder_ignores_padding_and_reloads(tmp_path: Path) -> None:
    cls_model = _bert()
    model = to_mean_pooling(cls_model).eval()
    assert isinstance(model, BertMeanPoolForSequenceClassification)
    for (name, a), (_, b) in zip(cls_model.bert.encoder.named_parameters(), model.bert.encoder.named_parameters()):
        assert torch.equal(a, b), name
    ids = torch.tensor([[5, 6, 7, 8]])
    short = model(input_ids=ids, attention_mask=torch.ones_like(ids)).logits
    padded_ids = torch.tensor([[5, 6, 7, 8, 0, 0]])
    mask = torch.tensor([[1, 1, 1, 1, 0, 0]])
    assert torch.allclose(short, model(input_ids=padded_ids, attention_mask=mask).logits, atol=1e-5)
    model.save_pretrained(tmp_path)
    again = AutoModelForSequenceClassification.from_pretrained(tmp_path).eval()
    assert isinstance(again, BertMeanPoolForSequenceClassification)
    assert torch.allclose(short, again(input_ids=ids, attention_mask=torch.ones_like(ids)).logits, atol=1e-6)
    out = again(input_ids=ids, attention_mask=torch.ones_like(ids), labels=torch.tensor([2]))
    assert out.loss is not None and out.loss.item() > 0
