"""``train.py``: from a composed config to a trained, evaluated and saved URL classifier.

The only training module that sees a DictConfig: it validates the values and builds the objects
(encoder, data module, Lightning module, trainer), then :func:`fit_and_evaluate` does the work.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lightning as L
import pandas as pd
import torch
from lightning.pytorch.callbacks import Callback, EarlyStopping, ModelCheckpoint
from omegaconf import DictConfig, OmegaConf

from smartcrawl.eval.metrics import summary_line
from smartcrawl.pair_view import check_pair_view
from smartcrawl.training.batching import class_weights
from smartcrawl.training.curriculum import Curriculum
from smartcrawl.training.datamodule import UrlDataModule
from smartcrawl.training.inputs import TASKS, label_names
from smartcrawl.training.module import OptimSettings, UrlClassifier
from smartcrawl.training.outputs import dev_curve, save_model_dir, write_run_results

log = logging.getLogger(__name__)

MONITOR = "val/macro_f1"


class TrainConfigError(ValueError):
    """A training configuration value that cannot be used; the message names the key."""


@dataclass(frozen=True)
class RunPaths:
    """Where a run writes: checkpoints and the model (``run_dir``), small results (``results_dir``)."""

    run_dir: Path
    results_dir: Path

    @property
    def checkpoints(self) -> Path:
        """Lightning checkpoints (``last.ckpt`` for resuming, ``best.ckpt``)."""
        return self.run_dir / "checkpoints"

    @property
    def model_dir(self) -> Path:
        """The trained model, loadable with ``from_pretrained`` and by the scorer."""
        return self.run_dir / "model"


class ValidateAtMaxSteps(Callback):
    """Ends training with a validation when ``max_steps`` is reached, also in the middle of an epoch.

    Lightning leaves the epoch at ``max_steps`` without validating, so early stopping and the best
    checkpoint would find no ``val/macro_f1``; a stop asked for through ``trainer.should_stop``
    validates first.
    """

    def on_train_batch_end(self, trainer: L.Trainer, pl_module: L.LightningModule, outputs: Any, batch: Any,
                           batch_idx: int) -> None:
        """Ask to stop once the optimiser step that reaches ``max_steps`` is done."""
        if trainer.max_steps > 0 and trainer.global_step >= trainer.max_steps:
            trainer.should_stop = True


def build_trainer(
    paths: RunPaths, trainer_cfg: dict[str, Any], train_cfg: dict[str, Any], logger_cfg: dict[str, Any],
    reload_every_epoch: bool,
) -> tuple[L.Trainer, ModelCheckpoint]:
    """A Lightning Trainer with early stopping on dev macro-F1, best/last checkpoints and a logger."""
    best = ModelCheckpoint(dirpath=paths.checkpoints, filename="best", monitor=MONITOR, mode="max",
                           save_top_k=1, save_last=True, auto_insert_metric_name=False)
    callbacks: list[Any] = [ValidateAtMaxSteps(), EarlyStopping(monitor=MONITOR, mode="max",
                                                                patience=int(train_cfg["patience"])), best]
    kind = logger_cfg.get("kind", "csv")
    if kind == "csv":
        from lightning.pytorch.loggers import CSVLogger

        logger: Any = CSVLogger(save_dir=str(paths.run_dir), name="logs")
    elif kind == "wandb":
        from lightning.pytorch.loggers import WandbLogger

        logger = WandbLogger(project=logger_cfg.get("project", "smartcrawl"), save_dir=str(paths.run_dir),
                             offline=logger_cfg.get("mode", "offline") == "offline")
    else:
        raise TrainConfigError(f"logger.kind: unknown logger {kind!r}; allowed: csv, wandb")
    trainer = L.Trainer(
        accelerator=trainer_cfg["accelerator"], devices=trainer_cfg["devices"], strategy=trainer_cfg["strategy"],
        precision=trainer_cfg["precision"], max_epochs=int(train_cfg["max_epochs"]),
        max_steps=int(train_cfg.get("max_steps") or -1), max_time=train_cfg.get("max_time"),
        limit_train_batches=train_cfg.get("limit_train_batches") or 1.0,
        val_check_interval=train_cfg.get("val_check_interval") or 1.0,
        reload_dataloaders_every_n_epochs=1 if reload_every_epoch else 0,
        callbacks=callbacks, logger=logger, default_root_dir=str(paths.run_dir),
        enable_progress_bar=bool(train_cfg.get("progress_bar", True)), log_every_n_steps=10,
        num_sanity_val_steps=0,
    )
    return trainer, best


def fit_and_evaluate(
    trainer: L.Trainer, best: ModelCheckpoint, module: UrlClassifier, datamodule: UrlDataModule,
    paths: RunPaths, resume: bool, config_yaml: str, max_length: int, model_name: str,
) -> dict[str, Any]:
    """Train (resuming from ``last.ckpt`` when asked and present), test the best checkpoint, save everything."""
    started = time.perf_counter()
    last = paths.checkpoints / "last.ckpt"
    ckpt_path = str(last) if resume and last.exists() else None
    if ckpt_path:
        check_checkpoint_matches(last, module)
        log.info("resuming from %s", ckpt_path)
    trainer.fit(module, datamodule=datamodule, ckpt_path=ckpt_path)
    best_path = best.best_model_path or (str(last) if last.exists() else "")
    if best_path:
        state = torch.load(best_path, map_location="cpu", weights_only=False)
        module.load_state_dict(state["state_dict"])
    trainer.test(module, datamodule=datamodule, verbose=False)
    test = module.test_predictions
    task = datamodule.task
    predictions = predictions_frame(datamodule.splits["test"].raw, [module.labels[i] for i in test["gold"]],
                                    [module.labels[i] for i in test["pred"]], test["prob"])
    best_score = best.best_model_score
    metrics = {
        "task": task,
        "model": model_name,
        "test": test["metrics"],
        "best_dev_macro_f1": float(best_score) if best_score is not None else None,
        "epochs_completed": int(trainer.current_epoch),
        "global_steps": int(trainer.global_step),
        "stopped_early": bool(getattr(trainer.early_stopping_callback, "stopped_epoch", 0)),
        "train_examples": len(datamodule.splits["train"]),
        "curriculum": {"start": datamodule.curriculum.start, "step": datamodule.curriculum.step},
        "labels": module.labels,
        "unknown_labels_dropped": datamodule.unknown_labels,
        "seconds_this_session": round(time.perf_counter() - started, 1),
        "best_checkpoint": best_path,
        "model_dir": str(paths.model_dir),
    }
    card_extra: dict[str, Any] = {"model": model_name,
                                  "test_macro_f1": test["metrics"]["macro"]["f1"] if test["metrics"] else None}
    if task == "parallel":
        card_extra["pair_view"] = datamodule.pair_view
    save_model_dir(paths.model_dir, module.model, datamodule.collate.tokenizer, task, module.labels, max_length,
                   card_extra)
    write_run_results(paths.results_dir, config_yaml, metrics, predictions, dev_curve(paths.run_dir / "logs"))
    if test["metrics"]:
        log.info("%s test: %s", task, summary_line(test["metrics"]))
    log.info("model: %s; results: %s", paths.model_dir, paths.results_dir)
    return metrics


def check_checkpoint_matches(path: Path, module: UrlClassifier) -> None:
    """Stop with a clear error when a checkpoint to resume from holds another model (e.g. other pooling)."""
    state = torch.load(path, map_location="cpu", weights_only=False).get("state_dict", {})
    saved, wanted = set(state), set(module.state_dict())
    if saved != wanted:
        diff = sorted(saved ^ wanted)
        raise TrainConfigError(
            f"run_dir: {path} was written by a different model configuration ({len(diff)} parameter names "
            f"differ, e.g. {diff[:3]}); resume it with its own config, or start afresh with "
            f"train.resume=false or another run_name"
        )


def train_from_config(cfg: DictConfig) -> dict[str, Any]:
    """Build everything from a composed ``train`` config and run :func:`fit_and_evaluate`."""
    from smartcrawl.models.encoders import EncoderSpec, load_classifier, reinit_top_layers

    task = cfg.get("task_name")
    if task not in TASKS:
        raise TrainConfigError(f"task_name: unknown task {task!r}; allowed: {', '.join(TASKS)} (choose with task=...)")
    data_dir = Path(cfg.data.out_dir)
    train_file = data_dir / "train.parquet"
    if not train_file.exists():
        hint = f"task={task}" + (f" negatives={cfg.negatives}" if task == "parallel" else "")
        raise TrainConfigError(f"data.out_dir: {train_file} not found; run `python prepare_data.py {hint}` first")
    try:
        pair_view = check_pair_view(str(cfg.get("pair_view") or "plain"))
    except ValueError as exc:
        raise TrainConfigError(str(exc)) from exc
    tr = OmegaConf.to_container(cfg.train, resolve=True)
    model_cfg = OmegaConf.to_container(cfg.model, resolve=True)
    trainer_cfg = OmegaConf.to_container(cfg.trainer, resolve=True)
    assert isinstance(tr, dict) and isinstance(model_cfg, dict) and isinstance(trainer_cfg, dict)
    L.seed_everything(int(cfg.seed), workers=True)
    if trainer_cfg.get("threads"):
        torch.set_num_threads(int(trainer_cfg["threads"]))

    labels = label_names(task, train_file)
    try:
        spec = EncoderSpec.from_config(model_cfg)
    except ValueError as exc:
        raise TrainConfigError(f"model.encoder: {exc}") from exc
    try:
        model, tokenizer = load_classifier(spec, len(labels), id2label=dict(enumerate(labels)),
                                           pooling=str(model_cfg.get("pooling") or "cls"))
    except ValueError as exc:
        raise TrainConfigError(str(exc)) from exc
    n_reinit = int(model_cfg.get("reinit_top_layers") or 0)
    if n_reinit:
        reinit_top_layers(model, n_reinit)
    try:
        curriculum = Curriculum(cfg.curriculum.start, int(cfg.curriculum.step))
    except ValueError as exc:
        raise TrainConfigError(str(exc)) from exc
    datamodule = UrlDataModule(
        task=task, data_dir=data_dir, labels=labels, tokenizer=tokenizer, curriculum=curriculum,
        batch_size=int(tr["batch_size"]), eval_batch_size=int(tr["eval_batch_size"]),
        max_length=int(model_cfg.get("max_length") or 128), max_train=tr.get("max_train"),
        max_dev=tr.get("max_dev"), max_test=tr.get("max_test"), num_workers=int(trainer_cfg.get("num_workers") or 0),
        seed=int(cfg.seed), bucket_batches=int(tr.get("bucket_batches", 50) or 0), pair_view=pair_view,
    )
    datamodule.setup()
    first_epoch_steps = math.ceil(datamodule.train_size(0) / int(tr["batch_size"]))
    limit = tr.get("limit_train_batches")
    if isinstance(limit, int) and limit > 0:
        first_epoch_steps = min(first_epoch_steps, limit)
    o = tr["optim"]
    optim = OptimSettings(lr=float(o["lr"]), betas=tuple(o["betas"]), eps=float(o["eps"]),
                          weight_decay=float(o["weight_decay"]), warmup_fraction=float(o["warmup_fraction"]),
                          freeze_embeddings=bool(o.get("freeze_embeddings", False)))
    try:
        weights = class_weights(datamodule.splits["train"].labels, len(labels), str(tr.get("class_weights", "none")))
    except ValueError as exc:
        raise TrainConfigError(str(exc)) from exc
    if weights is not None:
        log.info("class weights (%s): %s", tr["class_weights"],
                 ", ".join(f"{n}={w:.2f}" for n, w in zip(labels, weights)))
    module = UrlClassifier(model, labels, optim, first_epoch_steps, class_weights=weights)
    paths = RunPaths(Path(cfg.run_dir), Path(cfg.results_dir))
    logger_cfg = OmegaConf.to_container(cfg.logger, resolve=True)
    assert isinstance(logger_cfg, dict)
    trainer, best = build_trainer(paths, trainer_cfg, tr, logger_cfg, curriculum.grows)
    return fit_and_evaluate(trainer, best, module, datamodule, paths, bool(tr.get("resume", True)),
                            OmegaConf.to_yaml(cfg, resolve=True), int(model_cfg.get("max_length") or 128),
                            str(model_cfg["name"]))


def predictions_frame(raw: pd.DataFrame, gold: list[str], pred: list[str], prob: list[float]) -> pd.DataFrame:
    """The test predictions file: the rows' URLs with gold and predicted labels and the top probability."""
    out = raw.copy()
    out["gold"], out["pred"], out["prob"] = gold, pred, prob
    return out
