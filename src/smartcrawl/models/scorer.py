"""Score URLs with trained model directories: the crawler's neural :class:`UrlScorer`.

A model directory is what ``train.py`` saves: a Hugging Face sequence classifier and tokenizer plus
``smartcrawl.json`` (task, labels, pre-processing, max length). Empty or unparsable URLs get a
defined output (probability 0 for every language and for parallelism) without breaking the batch.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from smartcrawl.training.outputs import MODEL_CARD, PREPROCESSING
from smartcrawl.urls import is_usable, preprocess_url


class ModelDirError(ValueError):
    """A model directory that cannot serve the requested task."""


class UrlModel:
    """One trained URL classifier, batched inference on CPU or GPU."""

    def __init__(self, model_dir: str | Path, task: str, device: str | None = None, batch_size: int = 64) -> None:
        root = Path(model_dir)
        card_path = root / MODEL_CARD
        if not card_path.is_file():
            raise ModelDirError(f"{root} is not a smartcrawl model directory (no {MODEL_CARD}); train one with train.py")
        card = json.loads(card_path.read_text())
        if card.get("task") != task:
            raise ModelDirError(f"{root} holds a {card.get('task')!r} model, but a {task!r} model is needed")
        if card.get("preprocessing") != PREPROCESSING:
            raise ModelDirError(f"{root}: unknown pre-processing {card.get('preprocessing')!r}")
        self.labels: list[str] = list(card["labels"])
        self.max_length = int(card.get("max_length", 128))
        self.batch_size = batch_size
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.tokenizer = AutoTokenizer.from_pretrained(root, local_files_only=True)
        self.model = AutoModelForSequenceClassification.from_pretrained(root, local_files_only=True)
        if self.model.config.num_labels != len(self.labels):
            raise ModelDirError(
                f"{root}: label map has {len(self.labels)} labels but the model has {self.model.config.num_labels} outputs"
            )
        self.model.to(self.device).eval()
        self.task = task

    @torch.inference_mode()
    def probs(self, texts: Sequence[str], pairs: Sequence[str] | None = None) -> np.ndarray:
        """Class probabilities of pre-processed inputs, shape ``(n, len(labels))``."""
        out = np.zeros((len(texts), len(self.labels)), dtype=np.float32)
        for i in range(0, len(texts), self.batch_size):
            batch = list(texts[i : i + self.batch_size])
            pair = list(pairs[i : i + self.batch_size]) if pairs is not None else None
            enc = self.tokenizer(batch, pair, truncation=True, max_length=self.max_length, padding=True,
                                 return_tensors="pt").to(self.device)
            logits = self.model(**enc).logits.float()
            out[i : i + len(batch)] = logits.softmax(-1).cpu().numpy()
        return out


class LangidScorer:
    """URL language probabilities from a trained ``langid`` model directory."""

    def __init__(self, model_dir: str | Path, device: str | None = None, batch_size: int = 64) -> None:
        self.model = UrlModel(model_dir, "langid", device, batch_size)

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

    def __init__(self, model_dir: str | Path, device: str | None = None, batch_size: int = 64) -> None:
        self.model = UrlModel(model_dir, "parallel", device, batch_size)

    def parallel_probs(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """P(parallel) per URL pair; 0 when either URL is unusable."""
        result = np.zeros(len(pairs), dtype=np.float32)
        ok = [i for i, (a, b) in enumerate(pairs) if is_usable(a) and is_usable(b)]
        if ok:
            probs = self.model.probs([preprocess_url(pairs[i][0]) for i in ok],
                                     [preprocess_url(pairs[i][1]) for i in ok])
            result[ok] = probs[:, self.model.labels.index("parallel")]
        return result


class NeuralScorer:
    """The crawler's :class:`~smartcrawl.crawl.scoring.UrlScorer` from a langid and a parallel model directory."""

    def __init__(self, langid_dir: str | Path, parallel_dir: str | Path, device: str | None = None,
                 batch_size: int = 64) -> None:
        self.langid = LangidScorer(langid_dir, device, batch_size)
        self.parallel = ParallelScorer(parallel_dir, device, batch_size)

    def lang_probs(self, urls: Sequence[str], lang: str) -> np.ndarray:
        """P(lang(url) == ``lang``) per URL (see :meth:`LangidScorer.lang_probs`)."""
        return self.langid.lang_probs(urls, lang)

    def lang_predict(self, urls: Sequence[str]) -> list[str]:
        """The most probable language per URL (see :meth:`LangidScorer.lang_predict`)."""
        return self.langid.lang_predict(urls)

    def parallel_probs(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """P(parallel) per URL pair (see :meth:`ParallelScorer.parallel_probs`)."""
        return self.parallel.parallel_probs(pairs)
