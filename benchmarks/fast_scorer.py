"""Benchmark (not a test): the fast CPU scorer, throughput and macro-F1 per model directory and backend.

For each model directory (a teacher, and optionally distilled students) and each backend
(``torch``, ``onnx``, ``onnx-int8``) it scores a sample of the prepared test split through the
crawler's own API (``ParallelScorer.parallel_probs`` / ``LangidScorer.lang_predict``: URL
pre-processing, tokenisation and the model), and reports

- wall-clock pairs/s (parallel) or URLs/s (langid), batched (``--batch-size``);
- the same per CPU-second of this process (``cpu_per_s``): less sensitive to other processes on
  a busy machine; on an idle machine wall-clock pairs/s is about ``cpu_per_s`` x cores in use;
- test macro-F1 (:func:`smartcrawl.eval.metrics.classification_metrics`) of the same outputs, and
  its difference from the first row of the same task (the reference, normally the teacher on torch).

ONNX files that are missing are exported first with ``--export`` (else the row is skipped).

    python benchmarks/fast_scorer.py --parallel TEACHER_DIR [STUDENT_DIR ...] [--langid DIR ...]
        [--backends torch onnx onnx-int8] [--n 2000] [--batch-size 64] [--threads 2] [--repeats 1] [--export]
        [--json results/benchmarks/fast_scorer.json]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from smartcrawl.benchmarking import load_average, machine_info, write_result
from smartcrawl.eval.metrics import classification_metrics
from smartcrawl.models.distill import DEFAULT_DATA
from smartcrawl.models.onnx_export import BACKENDS, ONNX_FILES, available_cores, export_model_dir
from smartcrawl.models.scorer import LangidScorer, ParallelScorer

TARGET_PAIRS_PER_S = 2000.0
MAX_F1_LOSS = 2.0


def load_sample(task: str, data_dir: Path, n: int, seed: int) -> pd.DataFrame:
    """``n`` random rows of the test split (all when it is smaller)."""
    df = pd.read_parquet(data_dir / "test.parquet")
    return df.sample(min(n, len(df)), random_state=seed).reset_index(drop=True)


def _timed(fn: Callable[[], Any], repeats: int) -> tuple[Any, float, float]:
    """``fn()``'s result and the wall and CPU seconds of its fastest of ``repeats`` runs."""
    best: tuple[float, float] = (float("inf"), float("inf"))
    out = None
    for _ in range(max(1, repeats)):
        wall, cpu = time.perf_counter(), time.process_time()
        out = fn()
        best = min(best, (time.perf_counter() - wall, time.process_time() - cpu))
    return out, best[0], best[1]


def run_one(task: str, model_dir: Path, backend: str, sample: pd.DataFrame, batch_size: int,
            threads: int, repeats: int = 1) -> dict[str, Any]:
    """Score ``sample`` (after a warm-up batch; best of ``repeats``) with one model directory and backend."""
    if task == "parallel":
        scorer = ParallelScorer(model_dir, "cpu", batch_size, backend, threads)
        pairs = list(zip(sample["src_url"], sample["trg_url"]))
        scorer.parallel_probs(pairs[:batch_size])
        probs, wall, cpu = _timed(lambda: scorer.parallel_probs(pairs), repeats)
        pred = ["parallel" if p >= 0.5 else "non-parallel" for p in probs]
        gold = ["parallel" if int(y) else "non-parallel" for y in sample["label"]]
    else:
        lscorer = LangidScorer(model_dir, "cpu", batch_size, backend, threads)
        urls = list(sample["url"])
        lscorer.lang_predict(urls[:batch_size])
        pred, wall, cpu = _timed(lambda: lscorer.lang_predict(urls), repeats)
        gold = list(sample["lang"])
    metrics = classification_metrics(gold, pred)
    n = len(sample)
    return {"task": task, "model": model_dir.name if model_dir.name != "model" else model_dir.parent.name,
            "model_dir": str(model_dir), "backend": backend, "n": n, "per_s": round(n / wall, 1),
            "cpu_per_s": round(n / max(cpu, 1e-9), 1), "macro_f1": round(metrics["macro"]["f1"], 2),
            "accuracy": round(metrics["accuracy"], 2), "pred": pred}


def _finish(rows: list[dict[str, Any]]) -> None:
    """Add F1 difference and prediction agreement with the first row of each task; drop predictions."""
    first: dict[str, dict[str, Any]] = {}
    for row in rows:
        ref = first.setdefault(row["task"], row)
        row["delta_f1"] = round(row["macro_f1"] - ref["macro_f1"], 2)
        row["agreement"] = round(100.0 * float(np.mean([a == b for a, b in zip(row["pred"], ref["pred"])])), 2)
    for row in rows:
        row.pop("pred")
        row["meets_target"] = bool(row["task"] != "parallel" or
                                   (row["per_s"] >= TARGET_PAIRS_PER_S and row["delta_f1"] >= -MAX_F1_LOSS))


def print_table(rows: list[dict[str, Any]]) -> None:
    """One line per (task, model, backend)."""
    head = f"{'task':8s} {'model':28s} {'backend':9s} {'items/s':>8s} {'/cpu-s':>8s} {'macroF1':>8s} {'dF1':>6s} {'agree%':>7s}"
    print(head)
    print("-" * len(head))
    for r in rows:
        print(f"{r['task']:8s} {r['model'][:28]:28s} {r['backend']:9s} {r['per_s']:8.1f} {r['cpu_per_s']:8.1f} "
              f"{r['macro_f1']:8.2f} {r['delta_f1']:6.2f} {r['agreement']:7.2f}")


def main() -> None:
    """Run the benchmark over the given model directories and backends."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parallel", type=Path, nargs="*", default=[], help="parallel model dirs (teacher first)")
    ap.add_argument("--langid", type=Path, nargs="*", default=[], help="langid model dirs (teacher first)")
    ap.add_argument("--backends", nargs="*", default=list(BACKENDS), choices=BACKENDS)
    ap.add_argument("--parallel-data", type=Path, default=Path(DEFAULT_DATA["parallel"]))
    ap.add_argument("--langid-data", type=Path, default=Path(DEFAULT_DATA["langid"]))
    ap.add_argument("--n", type=int, default=2000, help="test examples per row (timed and scored)")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--threads", type=int, default=available_cores())
    ap.add_argument("--repeats", type=int, default=1, help="timed passes per row; the fastest counts")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--export", action="store_true", help="export missing ONNX files first")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    load_before = load_average()
    rows: list[dict[str, Any]] = []
    for task, dirs, data in (("parallel", args.parallel, args.parallel_data), ("langid", args.langid, args.langid_data)):
        if not dirs:
            continue
        sample = load_sample(task, data, args.n, args.seed)
        for model_dir in dirs:
            for backend in args.backends:
                onnx_file = model_dir / ONNX_FILES[backend] if backend in ONNX_FILES else None
                if onnx_file is not None and not onnx_file.is_file():
                    if not args.export:
                        print(f"skip {model_dir} {backend}: {onnx_file.name} missing (use --export)")
                        continue
                    export_model_dir(model_dir, int8=backend == "onnx-int8")
                rows.append(run_one(task, model_dir, backend, sample, args.batch_size, args.threads, args.repeats))
                r = rows[-1]
                print(f"{task} {r['model']} {backend}: {r['per_s']:.1f}/s ({r['cpu_per_s']:.1f}/cpu-s), "
                      f"macro-F1 {r['macro_f1']:.2f}", flush=True)
    _finish(rows)
    print()
    print_table(rows)
    result = {"threads": args.threads, "batch_size": args.batch_size, "n": args.n, "repeats": args.repeats,
              **machine_info(load_before, split=True),
              "target": {"pairs_per_s": TARGET_PAIRS_PER_S, "max_macro_f1_loss": MAX_F1_LOSS}, "rows": rows}
    write_result(args.json, result)


if __name__ == "__main__":
    main()
