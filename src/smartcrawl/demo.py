"""``make demo``: the project's main job on the embedded default.

Prepares both URL data sets (language ID; URL-pair parallelism with the paper's best negatives)
from the real data in ``../shared/data`` when it is there, otherwise from the built-in synthetic
sample (websim), and prints the data-set cards.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import Any

from hydra import compose, initialize_config_dir

from smartcrawl.confdir import conf_dir
from smartcrawl.data.prepare import run
from smartcrawl.data.sample import write_builtin_sample

log = logging.getLogger("smartcrawl.demo")


def choose_data(shared: Path, sample_dir: Path) -> tuple[Path, str]:
    """The real data when present, else the built-in sample (built on first use)."""
    if (shared / "paracrawl-human-evals").is_dir() and (shared / "wmt16").is_dir():
        return shared, "real data"
    log.info("no real data at %s: using the built-in synthetic sample in %s", shared, sample_dir)
    return write_builtin_sample(sample_dir), "built-in websim sample"


def print_cards(langid: dict[str, Any], parallel: dict[str, Any], origin: str) -> None:
    """Print the two cards' totals as small tables."""
    print(f"\n== Data sets prepared from the {origin} ==")
    print("\nlanguage ID (URLs per split; languages: %s)" % langid["languages"])
    for split, info in langid["splits"].items():
        print(f"  {split:6s} {info['urls']:>9,d} URLs  {info['domains']:>7,d} domains")
    print(f"  rejected input: {langid['rejected_total']:,d}  duplicates: {langid['duplicates']:,d}")
    print("\nparallel URL pairs (positives / negatives per split)")
    for split, info in parallel["splits"].items():
        print(f"  {split:10s} {info['positives']:>8,d} / {info['negatives']:>8,d}")
    print(f"  negative generators: {' + '.join(parallel['negatives']['generators'])}")
    print(f"  rejected input: {parallel['rejected_total']:,d}")


def main(argv: list[str] | None = None) -> int:
    """Run the demo; returns the exit code."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--shared-data", type=Path,
                    default=Path(os.environ.get("SMARTCRAWL_SHARED_DATA", "../shared/data")))
    ap.add_argument("--out", type=Path, default=Path("data/prepared"))
    ap.add_argument("--sample-dir", type=Path, default=Path("data/sample-shared"))
    ap.add_argument("--sample-only", action="store_true", help="only (re)build the built-in sample")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.sample_only:
        write_builtin_sample(args.sample_dir)
        return 0
    data, origin = choose_data(args.shared_data, args.sample_dir)
    common = [f"paths.shared_data={data.resolve()}", f"paths.prepared_dir={args.out}"]
    if data != args.shared_data:  # keep the sample's cards away from the real results
        common.append(f"paths.results_dir={args.sample_dir.parent / 'sample-results'}")
    with initialize_config_dir(config_dir=str(conf_dir()), version_base="1.3"):
        langid = run(compose("prepare_data", overrides=["task=langid", *common]))
        parallel = run(compose("prepare_data", overrides=["task=parallel", "negatives=rand+jaccard+remove", *common]))
    print_cards(langid, parallel, origin)
    print(f"\ncards: {args.out}/langid/card.json, {args.out}/parallel/rand+jaccard+remove/card.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
