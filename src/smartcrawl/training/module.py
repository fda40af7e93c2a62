"""The LightningModule of both URL classifiers: a sequence classifier, cross-entropy, AdamW, warm-up."""

from __future__ import annotations

from dataclasses import dataclass

import lightning as L
import torch
from transformers import PreTrainedModel

from smartcrawl.eval.metrics import classification_metrics
from smartcrawl.training.schedule import build_optimizer, warmup_inverse_sqrt


@dataclass(frozen=True)
class OptimSettings:
    """AdamW and schedule settings (the paper's values by default)."""

    lr: float = 1e-5
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8
    weight_decay: float = 0.01
    warmup_fraction: float = 0.1  # of the first epoch's optimiser steps
    freeze_embeddings: bool = False


class UrlClassifier(L.LightningModule):
    """Fine-tunes a Hugging Face sequence classifier on URLs (one per example, or a pair).

    Logs ``train/loss``, ``val/loss``, ``val/macro_f1`` (percent) and keeps the test predictions
    in :attr:`test_predictions` after ``trainer.test``.
    """

    def __init__(
        self, model: PreTrainedModel, labels: list[str], optim: OptimSettings, first_epoch_steps: int,
        class_weights: list[float] | None = None,
    ) -> None:
        super().__init__()
        if class_weights is not None and len(class_weights) != len(labels):
            raise ValueError(f"class_weights: {len(class_weights)} weights for {len(labels)} labels")
        # A buffer, so the weights follow the module to the GPU and into checkpoints.
        self.register_buffer("class_weights", None if class_weights is None else torch.tensor(class_weights))
        self.model = model
        self.labels = labels
        self.optim = optim
        self.first_epoch_steps = max(1, first_epoch_steps)
        self._eval_preds: list[torch.Tensor] = []
        self._eval_gold: list[torch.Tensor] = []
        self._eval_probs: list[torch.Tensor] = []
        self.test_predictions: dict[str, list] = {}
        # from_pretrained returns modules in eval mode and Lightning keeps the modes it finds:
        # without this, dropout would stay off during training.
        self.model.train()
        if optim.freeze_embeddings:
            for p in self.model.get_input_embeddings().parameters():
                p.requires_grad_(False)

    def forward(self, **batch: torch.Tensor) -> torch.Tensor:
        """Logits of a tokenised batch (``labels`` ignored if present)."""
        batch = {k: v for k, v in batch.items() if k != "labels"}
        return self.model(**batch).logits

    def training_step(self, batch: dict[str, torch.Tensor], batch_idx: int) -> torch.Tensor:
        """Cross-entropy on one batch."""
        logits = self(**batch)
        loss = torch.nn.functional.cross_entropy(logits, batch["labels"], weight=self.class_weights)
        self.log("train/loss", loss, prog_bar=True, batch_size=len(batch["labels"]))
        return loss

    def _eval_step(self, batch: dict[str, torch.Tensor], stage: str) -> None:
        logits = self(**batch)
        loss = torch.nn.functional.cross_entropy(logits, batch["labels"])
        self.log(f"{stage}/loss", loss, batch_size=len(batch["labels"]))
        probs = logits.float().softmax(-1)
        self._eval_preds.append(probs.argmax(-1).cpu())
        self._eval_gold.append(batch["labels"].cpu())
        self._eval_probs.append(probs.max(-1).values.cpu())

    def _eval_end(self, stage: str) -> dict:
        preds = torch.cat(self._eval_preds).tolist() if self._eval_preds else []
        gold = torch.cat(self._eval_gold).tolist() if self._eval_gold else []
        probs = torch.cat(self._eval_probs).tolist() if self._eval_probs else []
        self._eval_preds, self._eval_gold, self._eval_probs = [], [], []
        if not gold:  # e.g. an empty split or a sanity-check run without batches
            return {"gold": [], "pred": [], "prob": [], "metrics": None}
        # Averaged over the gold classes, like every baseline (see smartcrawl.eval.metrics).
        metrics = classification_metrics([self.labels[i] for i in gold], [self.labels[i] for i in preds])
        self.log(f"{stage}/macro_f1", metrics["macro"]["f1"], prog_bar=True)
        self.log(f"{stage}/accuracy", metrics["accuracy"])
        return {"gold": gold, "pred": preds, "prob": probs, "metrics": metrics}

    def validation_step(self, batch: dict[str, torch.Tensor], batch_idx: int) -> None:
        """Collect dev predictions."""
        self._eval_step(batch, "val")

    def on_validation_epoch_end(self) -> None:
        """Dev macro-F1 (the early-stopping and checkpoint criterion)."""
        self._eval_end("val")

    def test_step(self, batch: dict[str, torch.Tensor], batch_idx: int) -> None:
        """Collect test predictions."""
        self._eval_step(batch, "test")

    def on_test_epoch_end(self) -> None:
        """Test metrics; keeps the predictions for the run's outputs."""
        self.test_predictions = self._eval_end("test")

    def configure_optimizers(self) -> dict:
        """AdamW + warm-up over ``warmup_fraction`` of the first epoch's steps, then 1/sqrt decay."""
        decay, no_decay = [], []
        for name, p in self.model.named_parameters():
            if not p.requires_grad:
                continue
            (no_decay if p.ndim < 2 or "LayerNorm" in name or "bias" in name else decay).append(p)
        o = self.optim
        optimizer = build_optimizer(
            [{"params": decay, "weight_decay": o.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
            lr=o.lr, betas=o.betas, eps=o.eps, weight_decay=o.weight_decay,
        )
        warmup = max(1, int(round(o.warmup_fraction * self.first_epoch_steps)))
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, warmup_inverse_sqrt(warmup))
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "step"}}
