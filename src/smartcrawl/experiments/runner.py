"""Command line of every ``experiments/<name>.py`` script: print or run an experiment's steps.

::

    python experiments/table1_langid.py --size small --dry-run      # print the commands
    python experiments/table1_langid.py --size small                 # run them (minutes, results/small/)
    python experiments/table1_langid.py --size full -- model.path=/models/xlm-roberta-base
    python experiments/figure7_crawl.py --size full --scorer rules   # model-free crawl
    python experiments/appendix_a_negatives.py --size small --combos rand_bi rand_bi+jaccard_bi

Run from the repository root. Arguments after ``--`` are extra ``train.py`` overrides. With
``--skip-existing``, a step whose output exists (its ``metrics.json``, data card, ...) is skipped.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from smartcrawl.experiments.plan import EXPERIMENTS, PAIRS, SIZES, Settings, Step, plan, unique


def parse_args(name: str, argv: Sequence[str]) -> tuple[argparse.Namespace, list[str]]:
    """Options before ``--`` and the ``train.py`` overrides after it."""
    args = list(argv)
    extra: list[str] = []
    if "--" in args:
        cut = args.index("--")
        args, extra = args[:cut], args[cut + 1:]
    doc = (EXPERIMENTS[name].__doc__ or "").strip()
    ap = argparse.ArgumentParser(prog=f"experiments/{name}.py", description=f"{doc}\n\n{__doc__}",
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", choices=SIZES, default="small", help="small: minutes on a CPU; full: the paper's")
    ap.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    ap.add_argument("--skip-existing", action="store_true", help="skip steps whose output exists")
    ap.add_argument("--only", nargs="+", default=None, metavar="STEP", help="run only these steps (by name)")
    ap.add_argument("--shared-data", type=Path,
                    default=Path(os.environ.get("SMARTCRAWL_SHARED_DATA", "../shared/data")),
                    help="the public data sets (small: the built-in websim sample when absent)")
    ap.add_argument("--lett", type=Path, default=None, help="WMT16 .lett files (soft recall; Table 3, Appendix A)")
    ap.add_argument("--scorer", choices=["neural", "rules"], default="neural", help="Figure 7: the smart scorer")
    ap.add_argument("--langid-dir", type=Path, default=None, help="Figure 7: a trained langid model (else trained)")
    ap.add_argument("--parallel-dir", type=Path, default=None, help="Figure 7: a trained pair model (else trained)")
    ap.add_argument("--pairs", nargs="+", default=list(PAIRS), help="Figure 7: language pairs")
    ap.add_argument("--combos", nargs="+", default=None, help="Appendix A: negative combinations (default: all / 3)")
    return ap.parse_args(args), extra


def settings_from(ns: argparse.Namespace, extra: Sequence[str]) -> Settings:
    """:class:`Settings` from parsed options; the small setting falls back to the built-in sample."""
    shared = ns.shared_data
    needs_sample = False
    if not (shared / "wmt16").is_dir():
        if ns.size == "full":
            raise SystemExit(f"--shared-data {shared}: not found (the full setting needs the real data)")
        needs_sample, shared = True, Path("runs/small/sample-shared")
    return Settings(size=ns.size, shared_data=shared, train_extra=tuple(extra), lett=ns.lett, scorer=ns.scorer,
                    langid_dir=ns.langid_dir, parallel_dir=ns.parallel_dir, pairs=tuple(ns.pairs),
                    combos=tuple(ns.combos) if ns.combos else None, needs_sample=needs_sample)


def run_steps(steps: Sequence[Step], dry_run: bool, skip_existing: bool) -> int:
    """Print each step's command and run it (unless ``dry_run``); stops at the first failure."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    for i, step in enumerate(steps, 1):
        done = step.done is not None and step.done.exists()
        mark = " (done, skipped)" if skip_existing and done else ""
        print(f"[{i}/{len(steps)}] {step.name}{mark}\n    {shlex.join(step.argv)}", flush=True)
        if dry_run or (skip_existing and done):
            continue
        started = time.perf_counter()
        rc = subprocess.run(list(step.argv), env={**env, **step.env}, check=False).returncode
        print(f"    -> exit {rc} in {time.perf_counter() - started:.0f} s", flush=True)
        if rc != 0:
            return rc
    return 0


def main(name: str, argv: Sequence[str] | None = None) -> int:
    """Entry point of ``experiments/<name>.py``."""
    ns, extra = parse_args(name, sys.argv[1:] if argv is None else argv)
    steps = unique(plan(name, settings_from(ns, extra)))
    if ns.only:
        unknown = set(ns.only) - {s.name for s in steps}
        if unknown:
            raise SystemExit(f"--only: unknown steps {sorted(unknown)}; steps: {[s.name for s in steps]}")
        steps = [s for s in steps if s.name in ns.only]
    return run_steps(steps, ns.dry_run, ns.skip_existing)
