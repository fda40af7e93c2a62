"""Evaluate crawling strategies on a test-bed web: ``python crawl_eval.py pair=eng-mlt [web=debian-docs]``.

Writes ``results/crawl/<pair>/<web>/``; all the work is in :mod:`smartcrawl.eval.crawl_experiment`.
"""

import json
import logging
import sys

import hydra
from omegaconf import DictConfig

from smartcrawl.eval.crawl_experiment import crawl_eval_from_config, run_crawl_eval


@hydra.main(version_base="1.3", config_path="conf", config_name="crawl_eval")
def main(cfg: DictConfig) -> None:
    """Hydra entry point: build the evaluation from the config, run it, print the headline numbers."""
    logging.getLogger("smartcrawl").setLevel(logging.INFO)
    try:
        summary = run_crawl_eval(crawl_eval_from_config(cfg))
    except ValueError as exc:  # bad configuration
        sys.exit(f"crawl_eval: {type(exc).__name__}: {exc}")
    head = {label: {k: s[k] for k in ("found_total", "auc_share_oracle", "pages_per_s", "scoring_share")}
            for label, s in summary["strategies"].items()}
    print(json.dumps({"results": str(cfg.results_root), "pair": summary["pair"], "web": summary["web"],
                      "strategies": head}, ensure_ascii=False))


if __name__ == "__main__":
    main()
