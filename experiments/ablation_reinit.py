"""Re-initialise the top n = 0..5 layers before fine-tuning (language ID).

`python experiments/ablation_reinit.py --size small|full [--dry-run] [--skip-existing] [-- train.py overrides]`
(see smartcrawl.experiments.runner); small writes results/small/, full writes results/.
"""

from smartcrawl.experiments import main

if __name__ == "__main__":
    raise SystemExit(main("ablation_reinit"))
