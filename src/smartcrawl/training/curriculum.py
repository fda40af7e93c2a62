"""The paper's fold-growing curriculum: start with ``start`` training examples, add ``step`` per epoch."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Curriculum:
    """How many training examples epoch ``e`` (0-based) sees.

    ``start=None`` means every epoch sees the whole training set (no curriculum). The paper used
    ``start=1_000_000, step=1_000_000``.
    """

    start: int | None = None
    step: int = 0

    def __post_init__(self) -> None:
        if self.start is not None and self.start <= 0:
            raise ValueError(f"curriculum.start must be a positive integer or null, got {self.start}")
        if self.step < 0:
            raise ValueError(f"curriculum.step must be >= 0, got {self.step}")

    def size(self, epoch: int, n_train: int) -> int:
        """Number of examples (a prefix of the shuffled training set) used in ``epoch``."""
        if self.start is None:
            return n_train
        return min(n_train, self.start + epoch * self.step)

    @property
    def grows(self) -> bool:
        """Whether the training set changes between epochs (data loaders must then be rebuilt)."""
        return self.start is not None and self.step > 0
