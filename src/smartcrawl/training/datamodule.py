"""LightningDataModule over the prepared Parquet splits, with the fold-growing curriculum."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import lightning as L
import torch
from torch.utils.data import DataLoader, Dataset
from transformers import PreTrainedTokenizerBase

from smartcrawl.training.batching import LengthBucketBatchSampler
from smartcrawl.training.curriculum import Curriculum
from smartcrawl.training.inputs import Examples, load_examples

log = logging.getLogger(__name__)


class _ExampleDataset(Dataset):
    def __init__(self, examples: Examples, size: int | None = None) -> None:
        self.examples = examples
        self.size = len(examples) if size is None else min(size, len(examples))

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int) -> tuple[str, str | None, int]:
        ex = self.examples
        return ex.texts[i], (ex.pairs[i] if ex.pairs is not None else None), ex.labels[i]


class Collator:
    """Tokenises a batch of (text, pair, label) items into model inputs."""

    def __init__(self, tokenizer: PreTrainedTokenizerBase, max_length: int) -> None:
        self.tokenizer = tokenizer
        self.max_length = max_length

    def __call__(self, batch: list[tuple[str, str | None, int]]) -> dict[str, torch.Tensor]:
        texts = [b[0] for b in batch]
        pairs = [b[1] or "" for b in batch] if batch[0][1] is not None else None
        enc = self.tokenizer(
            texts, pairs, truncation=True, max_length=self.max_length, padding=True, return_tensors="pt"
        )
        enc["labels"] = torch.tensor([b[2] for b in batch], dtype=torch.long)
        return dict(enc)


class UrlDataModule(L.LightningDataModule):
    """Train/dev/test loaders of one task; the training set grows per epoch with the curriculum."""

    def __init__(
        self,
        task: str,
        data_dir: str | Path,
        labels: list[str],
        tokenizer: PreTrainedTokenizerBase,
        curriculum: Curriculum,
        batch_size: int = 32,
        eval_batch_size: int = 64,
        max_length: int = 128,
        max_train: int | None = None,
        max_dev: int | None = None,
        max_test: int | None = None,
        num_workers: int = 0,
        seed: int = 1234,
        bucket_batches: int = 50,
        pair_view: str = "plain",
    ) -> None:
        super().__init__()
        self.task = task
        self.data_dir = Path(data_dir)
        self.labels = labels
        self.collate = Collator(tokenizer, max_length)
        self.curriculum = curriculum
        self.batch_size = batch_size
        self.eval_batch_size = eval_batch_size
        self.limits = {"train": max_train, "dev": max_dev, "test": max_test}
        self.num_workers = num_workers
        self.seed = seed
        self.bucket_batches = bucket_batches  # 0 = plain shuffled batches (no length bucketing)
        self.pair_view = pair_view
        self.splits: dict[str, Examples] = {}
        self.unknown_labels: dict[str, int] = {}

    def setup(self, stage: str | None = None) -> None:
        """Load the splits once."""
        for split in ("train", "dev", "test"):
            if split in self.splits:
                continue
            path = self.data_dir / f"{split}.parquet"
            if not path.exists():
                raise FileNotFoundError(f"{path} not found: run `python prepare_data.py task={self.task}` first")
            self.splits[split], self.unknown_labels[split] = load_examples(
                self.task, path, self.labels, self.limits[split], self.pair_view
            )
            log.info("%s %s: %d examples (%d with labels unseen in train dropped)",
                     self.task, split, len(self.splits[split]), self.unknown_labels[split])

    def train_size(self, epoch: int) -> int:
        """Examples used by the curriculum in ``epoch``."""
        return self.curriculum.size(epoch, len(self.splits["train"]))

    def train_dataloader(self) -> DataLoader:
        """The curriculum's prefix of the training set for the current epoch, shuffled (length-bucketed)."""
        epoch = self.trainer.current_epoch if self.trainer is not None else 0
        size = self.train_size(epoch)
        dataset = _ExampleDataset(self.splits["train"], size)
        if self.bucket_batches > 0:
            sampler = LengthBucketBatchSampler(self.lengths("train")[:size], self.batch_size, self.seed + epoch,
                                               self.bucket_batches)
            return DataLoader(dataset, batch_sampler=sampler, collate_fn=self.collate, num_workers=self.num_workers)
        generator = torch.Generator().manual_seed(self.seed + epoch)
        return DataLoader(dataset, batch_size=self.batch_size, shuffle=True, generator=generator,
                          collate_fn=self.collate, num_workers=self.num_workers)

    def lengths(self, split: str) -> list[int]:
        """Character length of each input of ``split`` (both URLs of a pair): the bucketing key."""
        ex = self.splits[split]
        if ex.pairs is None:
            return [len(t) for t in ex.texts]
        return [len(a) + len(b) for a, b in zip(ex.texts, ex.pairs)]

    def val_dataloader(self) -> DataLoader:
        """The dev split."""
        return self._eval_loader("dev")

    def test_dataloader(self) -> DataLoader:
        """The test split."""
        return self._eval_loader("test")

    def _eval_loader(self, split: str) -> DataLoader:
        # File order, since predictions are written row by row; evaluation is a small share of the time.
        return DataLoader(_ExampleDataset(self.splits[split]), batch_size=self.eval_batch_size, shuffle=False,
                          collate_fn=self.collate, num_workers=self.num_workers)

    def state_dict(self) -> dict[str, Any]:
        """Nothing to save beyond the trainer's epoch: the curriculum is a function of it."""
        return {}
