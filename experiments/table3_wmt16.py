"""Table 3: WMT16 recall of the URL-matching baseline and of ours.

`python experiments/table3_wmt16.py --size small|full [--dry-run] [--skip-existing] [-- train.py overrides]`
(see smartcrawl.experiments.runner); small writes results/small/, full writes results/.
"""

from smartcrawl.experiments import main

if __name__ == "__main__":
    raise SystemExit(main("table3_wmt16"))
