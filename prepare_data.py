"""Prepare the URL data sets: ``python prepare_data.py task=langid`` or ``task=parallel negatives=...``."""

import sys

import hydra
from omegaconf import DictConfig

from smartcrawl.data.prepare import ConfigError, run


@hydra.main(version_base="1.3", config_path="conf", config_name="prepare_data")
def main(cfg: DictConfig) -> None:
    """Hydra entry point; all the work is in :func:`smartcrawl.data.prepare.run`."""
    try:
        run(cfg)
    except ConfigError as exc:
        sys.exit(f"prepare_data: configuration error: {exc}")


if __name__ == "__main__":
    main()
