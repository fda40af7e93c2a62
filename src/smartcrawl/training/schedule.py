"""The paper's learning-rate schedule: linear warm-up, then inverse-square-root decay."""

from __future__ import annotations

import math

import torch


def warmup_inverse_sqrt(warmup_steps: int):  # noqa: ANN201 - returns a LambdaLR factor function
    """Factor of the base learning rate at optimiser step ``s``.

    Rises linearly to 1 over ``warmup_steps`` (the paper: 10 % of the first epoch's steps), then
    decays as ``sqrt(warmup_steps / s)``.
    """
    warmup = max(1, int(warmup_steps))

    def factor(step: int) -> float:
        s = step + 1
        if s <= warmup:
            return s / warmup
        return math.sqrt(warmup / s)

    return factor


def build_optimizer(
    params: list[torch.nn.Parameter] | list[dict],
    lr: float = 1e-5,
    betas: tuple[float, float] = (0.9, 0.999),
    eps: float = 1e-8,
    weight_decay: float = 0.01,
) -> torch.optim.AdamW:
    """AdamW with the paper's defaults (lr 1e-5, betas 0.9/0.999, eps 1e-8, weight decay 0.01)."""
    return torch.optim.AdamW(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
