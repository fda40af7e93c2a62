"""Benchmark (not a test): batched scoring throughput of the URL classifiers on this machine.

Measures URLs/s of ``LangidScorer.lang_probs`` and pairs/s of ``ParallelScorer.parallel_probs``
through the same API the crawler calls. Speed does not depend on the weights, so without trained
model directories the benchmark saves untrained classifiers of each encoder and times those.

    python benchmarks/scorer_throughput.py [--models tiny me5-small-6l me5-small] [--n 512]
        [--langid-dir DIR --parallel-dir DIR] [--threads 2] [--json results/benchmarks/scorer_throughput.json]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import torch

from smartcrawl.benchmarking import machine_info, write_result
from smartcrawl.models.encoders import EncoderSpec, load_classifier
from smartcrawl.models.scorer import LangidScorer, ParallelScorer
from smartcrawl.training.outputs import save_model_dir

_MODELS = {"tiny": {"encoder": "tiny"}, "me5-small": {"encoder": "me5-small"},
           "me5-small-6l": {"encoder": "me5-small", "num_layers": 6}, "me5-small-4l": {"encoder": "me5-small", "num_layers": 4},
           "me5-small-2l": {"encoder": "me5-small", "num_layers": 2}}


def _urls(n: int) -> list[str]:
    return [f"https://www.site{i % 97}.example.com/{'en' if i % 2 else 'mt'}/news/2023/article-{i}-about-things.html?page={i % 7}"
            for i in range(n)]


def _untrained_dir(name: str, task: str, labels: list[str], root: Path) -> Path:
    spec = EncoderSpec.from_config({"name": name, **_MODELS[name]})
    model, tok = load_classifier(spec, len(labels), dict(enumerate(labels)))
    return save_model_dir(root / f"{name}-{task}", model, tok, task, labels, 128)


def _time(fn, n: int) -> float:
    fn(8)  # warm-up
    t0 = time.perf_counter()
    fn(n)
    return n / (time.perf_counter() - t0)


def main() -> None:
    """Print (and optionally save) URLs/s and pairs/s per model."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--models", nargs="*", default=["tiny", "me5-small-6l", "me5-small"], choices=sorted(_MODELS))
    ap.add_argument("--langid-dir", type=Path, default=None)
    ap.add_argument("--parallel-dir", type=Path, default=None)
    ap.add_argument("--n", type=int, default=512)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    urls = _urls(args.n + 8)
    rows = []
    with tempfile.TemporaryDirectory(prefix="smartcrawl-bench-") as tmp:
        jobs = [(f"trained {args.langid_dir.name}", args.langid_dir, args.parallel_dir)] if args.langid_dir else []
        jobs += [(m, None, None) for m in args.models if not args.langid_dir]
        for name, lang_dir, par_dir in jobs:
            lang_dir = lang_dir or _untrained_dir(name, "langid", ["eng", "mlt", "und"], Path(tmp))
            par_dir = par_dir or _untrained_dir(name, "parallel", ["non-parallel", "parallel"], Path(tmp))
            lang, par = LangidScorer(lang_dir, "cpu", args.batch_size), ParallelScorer(par_dir, "cpu", args.batch_size)
            urls_s = _time(lambda n: lang.lang_probs(urls[:n], "eng"), args.n)
            pairs_s = _time(lambda n: par.parallel_probs(list(zip(urls[:n], urls[1 : n + 1]))), args.n)
            rows.append({"model": name, "langid_urls_per_s": round(urls_s, 1), "parallel_pairs_per_s": round(pairs_s, 1)})
            print(f"{name:24s} langid {urls_s:8.1f} URLs/s   parallel {pairs_s:8.1f} pairs/s")
    result = {"threads": args.threads, "batch_size": args.batch_size, "n": args.n, **machine_info(), "rows": rows}
    write_result(args.json, result)


if __name__ == "__main__":
    main()
