"""Check (not a benchmark) that training runs on a GPU: one bf16 optimiser step of the tiny model.

Composes ``conf/train.yaml`` with ``trainer=gpu model=tiny train.max_steps=1`` (or ``--trainer ddp``)
over a small synthetic langid data set, runs it through the same Lightning path as ``train.py``
(``train_from_config``: fit, test, save) and prints ``OK`` with timings and peak GPU memory.
Without CUDA it prints ``SKIPPED: no CUDA device`` and exits 0, so CI on CPU machines passes;
``--cpu`` runs the same composed config on the CPU (bf16 autocast) to test the script itself.

    python benchmarks/gpu_check.py [--trainer gpu|ddp] [--steps 1] [--keep DIR] [--cpu]

GPUs without bf16 (before Ampere) get ``trainer.precision=16-mixed`` instead, with a note.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
LANGS = {"eng": "en", "fra": "fr", "deu": "de"}


def write_langid_data(root: Path, domains: int = 24) -> Path:
    """A small langid data set (train/dev/test Parquet files) with the language code in the path."""
    rng = random.Random(0)
    out = root / "langid"
    if int(os.environ.get("LOCAL_RANK", "0")) != 0 and (out / "test.parquet").is_file():
        return out  # a DDP worker: rank 0 has written the data already
    out.mkdir(parents=True, exist_ok=True)
    for split, n in (("train", domains), ("dev", max(2, domains // 4)), ("test", max(2, domains // 4))):
        rows = [{"url": f"http://{split}{d}.example.com/{code}/page{p}", "lang": lang,
                 "domain": f"{split}{d}.example.com", "source": "gpu-check"}
                for d in range(n) for lang, code in LANGS.items() for p in range(3)]
        rng.shuffle(rows)
        pd.DataFrame(rows).to_parquet(out / f"{split}.parquet", index=False)
    return out


def check(trainer: str, steps: int, work: Path, on_cpu: bool = False) -> int:
    """Run the check; returns the process exit code.

    ``on_cpu``: run the same composed config with ``accelerator=cpu`` (bf16 autocast on the CPU),
    which tests this script and the configs on machines without a GPU.
    """
    import torch

    if not on_cpu and not torch.cuda.is_available():
        print("SKIPPED: no CUDA device")
        return 0
    from hydra import compose, initialize_config_dir

    from smartcrawl.training.run import train_from_config

    cuda = not on_cpu
    device = torch.cuda.get_device_name(0) if cuda else "cpu"
    overrides = [
        "task=langid", f"trainer={trainer}", "model=tiny", f"data.out_dir={write_langid_data(work)}",
        f"run_dir={work}/run", f"results_dir={work}/results", f"train.limit_train_batches={steps}",
        "train.max_epochs=1", "train.batch_size=16", "train.max_dev=null", "train.progress_bar=false", "curriculum=none",
        "train.resume=false",
    ]
    if on_cpu:
        overrides += ["trainer.accelerator=cpu", "trainer.devices=1", "trainer.num_workers=0", "trainer.threads=2"]
        if trainer == "ddp":
            overrides.append("trainer.strategy=auto")  # one CPU process; the GPU run keeps ddp
    elif not torch.cuda.is_bf16_supported():
        print(f"note: {device} has no bf16; using trainer.precision=16-mixed")
        overrides.append("trainer.precision=16-mixed")
    with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
        cfg = compose(config_name="train", overrides=overrides)
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    started = time.perf_counter()
    metrics = train_from_config(cfg)
    seconds = time.perf_counter() - started
    if int(os.environ.get("LOCAL_RANK", "0")) != 0:  # ddp: only rank 0 reports
        return 0
    done = int(metrics["global_steps"])
    if done < steps:
        print(f"FAILED: {done} optimiser steps done, {steps} expected")
        return 1
    where = f"{device} x{torch.cuda.device_count()}" if cuda else "cpu (--cpu)"
    memory = f"; peak GPU memory {torch.cuda.max_memory_allocated() / 2**20:.0f} MiB" if cuda else ""
    print(f"OK: trainer={trainer} precision={cfg.trainer.precision} strategy={cfg.trainer.strategy} "
          f"devices={cfg.trainer.devices} on {where}: {done} step(s) + test + save in {seconds:.1f} s{memory}")
    return 0


def main() -> None:
    """CLI; see the module doc."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trainer", choices=("gpu", "ddp"), default="gpu")
    ap.add_argument("--steps", type=int, default=1)
    ap.add_argument("--keep", type=Path, default=None, help="work directory to keep (default: a temporary one)")
    ap.add_argument("--cpu", action="store_true", help="run the same check on the CPU (tests the script itself)")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.keep is None and args.trainer == "ddp":
        # DDP re-runs this script once per extra GPU: every rank must find the same work directory.
        args.keep = Path(tempfile.gettempdir()) / "smartcrawl-gpu-check-ddp"
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        sys.exit(check(args.trainer, args.steps, args.keep, args.cpu))
    with tempfile.TemporaryDirectory(prefix="smartcrawl-gpu-check-") as tmp:
        sys.exit(check(args.trainer, args.steps, Path(tmp), args.cpu))


if __name__ == "__main__":
    main()
