"""Export a trained model directory to ONNX (and int8) for the fast CPU scorer.

``python -m smartcrawl.models.onnx_export MODEL_DIR [--int8] [--out-dir DIR]`` writes
``model.onnx`` (float32; dynamic batch and sequence axes; inputs as the tokenizer names them,
output ``logits``) and, with ``--int8``, ``model.int8.onnx`` (dynamic int8 quantization of the
weights of MatMul and Gather: 4x smaller embeddings, integer matrix products on CPUs with VNNI).
The float export is checked against PyTorch on sample URLs (``np.allclose``, ``atol`` 1e-4) and
the int8 one is reported by how far its probabilities move. The scorer then loads either with
``backend="onnx"`` or ``backend="onnx-int8"`` (:class:`smartcrawl.models.scorer.UrlModel`).

Exporter: ``torch.onnx.export(..., dynamo=True)`` (torch >= 2.9's default, needs ``onnxscript``);
the legacy TorchScript exporter is used when the dynamo one fails or with ``--legacy``.
"""

from __future__ import annotations

import argparse
import logging
import os
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from transformers import AutoModelForSequenceClassification, AutoTokenizer, PreTrainedTokenizerBase

import smartcrawl.models.pooling  # noqa: F401  (registers the mean-pooling classifier with the Auto classes)

log = logging.getLogger("smartcrawl.models.onnx_export")  # not __name__: "__main__" under python -m

BACKENDS: tuple[str, ...] = ("torch", "onnx", "onnx-int8")
ONNX_FILES: dict[str, str] = {"onnx": "model.onnx", "onnx-int8": "model.int8.onnx"}
MODEL_INPUTS: tuple[str, ...] = ("input_ids", "attention_mask", "token_type_ids")
DEFAULT_OPSET = 18
# Pre-processed URLs (the scorer's input form) of different lengths, so padding is exercised.
SAMPLE_TEXTS: tuple[str, ...] = (
    "www.example.com / en / news / 2023 / article-about-things.html",
    "mt.example.org / mt",
    "shop.example.de / de / produkte / kategorie / schuhe / index.php?id=12&lang=de",
    "example.is",
)
SAMPLE_PAIRS: tuple[str, ...] = (
    "www.example.com / mt / ahbarijiet / 2023 / artiklu.html",
    "mt.example.org / en",
    "shop.example.de / en / products / category / shoes / index.php?id=12&lang=en",
    "example.is / en / about",
)


class OnnxModelMissingError(FileNotFoundError):
    """A model directory without the ONNX file a backend needs; the message names the export command."""


def onnx_path(model_dir: str | Path, backend: str) -> Path:
    """Where the ONNX file of ``backend`` (``onnx`` or ``onnx-int8``) lies in ``model_dir``."""
    if backend not in ONNX_FILES:
        raise ValueError(f"backend {backend!r} has no ONNX file; ONNX backends: {', '.join(ONNX_FILES)}")
    return Path(model_dir) / ONNX_FILES[backend]


def export_command(model_dir: str | Path, backend: str) -> str:
    """The shell command that writes the ONNX file of ``backend`` into ``model_dir``."""
    flag = " --int8" if backend == "onnx-int8" else ""
    return f"python -m smartcrawl.models.onnx_export {model_dir}{flag}"


def require_onnx_file(model_dir: str | Path, backend: str) -> Path:
    """The ONNX file of ``backend`` in ``model_dir``; :class:`OnnxModelMissingError` when it is absent."""
    path = onnx_path(model_dir, backend)
    if not path.is_file():
        raise OnnxModelMissingError(
            f"{path} not found: backend={backend!r} needs an ONNX export of the model; "
            f"run `{export_command(model_dir, backend)}`"
        )
    return path


def input_names(tokenizer: PreTrainedTokenizerBase) -> list[str]:
    """The model inputs the tokenizer produces (XLM-R/me5: input_ids and attention_mask)."""
    names = [n for n in tokenizer.model_input_names if n in MODEL_INPUTS]
    if "input_ids" not in names:
        raise ValueError(f"tokenizer inputs {tokenizer.model_input_names} lack input_ids")
    return names


class _LogitsOnly(nn.Module):
    """Token ids and masks -> logits (what the ONNX graph computes)."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                token_type_ids: torch.Tensor | None = None) -> torch.Tensor:
        kwargs = {"attention_mask": attention_mask, "token_type_ids": token_type_ids}
        return self.model(input_ids=input_ids, **{k: v for k, v in kwargs.items() if v is not None}).logits


def sample_encoding(tokenizer: PreTrainedTokenizerBase, pairs: bool, max_length: int) -> dict[str, np.ndarray]:
    """Tokenised sample inputs (batch 4, padded), as int64 numpy arrays keyed by input name."""
    enc = tokenizer(list(SAMPLE_TEXTS), list(SAMPLE_PAIRS) if pairs else None, truncation=True,
                    max_length=max_length, padding=True, return_tensors="np")
    return {name: np.asarray(enc[name], dtype=np.int64) for name in input_names(tokenizer)}


def _export(wrapper: nn.Module, inputs: dict[str, torch.Tensor], path: Path, opset: int, legacy: bool) -> str:
    """Run the torch exporter; returns which one wrote ``path`` (``dynamo`` or ``torchscript``)."""
    names = list(inputs)
    if not legacy:
        try:
            batch, seq = torch.export.Dim("batch"), torch.export.Dim("sequence")
            with warnings.catch_warnings(), _quiet("torch.onnx"):
                warnings.simplefilter("ignore")
                torch.onnx.export(wrapper, (), str(path), kwargs=inputs, input_names=names, output_names=["logits"],
                                  dynamic_shapes={name: {0: batch, 1: seq} for name in names}, opset_version=opset,
                                  dynamo=True, external_data=False, verbose=False)
            return "dynamo"
        except Exception as err:  # noqa: BLE001 - any exporter failure falls back to the legacy exporter
            log.warning("dynamo ONNX export failed (%s: %s); trying the TorchScript exporter",
                        type(err).__name__, err)
    axes = {name: {0: "batch", 1: "sequence"} for name in names}
    axes["logits"] = {0: "batch"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(wrapper, tuple(inputs.values()), str(path), input_names=names,
                          output_names=["logits"], dynamic_axes=axes, opset_version=min(opset, 17), dynamo=False)
    return "torchscript"


@contextmanager
def _quiet(logger: str, level: int = logging.ERROR) -> Iterator[None]:
    """Raise ``logger``'s level for the duration (exporter and quantizer chatter)."""
    target = logging.getLogger(logger or None)
    before = target.level
    target.setLevel(level)
    try:
        yield
    finally:
        target.setLevel(before)


def session(path: str | Path, threads: int | None = None) -> Any:
    """An onnxruntime CPU ``InferenceSession`` of ``path`` with ``threads`` intra-op threads (default: all cores)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads or available_cores()
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Idle threads sleep instead of spinning: on a shared machine (the crawler's own work, other
    # processes) spinning wastes the cores the threads wait for; 2x pairs/s measured under load.
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])


def available_cores() -> int:
    """CPU cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@dataclass(frozen=True)
class ExportReport:
    """What :func:`export_model_dir` wrote and how close the exports are to PyTorch."""

    onnx: Path
    exporter: str
    max_abs_logit_diff: float
    int8: Path | None = None
    int8_max_abs_prob_diff: float | None = None


def quantize_int8(src: str | Path, dst: str | Path) -> Path:
    """Dynamic int8 quantization of ``src``'s MatMul and Gather weights (activations quantized at run time)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with _quiet(""):  # the quantizer logs one line per activation on the root logger
        quantize_dynamic(str(src), str(dst), op_types_to_quantize=["MatMul", "Gather"], per_channel=False,
                         weight_type=QuantType.QInt8)
    return Path(dst)


def export_model_dir(
    model_dir: str | Path, out_dir: str | Path | None = None, int8: bool = False, opset: int = DEFAULT_OPSET,
    atol: float = 1e-4, legacy: bool = False,
) -> ExportReport:
    """Export ``model_dir`` (a ``train.py`` model directory) to ``model.onnx`` (+ ``model.int8.onnx``).

    Files go into ``out_dir`` (default: ``model_dir`` itself, where the scorer looks for them).
    Raises ``AssertionError`` when the ONNX logits differ from PyTorch's by more than ``atol``.
    """
    import json

    from smartcrawl.training.outputs import MODEL_CARD

    root = Path(model_dir)
    out = Path(out_dir) if out_dir is not None else root
    out.mkdir(parents=True, exist_ok=True)
    card = json.loads((root / MODEL_CARD).read_text())
    tokenizer = AutoTokenizer.from_pretrained(root, local_files_only=True)
    model = AutoModelForSequenceClassification.from_pretrained(root, local_files_only=True).eval()
    feeds = sample_encoding(tokenizer, card.get("task") == "parallel", int(card.get("max_length", 128)))
    inputs = {name: torch.from_numpy(feeds[name]) for name in input_names(tokenizer)}
    wrapper = _LogitsOnly(model).eval()
    with torch.inference_mode():
        reference = wrapper(**inputs).float().numpy()
    path = out / ONNX_FILES["onnx"]
    exporter = _export(wrapper, inputs, path, opset, legacy)
    got = session(path).run(["logits"], feeds)[0]
    diff = float(np.abs(got - reference).max())
    if not np.allclose(got, reference, atol=atol):
        raise AssertionError(f"{path}: ONNX logits differ from PyTorch by up to {diff:.2e} (atol {atol})")
    log.info("wrote %s (%s exporter; max |logit diff| %.2e)", path, exporter, diff)
    if not int8:
        return ExportReport(path, exporter, diff)
    qpath = quantize_int8(path, out / ONNX_FILES["onnx-int8"])
    qdiff = float(np.abs(_softmax(session(qpath).run(["logits"], feeds)[0]) - _softmax(reference)).max())
    log.info("wrote %s (max |prob diff| vs float %.3f)", qpath, qdiff)
    return ExportReport(path, exporter, diff, qpath, qdiff)


def main(argv: Sequence[str] | None = None) -> None:
    """CLI: ``python -m smartcrawl.models.onnx_export MODEL_DIR [--int8] [--out-dir DIR]``."""
    ap = argparse.ArgumentParser(description="Export a smartcrawl model directory to ONNX (and int8).")
    ap.add_argument("model_dir", type=Path)
    ap.add_argument("--int8", action="store_true", help="also write model.int8.onnx (dynamic int8 quantization)")
    ap.add_argument("--out-dir", type=Path, default=None, help="default: the model directory")
    ap.add_argument("--opset", type=int, default=DEFAULT_OPSET)
    ap.add_argument("--atol", type=float, default=1e-4, help="tolerance of the ONNX vs PyTorch logits check")
    ap.add_argument("--legacy", action="store_true", help="use the TorchScript exporter instead of dynamo")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    logging.getLogger("smartcrawl").setLevel(logging.INFO)
    report = export_model_dir(args.model_dir, args.out_dir, args.int8, args.opset, args.atol, args.legacy)
    print(f"{report.onnx} ({report.exporter} exporter, max |logit diff| vs PyTorch {report.max_abs_logit_diff:.2e})")
    if report.int8 is not None:
        print(f"{report.int8} (max |prob diff| vs PyTorch {report.int8_max_abs_prob_diff:.4f})")


if __name__ == "__main__":
    main()
