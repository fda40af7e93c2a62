"""Table 1 (and Figure 3): data, the two baselines and ours.

`python experiments/figure3_per_language.py --size small|full [--dry-run] [--skip-existing] [-- train.py overrides]`
(see smartcrawl.experiments.runner); small writes results/small/, full writes results/.
"""

from smartcrawl.experiments import main

if __name__ == "__main__":
    raise SystemExit(main("figure3_per_language"))
