"""experiments/: every script plans its steps in both settings, and every Hydra step composes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from smartcrawl.analysis.items import ITEMS
from smartcrawl.experiments.plan import EXPERIMENTS, SIZES, Settings, negative_combinations, plan
from smartcrawl.experiments.runner import main
from smartcrawl.experiments.score_pairs import evaluate
from smartcrawl.experiments.subset_pairs import subset_lines

HYDRA_APPS = {"train.py": "train", "prepare_data.py": "prepare_data", "crawl_eval.py": "crawl_eval"}


def test_one_script_per_experiment(repo_root: Path) -> None:
    scripts = {p.stem for p in (repo_root / "experiments").glob("*.py")}
    assert set(EXPERIMENTS) <= scripts
    for item in ITEMS:  # the report's "produce with" commands name real scripts
        for cmd in item.experiments:
            assert (repo_root / cmd.split()[1]).is_file(), cmd


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_steps_compose(repo_root: Path, name: str, size: str, tmp_path: Path) -> None:
    settings = Settings(size=size, shared_data=tmp_path / "data", python="python",
                        combos=("rand_bi", "jaccard_mono+remove_mono") if name == "appendix_a_negatives" else None)
    steps = plan(name, settings)
    assert steps
    results = Path("results") if size == "full" else Path("results/small")
    for step in steps:
        assert step.done is not None
        app = HYDRA_APPS.get(step.argv[1])
        if app is None:
            continue
        overrides = [a for a in step.argv[2:] if not a.startswith(("paths.", "run_dir="))]
        with initialize_config_dir(config_dir=str(repo_root / "conf"), version_base="1.3"):
            cfg = compose(config_name=app, overrides=[*overrides, f"paths.results_dir={results}"])
        if app == "train":
            assert str(cfg.results_dir).startswith(str(results)), step.argv
            if size == "full":
                assert cfg.model.name == "xlmr-base"


def test_small_runs_stay_apart_from_full(tmp_path: Path) -> None:
    small = Settings(size="small", shared_data=tmp_path)
    for name in EXPERIMENTS:
        for step in plan(name, small):
            joined = " ".join(step.argv)
            assert "results/small" in joined or "runs/small" in joined, joined
            assert "paths.results_dir=results " not in joined + " "


def test_appendix_a_has_every_combination() -> None:
    combos = negative_combinations("full")
    assert len(combos) == 63 and len(set(combos)) == 63
    assert "rand_bi+rand_mono+jaccard_bi+jaccard_mono+remove_bi" in combos
    assert len(negative_combinations("small")) == 3


def test_dry_run_cli(repo_root: Path, tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "experiments/ablation_reinit.py", "--size", "small", "--dry-run",
                          "--shared-data", str(tmp_path / "none")], cwd=repo_root, capture_output=True, text=True,
                         check=True).stdout
    assert "smartcrawl.demo --sample-only" in out  # no real data: the built-in sample
    assert all(f"model.reinit_top_layers={n}" in out for n in range(6))


def test_only_and_extra_overrides(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "wmt16").mkdir()
    assert main("table1_langid", ["--size", "full", "--dry-run", "--shared-data", str(tmp_path), "--only",
                                  "train-langid-xlmr-base", "--", "model.path=/m/xlmr"]) == 0
    out = capsys.readouterr().out
    assert "[1/1] train-langid-xlmr-base" in out and out.rstrip().endswith("model.path=/m/xlmr")
    with pytest.raises(SystemExit, match="unknown steps"):
        main("table1_langid", ["--dry-run", "--only", "nope"])


def test_subset_pairs_keeps_small_sites() -> None:
    lines = [f"http://a.com/en/{i}\thttp://a.com/fr/{i}\n" for i in range(3)]
    lines += [f"http://big.org/en/{i}\thttp://big.org/fr/{i}\n" for i in range(50)]
    lines += ["http://c.net/en/x\thttp://c.net/fr/x\n"]
    assert subset_lines(lines, max_domains=5, max_pairs_per_domain=40) == lines[:3] + lines[-1:]
    assert subset_lines(lines, max_domains=1, max_pairs_per_domain=40) == lines[:3]


def test_score_pairs_metrics() -> None:
    df = pd.DataFrame({"src_url": ["a", "b", "c", "d"], "trg_url": ["e", "f", "g", "h"], "label": [1, 0, 1, 0],
                       "pair": ["eng-fra", "eng-eng", "eng-mlt", "eng-mlt"],
                       "origin_pair": ["eng-fra", "eng-fra", "eng-mlt", "eng-mlt"]})
    metrics, pred = evaluate(df, [0.9, 0.2, 0.4, 0.1])
    assert metrics["test"]["per_class"]["parallel"]["recall"] == 50.0
    assert set(metrics["test"]["by_pair"]) == {"eng-fra", "eng-mlt"}
    assert pred["pred"].tolist() == ["parallel", "non-parallel", "non-parallel", "non-parallel"]
