"""Benchmark (not a test): forward throughput of the encoders on short URL strings.

Prints URLs/s of a forward pass (batch 32, max_length 128, inputs pre-processed as the classifiers
see them) for me5-small with 12, 6 and 4 layers and for the tiny encoder; with ``--train`` also
the seconds per forward+backward step of a 2-class classifier. Usage:

    python benchmarks/encoder_throughput.py [--threads 2] [--batches 8] [--train] [--urls FILE]
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path

import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from smartcrawl.models.encoders import EncoderSpec, load_classifier, load_encoder
from smartcrawl.urls import preprocess_url

VARIANTS = (("me5-small", 12), ("me5-small", 6), ("me5-small", 4), ("tiny", None))
DEFAULT_URLS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "wmt16" / "train.pairs"


def read_urls(path: Path | None, n: int, seed: int = 0) -> list[str]:
    """``n`` URLs from a file (one or more tab-separated URLs a line), or synthetic ones when absent."""
    urls: list[str] = []
    if path is not None and path.is_file():
        with path.open(encoding="utf-8", errors="replace") as fh:
            urls = [u for line in fh for u in line.rstrip("\n").split("\t") if u.startswith("http")]
    if not urls:
        rng = random.Random(seed)
        words = ["news", "about-us", "produkte", "contact", "товары", "index.php?lang=fr", "2016/05", "page"]
        urls = [f"https://www.site{i}.com/{rng.choice(['en', 'fr', 'de'])}/" + "/".join(rng.choices(words, k=3))
                for i in range(n)]  # fmt: skip
    rng = random.Random(seed)
    return [preprocess_url(u) for u in rng.choices(urls, k=n)]


def batches(tokenizer: PreTrainedTokenizerBase, texts: list[str], size: int) -> list[dict[str, torch.Tensor]]:
    """Tokenised batches (padding to the longest, truncation at 128)."""
    return [
        dict(tokenizer(texts[i : i + size], padding=True, truncation=True, max_length=128, return_tensors="pt"))
        for i in range(0, len(texts), size)
    ]


def forward_rate(model: PreTrainedModel, inputs: list[dict[str, torch.Tensor]]) -> tuple[float, float]:
    """URLs per wall-clock second and per CPU second of the forward pass (after one warm-up batch).

    On a shared machine the second figure is the steadier one (it ignores time spent descheduled).
    """
    model.eval()
    with torch.inference_mode():
        model(**inputs[0])
        wall, cpu = time.perf_counter(), time.process_time()
        for batch in inputs:
            model(**batch)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    n = sum(len(b["input_ids"]) for b in inputs)
    return n / wall, n / cpu


def train_step_seconds(model: PreTrainedModel, inputs: list[dict[str, torch.Tensor]], steps: int = 3) -> float:
    """Mean seconds of forward + backward + AdamW step per batch."""
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    times = []
    for batch in inputs[: steps + 1]:
        labels = torch.zeros(len(batch["input_ids"]), dtype=torch.long)
        start = time.perf_counter()
        model(**batch, labels=labels).loss.backward()
        opt.step()
        opt.zero_grad()
        times.append(time.perf_counter() - start)
    return sum(times[1:]) / max(1, len(times) - 1)


def main() -> None:
    """Run every variant and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--batches", type=int, default=8)
    parser.add_argument("--urls", type=Path, default=DEFAULT_URLS)
    parser.add_argument("--train", action="store_true", help="also time forward+backward steps")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    torch.set_num_threads(args.threads)
    texts = read_urls(args.urls, args.batch_size * (args.batches + 1))
    print(f"torch {torch.__version__}, {args.threads} threads, batch {args.batch_size}, {len(texts)} URLs, "
          f"mean chars {sum(map(len, texts)) / len(texts):.0f}, load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} CPUs")  # fmt: skip
    for name, layers in VARIANTS:
        spec = EncoderSpec(name, num_layers=layers)
        model, tokenizer = load_encoder(spec)
        inputs = batches(tokenizer, texts, args.batch_size)
        tokens = sum(int(b["attention_mask"].sum()) for b in inputs) / len(texts)
        label = f"{name}-{layers or 2}l"
        per_wall, per_cpu = forward_rate(model, inputs)
        line = f"{label:14s} forward {per_wall:8.1f} URLs/s ({per_cpu:8.1f} per CPU-s, {tokens:.1f} tokens/URL)"
        if args.train:
            classifier, _ = load_classifier(spec, 2)
            line += f"  train {train_step_seconds(classifier, inputs):.2f} s/batch"
        print(line, flush=True)


if __name__ == "__main__":
    main()
