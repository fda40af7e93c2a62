"""Evaluation: classification metrics shared by every model and baseline."""

from smartcrawl.eval.metrics import classification_metrics, summary_line, write_metrics

__all__ = ["classification_metrics", "summary_line", "write_metrics"]
