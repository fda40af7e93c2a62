"""Crawl one language pair: ``python crawl.py pair=eng-mlt strategy=smart job_dir=... 'seeds=[...]' proxy=...``."""

import sys

import hydra
from omegaconf import DictConfig

from smartcrawl.crawl.cli import report, run_from_config


@hydra.main(version_base="1.3", config_path="conf", config_name="crawl")
def main(cfg: DictConfig) -> None:
    """Hydra entry point; all the work is in :func:`smartcrawl.crawl.cli.run_from_config`."""
    try:
        code = report(run_from_config(cfg))
    except ValueError as exc:  # bad configuration, bad seeds, a job dir of another crawl
        sys.exit(f"crawl: {type(exc).__name__}: {exc}")
    if code:
        sys.exit(code)


if __name__ == "__main__":
    main()
