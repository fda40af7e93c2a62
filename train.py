"""Train and evaluate a URL classifier: ``python train.py task=langid`` or ``task=parallel negatives=...``."""

import sys

import hydra
from omegaconf import DictConfig

from smartcrawl.training.run import TrainConfigError, train_from_config


@hydra.main(version_base="1.3", config_path="conf", config_name="train")
def main(cfg: DictConfig) -> None:
    """Hydra entry point; the work is in :func:`smartcrawl.training.run.train_from_config`."""
    try:
        train_from_config(cfg)
    except TrainConfigError as exc:
        sys.exit(f"train: configuration error: {exc}")


if __name__ == "__main__":
    main()
