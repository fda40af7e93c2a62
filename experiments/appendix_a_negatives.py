"""Appendix A: per combination, prepare, train, score on WMT16 and on the fixed all-generator test split.

`python experiments/appendix_a_negatives.py --size small|full [--dry-run] [--skip-existing] [-- train.py overrides]`
(see smartcrawl.experiments.runner); small writes results/small/, full writes results/.
"""

from smartcrawl.experiments import main

if __name__ == "__main__":
    raise SystemExit(main("appendix_a_negatives"))
