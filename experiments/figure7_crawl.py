"""Figure 7: crawl the four pairs' websim webs (the neural scorer needs both models: trained here or given).

`python experiments/figure7_crawl.py --size small|full [--dry-run] [--skip-existing] [-- train.py overrides]`
(see smartcrawl.experiments.runner); small writes results/small/, full writes results/.
"""

from smartcrawl.experiments import main

if __name__ == "__main__":
    raise SystemExit(main("figure7_crawl"))
