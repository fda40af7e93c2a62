"""Length-bucketed batches: URLs of similar length share a batch, so little compute goes to padding.

A random batch of URLs is padded to its longest member (about 3x the mean on the real data);
sorting each chunk of ``bucket_batches`` batches by length before cutting it into batches removes
most of that padding while the order of batches stays random.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
from torch.utils.data import Sampler


class LengthBucketBatchSampler(Sampler[list[int]]):
    """Yields index batches: shuffle, sort each chunk by length, cut into batches, shuffle the batches.

    Deterministic for a given ``seed``; a new seed per epoch gives a new order.
    """

    def __init__(self, lengths: Sequence[int], batch_size: int, seed: int, bucket_batches: int = 50) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if bucket_batches < 1:
            raise ValueError(f"bucket_batches must be >= 1, got {bucket_batches}")
        self.lengths = np.asarray(lengths)
        self.batch_size = batch_size
        self.seed = seed
        self.bucket_batches = bucket_batches

    def __len__(self) -> int:
        return (len(self.lengths) + self.batch_size - 1) // self.batch_size

    def __iter__(self) -> Iterator[list[int]]:
        rng = np.random.default_rng(self.seed)
        order = rng.permutation(len(self.lengths))
        chunk = self.batch_size * self.bucket_batches
        batches: list[np.ndarray] = []
        for start in range(0, len(order), chunk):
            part = order[start:start + chunk]
            part = part[np.argsort(self.lengths[part], kind="stable")]
            batches.extend(part[i:i + self.batch_size] for i in range(0, len(part), self.batch_size))
        for b in rng.permutation(len(batches)):
            yield batches[b].tolist()


def class_weights(labels: Sequence[int], num_classes: int, mode: str) -> list[float] | None:
    """Cross-entropy class weights from training label counts.

    ``none``: no weights. ``balanced``: inverse frequency. ``sqrt``: inverse square root of the
    frequency (milder). Weights are scaled so that their mean over the training examples is 1;
    classes absent from training get weight 0.
    """
    if mode == "none":
        return None
    if mode not in ("balanced", "sqrt"):
        raise ValueError(f"train.class_weights: unknown mode {mode!r}; allowed: none, balanced, sqrt")
    counts = np.bincount(np.asarray(labels, dtype=np.int64), minlength=num_classes).astype(float)
    present = counts > 0
    w = np.zeros(num_classes)
    w[present] = 1.0 / (counts[present] if mode == "balanced" else np.sqrt(counts[present]))
    w *= counts.sum() / float((w * counts).sum())
    return [float(x) for x in w]
