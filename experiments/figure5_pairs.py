"""Table 4 (and Figure 5): pair data, the URL-matching baseline and ours.

`python experiments/figure5_pairs.py --size small|full [--dry-run] [--skip-existing] [-- train.py overrides]`
(see smartcrawl.experiments.runner); small writes results/small/, full writes results/.
"""

from smartcrawl.experiments import main

if __name__ == "__main__":
    raise SystemExit(main("figure5_pairs"))
