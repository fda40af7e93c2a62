"""The paper's experiments as command plans (``experiments/*.py`` at the repository root call :func:`main`).

Each experiment is a list of steps (data preparation, baselines, training, evaluation, crawling) in a
``small`` setting (minutes on a 2-core CPU, results under ``results/small/``) or the paper's ``full``
setting (for GPUs, results under ``results/``). See :mod:`smartcrawl.experiments.plan`.
"""

from smartcrawl.experiments.runner import main

__all__ = ["main"]
