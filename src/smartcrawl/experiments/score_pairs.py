"""Score a trained pair model on a prepared split (Appendix A's fixed test set)::

    python -m smartcrawl.experiments.score_pairs --model-dir runs/parallel/<run>/model \\
        --data data/prepared/parallel/all --split test --out results/parallel-fixed/<run> [--max-rows 2000]

Writes ``metrics.json`` (``test``: per-class and macro P/R/F1 with labels ``non-parallel`` /
``parallel``, plus ``by_pair``), ``predictions.parquet`` and ``config.yaml``.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from smartcrawl.eval.metrics import classification_metrics, summary_line, write_metrics

LABELS: list[str] = ["non-parallel", "parallel"]
log = logging.getLogger(__name__)


def load_rows(data_dir: Path, split: str, max_rows: int | None, seed: int = 1234) -> pd.DataFrame:
    """The split's rows, a seeded uniform sample of ``max_rows`` when given."""
    df = pd.read_parquet(data_dir / f"{split}.parquet")
    if max_rows is not None and len(df) > max_rows:
        df = df.sample(n=max_rows, random_state=seed).sort_index()
    return df.reset_index(drop=True)


def evaluate(df: pd.DataFrame, probs: Sequence[float], threshold: float = 0.5) -> tuple[dict[str, Any], pd.DataFrame]:
    """Metrics (overall and per language pair) and the predictions frame of scored rows."""
    gold = [LABELS[int(x)] for x in df["label"]]
    pred = [LABELS[int(p >= threshold)] for p in probs]
    metrics: dict[str, Any] = {"test": classification_metrics(gold, pred, labels=LABELS)}
    group = df["origin_pair"] if "origin_pair" in df.columns else df["pair"]
    by_pair = {}
    for name, idx in group.groupby(group).groups.items():
        rows = list(idx)
        by_pair[str(name)] = classification_metrics([gold[i] for i in rows], [pred[i] for i in rows], labels=LABELS)
    metrics["test"]["by_pair"] = by_pair
    out = df.copy()
    out["gold"], out["pred"], out["prob"] = gold, pred, list(map(float, probs))
    return metrics, out


def main(argv: Sequence[str] | None = None) -> int:
    """Command line (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model-dir", required=True, type=Path)
    ap.add_argument("--data", required=True, type=Path, help="prepared parallel dir with <split>.parquet")
    ap.add_argument("--split", default="test")
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--max-rows", type=int, default=None, help="score a seeded sample of this many rows")
    ap.add_argument("--threshold", type=float, default=0.5)
    ap.add_argument("--device", default=None)
    ap.add_argument("--batch-size", type=int, default=64)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from smartcrawl.models.scorer import ParallelScorer  # torch only when scoring

    df = load_rows(args.data, args.split, args.max_rows)
    scorer = ParallelScorer(args.model_dir, device=args.device, batch_size=args.batch_size)
    probs = scorer.parallel_probs(list(zip(df["src_url"].astype(str), df["trg_url"].astype(str))))
    metrics, pred = evaluate(df, probs.tolist(), args.threshold)
    config = {"model_dir": str(args.model_dir), "data": str(args.data), "split": args.split,
              "max_rows": args.max_rows, "threshold": args.threshold}
    metrics = {"task": "parallel", "model": f"model:{args.model_dir}", **config, **metrics}
    args.out.mkdir(parents=True, exist_ok=True)
    write_metrics(args.out / "metrics.json", metrics)
    pred.to_parquet(args.out / "predictions.parquet", index=False)
    (args.out / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    print(f"{args.split} {summary_line(metrics['test'])} -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
