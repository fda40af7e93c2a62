"""Score URLs with trained model directories: the crawler's neural :class:`UrlScorer`.

A model directory is what ``train.py`` saves: a Hugging Face sequence classifier and tokenizer plus
``smartcrawl.json`` (task, labels, pre-processing, max length). Empty or unparsable URLs get a
defined output (probability 0 for every language and for parallelism) without breaking the batch.
Every scorer takes ``backend``: ``torch`` (default), or ``onnx`` / ``onnx-int8`` for the fast CPU
path once the model directory has been exported (:mod:`smartcrawl.models.onnx_export`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

import smartcrawl.models.pooling  # noqa: F401  (registers the mean-pooling classifier with the Auto classes)
from smartcrawl.models.onnx_export import BACKENDS, require_onnx_file
from smartcrawl.models.onnx_export import session as onnx_session
from smartcrawl.pair_view import PAIR_VIEWS, pair_inputs
from smartcrawl.training.outputs import MODEL_CARD, PREPROCESSING
from smartcrawl.urls import is_usable, preprocess_url


class ModelDirError(ValueError):
    """A model directory that cannot serve the requested task."""


class UrlModel:
    """One trained URL classifier, batched inference with PyTorch (CPU or GPU) or onnxruntime (CPU).

    ``backend``: ``torch`` (the saved HF model), ``onnx`` (``model.onnx``) or ``onnx-int8``
    (``model.int8.onnx``), the ONNX files written by ``python -m smartcrawl.models.onnx_export
    MODEL_DIR [--int8]``. ``threads``: onnxruntime intra-op threads (default: the available cores).
    """

    def __init__(self, model_dir: str | Path, task: str, device: str | None = None, batch_size: int = 64,
                 backend: str = "torch", threads: int | None = None) -> None:
        root = Path(model_dir)
        card_path = root / MODEL_CARD
        if not card_path.is_file():
            raise ModelDirError(f"{root} is not a smartcrawl model directory (no {MODEL_CARD}); train one with train.py")
        card = json.loads(card_path.read_text())
        if card.get("task") != task:
            raise ModelDirError(f"{root} holds a {card.get('task')!r} model, but a {task!r} model is needed")
        if card.get("preprocessing") != PREPROCESSING:
            raise ModelDirError(f"{root}: unknown pre-processing {card.get('preprocessing')!r}")
        if backend not in BACKENDS:
            raise ValueError(f"backend: unknown backend {backend!r}; allowed: {', '.join(BACKENDS)}")
        self.labels: list[str] = list(card["labels"])
        self.max_length = int(card.get("max_length", 128))
        self.pair_view = str(card.get("pair_view", "plain"))  # cards written before pair views: plain
        if self.pair_view not in PAIR_VIEWS:
            raise ModelDirError(f"{root}: unknown pair_view {self.pair_view!r}; allowed: {', '.join(PAIR_VIEWS)}")
        self.batch_size = batch_size
        self.backend = backend
        self.task = task
        self.tokenizer = AutoTokenizer.from_pretrained(root, local_files_only=True)
        if backend == "torch":
            self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
            self.model = AutoModelForSequenceClassification.from_pretrained(root, local_files_only=True)
            outputs = int(self.model.config.num_labels)
            self.model.to(self.device).eval()
        else:
            if device is not None and torch.device(device).type != "cpu":
                raise ValueError(f"backend={backend!r} runs on the CPU only; use backend='torch' for device={device!r}")
            self.device = torch.device("cpu")
            self.session = onnx_session(require_onnx_file(root, backend), threads)
            self.input_names = [i.name for i in self.session.get_inputs()]
            width = self.session.get_outputs()[0].shape[-1]
            outputs = width if isinstance(width, int) else len(self.labels)
        if outputs != len(self.labels):
            raise ModelDirError(f"{root}: label map has {len(self.labels)} labels but the model has {outputs} outputs")

    def probs(self, texts: Sequence[str], pairs: Sequence[str] | None = None) -> np.ndarray:
        """Class probabilities of pre-processed inputs, shape ``(n, len(labels))``, in input order.

        Inputs are sorted by length inside the call so that each batch pads to a similar length
        (about 3x less padding on real URLs), then the rows are put back in the caller's order.
        """
        out = np.zeros((len(texts), len(self.labels)), dtype=np.float32)
        if not len(texts):
            return out
        lengths = [len(t) + (len(pairs[i]) if pairs is not None else 0) for i, t in enumerate(texts)]
        order = np.argsort(np.asarray(lengths), kind="stable")
        for start in range(0, len(order), self.batch_size):
            index = order[start : start + self.batch_size]
            batch = [texts[i] for i in index]
            pair = [pairs[i] for i in index] if pairs is not None else None
            out[index] = self._torch_probs(batch, pair) if self.backend == "torch" else self._onnx_probs(batch, pair)
        return out

    @torch.inference_mode()
    def _torch_probs(self, batch: list[str], pair: list[str] | None) -> np.ndarray:
        enc = self.tokenizer(batch, pair, truncation=True, max_length=self.max_length, padding=True,
                             return_tensors="pt").to(self.device)
        logits = self.model(**enc).logits.float()
        return logits.softmax(-1).cpu().numpy()

    def _onnx_probs(self, batch: list[str], pair: list[str] | None) -> np.ndarray:
        enc = self.tokenizer(batch, pair, truncation=True, max_length=self.max_length, padding=True,
                             return_tensors="np")
        feeds = {name: np.asarray(enc[name], dtype=np.int64) for name in self.input_names}
        logits = self.session.run(None, feeds)[0].astype(np.float32)
        exp = np.exp(logits - logits.max(axis=-1, keepdims=True))
        return exp / exp.sum(axis=-1, keepdims=True)


class LangidScorer:
    """URL language probabilities from a trained ``langid`` model directory."""

    def __init__(self, model_dir: str | Path, device: str | None = None, batch_size: int = 64,
                 backend: str = "torch", threads: int | None = None) -> None:
        self.model = UrlModel(model_dir, "langid", device, batch_size, backend, threads)

    def lang_probs(self, urls: Sequence[str], lang: str) -> np.ndarray:
        """P(lang(url) == ``lang``) per URL; 0 for unusable URLs or a language the model does not know."""
        result = np.zeros(len(urls), dtype=np.float32)
        if lang not in self.model.labels:
            return result
        ok = [i for i, u in enumerate(urls) if is_usable(u)]
        if ok:
            probs = self.model.probs([preprocess_url(urls[i]) for i in ok])
            result[ok] = probs[:, self.model.labels.index(lang)]
        return result

    def lang_predict(self, urls: Sequence[str]) -> list[str]:
        """The most probable language per URL (``und`` for unusable URLs)."""
        preds = ["und"] * len(urls)
        ok = [i for i, u in enumerate(urls) if is_usable(u)]
        if ok:
            probs = self.model.probs([preprocess_url(urls[i]) for i in ok])
            for i, row in zip(ok, probs.argmax(-1)):
                preds[i] = self.model.labels[int(row)]
        return preds


class ParallelScorer:
    """URL-pair parallelism probabilities from a trained ``parallel`` model directory."""

    def __init__(self, model_dir: str | Path, device: str | None = None, batch_size: int = 64,
                 backend: str = "torch", threads: int | None = None) -> None:
        self.model = UrlModel(model_dir, "parallel", device, batch_size, backend, threads)

    def parallel_probs(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """P(parallel) per URL pair; 0 when either URL is unusable."""
        result = np.zeros(len(pairs), dtype=np.float32)
        ok = [i for i, (a, b) in enumerate(pairs) if is_usable(a) and is_usable(b)]
        if ok:
            first, second = pair_inputs([pairs[i][0] for i in ok], [pairs[i][1] for i in ok], self.model.pair_view)
            probs = self.model.probs(first, second)
            result[ok] = probs[:, self.model.labels.index("parallel")]
        return result


class NeuralScorer:
    """The crawler's :class:`~smartcrawl.crawl.scoring.UrlScorer` from a langid and a parallel model directory."""

    def __init__(self, langid_dir: str | Path, parallel_dir: str | Path, device: str | None = None,
                 batch_size: int = 64, backend: str = "torch", threads: int | None = None) -> None:
        self.langid = LangidScorer(langid_dir, device, batch_size, backend, threads)
        self.parallel = ParallelScorer(parallel_dir, device, batch_size, backend, threads)

    def lang_probs(self, urls: Sequence[str], lang: str) -> np.ndarray:
        """P(lang(url) == ``lang``) per URL (see :meth:`LangidScorer.lang_probs`)."""
        return self.langid.lang_probs(urls, lang)

    def lang_predict(self, urls: Sequence[str]) -> list[str]:
        """The most probable language per URL (see :meth:`LangidScorer.lang_predict`)."""
        return self.langid.lang_predict(urls)

    def parallel_probs(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """P(parallel) per URL pair (see :meth:`ParallelScorer.parallel_probs`)."""
        return self.parallel.parallel_probs(pairs)
