"""``make demo``: the whole pipeline on the embedded default, end to end, on a 2-core CPU.

1. prepare both URL data sets (from ``../shared/data`` when it is there, else from the built-in
   websim sample);
2. train both classifiers quickly (me5-small cut to 2 layers, frozen word embeddings, one or two
   epochs on a capped sample: a demonstration of the pipeline, not the paper's models; pass
   ``--langid-dir/--parallel-dir`` to use trained ones);
3. crawl a websim web for one pair with bfs, +CLD2 and +CLD2+smart (the neural scorer) and print
   the parallel documents found by decile, with the path of the Figure-7-style plot.

Outputs of the demo live under ``runs/demo/`` (never under ``results/``, which holds real runs).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

from hydra import compose, initialize_config_dir

from smartcrawl.confdir import conf_dir
from smartcrawl.data.prepare import run as prepare
from smartcrawl.data.sample import write_builtin_sample

log = logging.getLogger("smartcrawl.demo")

# Small and fast on 2 cores: a capped sample, a 2-layer pretrained encoder, one epoch. A shallow
# encoder with frozen embeddings learns URL markers quickly at a higher learning rate than the paper's.
TRAIN_OVERRIDES: tuple[str, ...] = (
    "model=me5-small-2l", "train.optim.freeze_embeddings=true", "curriculum=none",
    "train.max_train=8000", "train.max_dev=500", "train.max_test=2000", "train.batch_size=32",
    "train.optim.lr=5e-4", "train.progress_bar=false", "trainer.threads=2",
)
# Pairs are longer inputs (two URLs), so the parallel classifier gets one epoch to keep the demo short.
EPOCHS: dict[str, int] = {"langid": 2, "parallel": 1}


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


def prepare_step(data: Path, prepared: Path, results: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Prepare both data sets; returns their cards."""
    common = [f"paths.shared_data={data.resolve()}", f"paths.prepared_dir={prepared}", f"paths.results_dir={results}"]
    with initialize_config_dir(config_dir=str(conf_dir()), version_base="1.3"):
        langid = prepare(compose("prepare_data", overrides=["task=langid", *common]))
        parallel = prepare(compose("prepare_data", overrides=["task=parallel", "negatives=rand+jaccard+remove", *common]))
    return langid, parallel


def train_step(prepared: Path, work: Path) -> dict[str, dict[str, Any]]:
    """Train the tiny langid and parallel classifiers; returns their metrics (with ``model_dir``)."""
    from smartcrawl.training.run import train_from_config

    out = {}
    for task, data_dir in (("langid", prepared / "langid"), ("parallel", prepared / "parallel" / "rand+jaccard+remove")):
        overrides = [f"task={task}", f"data.out_dir={data_dir}", f"run_dir={work / 'runs' / task}",
                     f"results_dir={work / 'results' / task}", f"train.max_epochs={EPOCHS[task]}", *TRAIN_OVERRIDES]
        with initialize_config_dir(config_dir=str(conf_dir()), version_base="1.3"):
            out[task] = train_from_config(compose("train", overrides=overrides))
    return out


def crawl_step(pair: str, langid_dir: str, parallel_dir: str, work: Path, n_sites: int, n_pages: int) -> dict[str, Any]:
    """Crawl a websim web with the three strategies; returns the crawl_eval summary."""
    from smartcrawl.eval.crawl_experiment import crawl_eval_from_config, run_crawl_eval

    overrides = [
        f"pair={pair}", "web=websim", f"web.n_sites={n_sites}", f"web.n_pages={n_pages}", "scorer=neural",
        f"scorer.langid_dir={langid_dir}", f"scorer.parallel_dir={parallel_dir}", "scorer.device=cpu",
        f"results_root={work / 'results' / 'crawl'}", f"work_root={work / 'crawl'}",
    ]
    with initialize_config_dir(config_dir=str(conf_dir()), version_base="1.3"):
        return run_crawl_eval(crawl_eval_from_config(compose("crawl_eval", overrides=overrides)))


def main(argv: list[str] | None = None) -> int:
    """Run the demo; returns the exit code."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared-data", type=Path,
                    default=Path(os.environ.get("SMARTCRAWL_SHARED_DATA", "../shared/data")))
    ap.add_argument("--work", type=Path, default=Path("runs/demo"), help="where the demo writes everything")
    ap.add_argument("--pair", default="eng-mlt", help="language pair of the crawl (conf/pair/)")
    ap.add_argument("--sites", type=int, default=12, help="websim sites to crawl")
    ap.add_argument("--pages", type=int, default=3000, help="websim pages over all sites")
    ap.add_argument("--langid-dir", default=None, help="use this trained langid model instead of training one")
    ap.add_argument("--parallel-dir", default=None, help="use this trained parallel model instead of training one")
    ap.add_argument("--prepare-only", action="store_true", help="stop after preparing the data sets")
    ap.add_argument("--sample-only", action="store_true", help="only (re)build the built-in sample")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    started = time.perf_counter()
    if args.sample_only:
        write_builtin_sample(args.work / "sample-shared")
        return 0
    data, origin = choose_data(args.shared_data, args.work / "sample-shared")
    langid, parallel = prepare_step(data, args.work / "prepared", args.work / "results")
    print_cards(langid, parallel, origin)
    if args.prepare_only:
        return 0
    if args.langid_dir and args.parallel_dir:
        langid_dir, parallel_dir = args.langid_dir, args.parallel_dir
        trained = None
    else:
        trained = train_step(args.work / "prepared", args.work)
        langid_dir, parallel_dir = trained["langid"]["model_dir"], trained["parallel"]["model_dir"]
    summary = crawl_step(args.pair, langid_dir, parallel_dir, args.work, args.sites, args.pages)
    if trained:
        print("\n== Classifiers (me5-small, 2 layers, demo-sized training) ==")
        for task, m in trained.items():
            f1 = m["test"]["macro"]["f1"] if m["test"] else float("nan")
            print(f"  {task:9s} test macro-F1 {f1:6.2f}  ({m['train_examples']:,d} training examples, "
                  f"{m['epochs_completed']} epochs)  model: {m['model_dir']}")
    out = args.work / "results" / "crawl" / args.pair / summary["web"]
    print(f"\n== Crawl of websim ({args.pair}): parallel documents found by share of each site's downloads ==\n")
    print((out / "table.md").read_text())
    print(f"figure: {out / 'figure.png'}")
    print(f"\ndemo finished in {time.perf_counter() - started:.0f} s; everything is under {args.work}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
