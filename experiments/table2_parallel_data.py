"""Table 2: the URL-pair data card with the paper's best negatives.

`python experiments/table2_parallel_data.py --size small|full [--dry-run] [--skip-existing] [-- train.py overrides]`
(see smartcrawl.experiments.runner); small writes results/small/, full writes results/.
"""

from smartcrawl.experiments import main

if __name__ == "__main__":
    raise SystemExit(main("table2_parallel_data"))
