"""The fold-growing curriculum against all training data in every epoch (language ID).

`python experiments/ablation_curriculum.py --size small|full [--dry-run] [--skip-existing] [-- train.py overrides]`
(see smartcrawl.experiments.runner); small writes results/small/, full writes results/.
"""

from smartcrawl.experiments import main

if __name__ == "__main__":
    raise SystemExit(main("ablation_curriculum"))
