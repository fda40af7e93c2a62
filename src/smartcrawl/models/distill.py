"""Distil a trained URL classifier into a small student for the fast CPU scorer.

    python -m smartcrawl.models.distill --teacher MODEL_DIR --task parallel --layers 1 --hidden 128 \\
        --out runs/parallel/student-1l-128/model [--data DIR] [--epochs 1] [--max-train N] [--int8]

The student (:mod:`smartcrawl.models.student`: same tokenizer, fewer and narrower layers,
initialised from the teacher) learns the teacher's soft labels over the prepared training split,
mixed with the gold labels: ``alpha * T^2 * KL(teacher_T || student_T) + (1 - alpha) * CE(gold)``.
The teacher scores the split once through the scorer (any backend, e.g. ``onnx-int8`` for speed);
its probabilities are cached under ``~/.cache/smartcrawl/distill`` so that a second run with other
student sizes does not score again. The result is an ordinary model directory (``smartcrawl.json``
names the teacher) that every scorer loads; ``--int8`` also exports it to ONNX and int8.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from transformers import AutoModelForSequenceClassification, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase

from smartcrawl.eval.metrics import classification_metrics
from smartcrawl.models.onnx_export import BACKENDS, export_model_dir
from smartcrawl.models.scorer import ModelDirError, UrlModel
from smartcrawl.models.student import StudentSpec, build_student, resolve
from smartcrawl.training.batching import LengthBucketBatchSampler
from smartcrawl.training.inputs import TASKS, Examples, load_examples
from smartcrawl.training.outputs import MODEL_CARD, save_model_dir

log = logging.getLogger("smartcrawl.models.distill")  # not __name__: "__main__" under python -m

DEFAULT_DATA: dict[str, str] = {"langid": "data/prepared/langid", "parallel": "data/prepared/parallel/rand+jaccard+remove"}
DEFAULT_CACHE = Path("~/.cache/smartcrawl/distill")


@dataclass(frozen=True)
class DistillSettings:
    """Training settings of the student (defaults sized for a 2-core CPU)."""

    epochs: int = 1
    batch_size: int = 64
    lr: float = 5e-4
    weight_decay: float = 0.01
    warmup_fraction: float = 0.05
    temperature: float = 2.0
    alpha: float = 0.5  # weight of the distillation term; 1 - alpha goes to the gold labels
    max_train: int | None = None
    max_dev: int | None = 2000
    max_steps: int | None = None
    max_minutes: float | None = None
    seed: int = 1234
    threads: int | None = None
    bucket_batches: int = 50
    teacher_backend: str = "torch"
    teacher_batch_size: int = 64
    log_every: int = 50


def distill_loss(logits: torch.Tensor, soft: torch.Tensor, gold: torch.Tensor, temperature: float,
                 alpha: float) -> torch.Tensor:
    """``alpha * T^2 * KL(soft_T || softmax(logits / T)) + (1 - alpha) * CE(logits, gold)``.

    ``soft`` are the teacher's probabilities at temperature 1; at temperature T they become
    ``softmax(log(soft) / T)``, the same as softening the teacher's logits.
    """
    t = float(temperature)
    target = F.softmax(torch.log(soft.clamp_min(1e-8)) / t, dim=-1)
    kd = F.kl_div(F.log_softmax(logits / t, dim=-1), target, reduction="batchmean") * t * t
    if alpha >= 1.0:
        return kd
    return alpha * kd + (1.0 - alpha) * F.cross_entropy(logits, gold)


def _cache_key(teacher_dir: Path, data_file: Path, limit: int | None, backend: str) -> str:
    parts = [str(teacher_dir.resolve()), str(data_file.resolve()), str(limit), backend]
    for f in (teacher_dir / "model.safetensors", teacher_dir / MODEL_CARD, data_file):
        if f.exists():
            st = f.stat()
            parts += [str(st.st_size), str(int(st.st_mtime))]
    return hashlib.sha1("|".join(parts).encode()).hexdigest()[:16]


def teacher_probs(teacher: UrlModel, teacher_dir: Path, data_file: Path, examples: Examples, limit: int | None,
                  cache_dir: Path | None) -> np.ndarray:
    """The teacher's class probabilities of ``examples`` (cached in ``cache_dir`` when given)."""
    path = None
    if cache_dir is not None:
        path = cache_dir.expanduser() / f"{_cache_key(teacher_dir, data_file, limit, teacher.backend)}.npy"
        if path.is_file():
            cached = np.load(path)
            if cached.shape == (len(examples), len(teacher.labels)):
                log.info("teacher probabilities from %s", path)
                return cached
    started = time.perf_counter()
    probs = teacher.probs(examples.texts, examples.pairs)
    log.info("teacher scored %d examples of %s in %.0f s", len(examples), data_file.name,
             time.perf_counter() - started)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, probs)
    return probs


def _lengths(ex: Examples) -> list[int]:
    if ex.pairs is None:
        return [len(t) for t in ex.texts]
    return [len(a) + len(b) for a, b in zip(ex.texts, ex.pairs)]


def _schedule(total: int, warmup_fraction: float) -> Any:
    warmup = max(1, int(round(warmup_fraction * total)))

    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return max(0.0, (total - step) / max(1, total - warmup))

    return factor


def train_student(student: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, examples: Examples,
                  soft: np.ndarray, max_length: int, settings: DistillSettings) -> dict[str, Any]:
    """Train ``student`` in place on ``examples`` with the teacher's probabilities ``soft``; returns stats."""
    s = settings
    steps_per_epoch = math.ceil(len(examples) / s.batch_size)
    total = s.epochs * steps_per_epoch if s.max_steps is None else min(s.max_steps, s.epochs * steps_per_epoch)
    # The 250k-row word embedding gets sparse gradients and SparseAdam: a dense AdamW step over it
    # costs more than the forward and backward passes of a small student together (measured 10x).
    words: Any = student.get_input_embeddings()
    words.sparse = True
    dense = [(n, p) for n, p in student.named_parameters() if p is not words.weight]
    decay = [p for n, p in dense if p.ndim >= 2 and "LayerNorm" not in n]
    no_decay = [p for n, p in dense if not (p.ndim >= 2 and "LayerNorm" not in n)]
    optimizers = [torch.optim.AdamW([{"params": decay, "weight_decay": s.weight_decay},
                                     {"params": no_decay, "weight_decay": 0.0}], lr=s.lr),
                  torch.optim.SparseAdam([words.weight], lr=s.lr)]
    factor = _schedule(total, s.warmup_fraction)
    schedulers = [torch.optim.lr_scheduler.LambdaLR(o, factor) for o in optimizers]
    soft_t = torch.from_numpy(np.asarray(soft, dtype=np.float32))
    gold_t = torch.tensor(examples.labels, dtype=torch.long)
    lengths = _lengths(examples)
    deadline = time.perf_counter() + 60 * s.max_minutes if s.max_minutes else math.inf
    started, step, seen, running = time.perf_counter(), 0, 0, 0.0
    student.train()
    stopped = "epochs"
    for epoch in range(s.epochs):
        sampler = LengthBucketBatchSampler(lengths, s.batch_size, s.seed + epoch, max(1, s.bucket_batches))
        for index in sampler:
            texts = [examples.texts[i] for i in index]
            pairs = [examples.pairs[i] for i in index] if examples.pairs is not None else None
            enc = tokenizer(texts, pairs, truncation=True, max_length=max_length, padding=True, return_tensors="pt")
            logits = student(**enc).logits
            loss = distill_loss(logits, soft_t[index], gold_t[index], s.temperature, s.alpha)
            for opt in optimizers:
                opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(decay + no_decay, 1.0)
            for opt, sched in zip(optimizers, schedulers):
                opt.step()
                sched.step()
            step, seen = step + 1, seen + len(index)
            value = loss.item()
            running = 0.9 * running + 0.1 * value if step > 1 else value
            if s.log_every and step % s.log_every == 0:
                rate = seen / (time.perf_counter() - started)
                log.info("epoch %d step %d/%d loss %.4f (%.0f examples/s)", epoch, step, total, running, rate)
            if step >= total:
                stopped = "max_steps" if s.max_steps is not None and step >= s.max_steps else "epochs"
                break
            if time.perf_counter() > deadline:
                stopped = "max_minutes"
                break
        if step >= total or stopped != "epochs":
            break
    words.sparse = False
    student.eval()
    return {"steps": step, "examples_seen": seen, "final_loss": running, "stopped_by": stopped,
            "train_seconds": round(time.perf_counter() - started, 1)}


def macro_f1(labels: Sequence[str], gold: Sequence[int], probs: np.ndarray) -> dict[str, Any]:
    """Metrics (see :func:`smartcrawl.eval.metrics.classification_metrics`) of argmax predictions."""
    pred = probs.argmax(-1)
    return classification_metrics([labels[i] for i in gold], [labels[int(i)] for i in pred])


def load_student(init_dir: Path, teacher_dir: Path, task: str) -> tuple[StudentSpec, PreTrainedModel, str]:
    """A student saved by :func:`distill` from ``teacher_dir`` for ``task``, to train further."""
    card_path = init_dir / MODEL_CARD
    if not card_path.is_file():
        raise ModelDirError(f"--init {init_dir}: no {MODEL_CARD}; give a student model dir written by distill")
    card = json.loads(card_path.read_text())
    if card.get("task") != task or "student" not in card:
        raise ModelDirError(f"--init {init_dir}: not a {task} student (task {card.get('task')!r})")
    if Path(str(card.get("distilled_from", ""))).resolve() != teacher_dir.resolve():
        raise ModelDirError(f"--init {init_dir} was distilled from {card.get('distilled_from')}, not {teacher_dir}")
    spec = StudentSpec(**card["student"])
    student = AutoModelForSequenceClassification.from_pretrained(init_dir, local_files_only=True)
    return spec, student, f"continued from {init_dir}"


def distill(teacher_dir: str | Path, task: str, out_dir: str | Path, spec: StudentSpec,
            settings: DistillSettings = DistillSettings(), data_dir: str | Path | None = None,
            cache_dir: str | Path | None = DEFAULT_CACHE, max_length: int | None = None,
            init_dir: str | Path | None = None) -> dict[str, Any]:
    """Train a student of ``spec`` on ``teacher_dir``'s soft labels; save it to ``out_dir`` (a model dir).

    With ``init_dir`` (a student model dir written by this function for the same teacher and task)
    training continues from that student, whose size then replaces ``spec``.

    Returns (and writes to ``out_dir/distill.json``) the settings, training stats and dev
    macro-F1 of teacher and student.
    """
    if task not in TASKS:
        raise ValueError(f"task: unknown task {task!r}; allowed: {', '.join(TASKS)}")
    if settings.threads:
        torch.set_num_threads(settings.threads)
    teacher_dir, out = Path(teacher_dir), Path(out_dir)
    data = Path(data_dir or DEFAULT_DATA[task])
    train_file, dev_file = data / "train.parquet", data / "dev.parquet"
    if not train_file.is_file():
        hint = "task=parallel negatives=rand+jaccard+remove" if task == "parallel" else "task=langid"
        raise FileNotFoundError(f"{train_file} not found; run `python prepare_data.py {hint}` or pass --data")
    teacher = UrlModel(teacher_dir, task, "cpu", settings.teacher_batch_size, settings.teacher_backend)
    labels = teacher.labels
    length = int(max_length or teacher.max_length)
    train, _ = load_examples(task, train_file, labels, settings.max_train, teacher.pair_view)
    if not len(train):
        raise ModelDirError(f"{train_file}: no training example with one of the teacher's labels")
    cache = Path(cache_dir) if cache_dir is not None else None
    soft = teacher_probs(teacher, teacher_dir, train_file, train, settings.max_train, cache)
    teacher_model = AutoModelForSequenceClassification.from_pretrained(teacher_dir, local_files_only=True)
    tokenizer = AutoTokenizer.from_pretrained(teacher_dir, local_files_only=True)
    if init_dir is not None:
        spec, student, how = load_student(Path(init_dir), teacher_dir, task)
    else:
        spec = resolve(spec, teacher_model)
        student, how = build_student(spec, teacher_model)
    del teacher_model
    log.info("%s: %s; %.1fM parameters", spec.name, how, sum(p.numel() for p in student.parameters()) / 1e6)
    stats = train_student(student, tokenizer, train, soft, length, settings)
    card_extra: dict[str, Any] = {"model": spec.name, "distilled_from": str(teacher_dir), "student": asdict(spec)}
    if task == "parallel":
        card_extra["pair_view"] = teacher.pair_view
    save_model_dir(out, student, tokenizer, task, labels, length, card_extra)
    summary: dict[str, Any] = {"task": task, "teacher": str(teacher_dir), "student": spec.name, "init": how,
                               "spec": asdict(spec), "settings": asdict(settings), "train_examples": len(train),
                               **stats, "model_dir": str(out)}
    if dev_file.is_file() and settings.max_dev != 0:
        dev, _ = load_examples(task, dev_file, labels, settings.max_dev, teacher.pair_view)
        if len(dev):
            dev_teacher = teacher_probs(teacher, teacher_dir, dev_file, dev, settings.max_dev, cache)
            dev_student = UrlModel(out, task, "cpu", settings.teacher_batch_size).probs(dev.texts, dev.pairs)
            summary["dev"] = {
                "n": len(dev),
                "teacher_macro_f1": macro_f1(labels, dev.labels, dev_teacher)["macro"]["f1"],
                "student_macro_f1": macro_f1(labels, dev.labels, dev_student)["macro"]["f1"],
                "agreement": float((dev_teacher.argmax(-1) == dev_student.argmax(-1)).mean() * 100),
            }
            log.info("dev macro-F1: teacher %.2f, student %.2f (agreement %.1f %%)",
                     summary["dev"]["teacher_macro_f1"], summary["dev"]["student_macro_f1"],
                     summary["dev"]["agreement"])
    (out / "distill.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def main(argv: Sequence[str] | None = None) -> None:
    """CLI; see the module doc."""
    d = DistillSettings()
    ap = argparse.ArgumentParser(description="Distil a smartcrawl model directory into a small student.")
    ap.add_argument("--teacher", type=Path, required=True, help="teacher model directory (train.py's run_dir/model)")
    ap.add_argument("--task", choices=TASKS, required=True)
    ap.add_argument("--out", type=Path, required=True, help="student model directory to write")
    ap.add_argument("--data", type=Path, default=None, help="prepared split dir (default: data/prepared/<task>...)")
    ap.add_argument("--layers", type=int, default=1)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--heads", type=int, default=None)
    ap.add_argument("--intermediate", type=int, default=None)
    ap.add_argument("--pooling", choices=("cls", "mean"), default=None, help="default: the teacher's")
    ap.add_argument("--max-length", type=int, default=None, help="default: the teacher's")
    ap.add_argument("--epochs", type=int, default=d.epochs)
    ap.add_argument("--batch-size", type=int, default=d.batch_size)
    ap.add_argument("--lr", type=float, default=d.lr)
    ap.add_argument("--temperature", type=float, default=d.temperature)
    ap.add_argument("--alpha", type=float, default=d.alpha)
    ap.add_argument("--max-train", type=int, default=None)
    ap.add_argument("--max-dev", type=int, default=d.max_dev)
    ap.add_argument("--max-steps", type=int, default=None)
    ap.add_argument("--max-minutes", type=float, default=None, help="stop training after this wall time")
    ap.add_argument("--teacher-backend", choices=BACKENDS, default=d.teacher_backend)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--seed", type=int, default=d.seed)
    ap.add_argument("--no-cache", action="store_true", help="do not cache the teacher's probabilities")
    ap.add_argument("--int8", action="store_true", help="export the student to model.onnx and model.int8.onnx")
    ap.add_argument("--init", type=Path, default=None,
                    help="continue training this student model dir (same teacher and task; its size is kept)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(message)s")
    logging.getLogger("smartcrawl").setLevel(logging.INFO)
    spec = StudentSpec(layers=args.layers, hidden=args.hidden, heads=args.heads, intermediate=args.intermediate,
                       pooling=args.pooling, seed=args.seed)
    settings = DistillSettings(
        epochs=args.epochs, batch_size=args.batch_size, lr=args.lr, temperature=args.temperature, alpha=args.alpha,
        max_train=args.max_train, max_dev=args.max_dev, max_steps=args.max_steps, max_minutes=args.max_minutes,
        seed=args.seed, threads=args.threads, teacher_backend=args.teacher_backend,
    )
    summary = distill(args.teacher, args.task, args.out, spec, settings, args.data,
                      None if args.no_cache else DEFAULT_CACHE, args.max_length, args.init)
    if args.int8:
        export_model_dir(args.out, int8=True)
    print(json.dumps({k: summary[k] for k in ("student", "steps", "train_seconds", "model_dir")} |
                     ({"dev": summary["dev"]} if "dev" in summary else {})))


if __name__ == "__main__":
    main()
