"""Command line of the crawler, configured with Hydra (``conf/crawl.yaml``).

Two doors to the same function (:func:`run_from_config`):

- ``python crawl.py pair=eng-mlt strategy=smart job_dir=runs/crawl/x 'seeds=[http://www.site.test/]' proxy=http://127.0.0.1:8080``
  (the ``@hydra.main`` entry point at the repository root, with Hydra's output dir and multirun);
- ``python -m smartcrawl.crawl.cli <the same overrides>`` (composes the same configs with Hydra's
  compose API; handy in subprocesses and tests). The config dir is ``$SMARTCRAWL_CONF_DIR``, else the
  repository's ``conf/``.

Run it again with the same ``job_dir`` to resume (seeds may then be left out). It prints the run's
summary as one JSON line and exits with 0 (130 when stopped by Ctrl-C or a signal, 2 on a configuration
error).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from smartcrawl.confdir import conf_dir
from smartcrawl.crawl.config import crawl_settings_from_mapping, strategy_from_mapping
from smartcrawl.crawl.runner import CrawlSpec, run_crawls
from smartcrawl.crawl.summary import CrawlSummary

CONFIG_NAME = "crawl"
INTERRUPTED = ("shutdown", "killed")


def read_seeds(seeds: Sequence[str] | None, seeds_file: str | None) -> list[str]:
    """Seeds from the ``seeds`` list and a ``seeds_file`` (one URL per line, ``#`` comments)."""
    out = [str(s).strip() for s in (seeds or []) if str(s).strip()]
    if seeds_file:
        for line in Path(seeds_file).read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                out.append(line)
    return list(dict.fromkeys(out))


def _plain(node: Any) -> Any:
    return OmegaConf.to_container(node, resolve=True) if OmegaConf.is_config(node) else node


def spec_from_config(cfg: DictConfig) -> CrawlSpec:
    """A :class:`~smartcrawl.crawl.runner.CrawlSpec` from the composed ``crawl`` config (scorer built if used)."""
    strategy = strategy_from_mapping(_plain(cfg.strategy))
    settings = crawl_settings_from_mapping(_plain(cfg.crawl))
    langs = [str(x) for x in _plain(cfg.pair.langs)]
    if len(langs) != 2:
        raise ValueError(f"pair.langs must hold two languages, got {langs}")
    scorer = None
    if strategy.name == "smart" and cfg.get("scorer") is not None:
        from hydra.utils import instantiate

        scorer = instantiate(cfg.scorer)
    if cfg.get("job_dir") in (None, "", "???"):
        raise ValueError("job_dir is required (job_dir=path/to/job)")
    return CrawlSpec(
        job_dir=str(cfg.job_dir), seeds=read_seeds(_plain(cfg.get("seeds")), cfg.get("seeds_file")),
        pair=(langs[0], langs[1]), strategy=strategy, settings=settings, scorer=scorer, proxy_url=cfg.get("proxy"),
    )


def run_from_config(cfg: DictConfig) -> CrawlSummary:
    """Run (or resume) the crawl a composed config describes; returns its summary."""
    return run_crawls([spec_from_config(cfg)])[0]


def report(summary: CrawlSummary) -> int:
    """Print the summary as one JSON line; the exit code (130 when interrupted, else 0)."""
    print(json.dumps(summary.to_dict(), ensure_ascii=False, sort_keys=True))
    return 130 if summary.finish_reason in INTERRUPTED else 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m smartcrawl.crawl.cli [overrides...]``: compose ``conf/crawl.yaml`` with the overrides and crawl."""
    from hydra import compose, initialize_config_dir

    overrides = list(sys.argv[1:] if argv is None else argv)
    if any(a in ("-h", "--help") for a in overrides):
        print(__doc__)
        return 0
    with initialize_config_dir(config_dir=str(conf_dir()), version_base="1.3"):
        cfg = compose(config_name=CONFIG_NAME, overrides=overrides)
    try:
        summary = run_from_config(cfg)
    except ValueError as exc:  # bad configuration, bad seeds, a job dir of another crawl
        print(f"crawl: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    return report(summary)


if __name__ == "__main__":
    sys.exit(main())
