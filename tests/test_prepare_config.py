"""prepare_data configs: every option composes, and wrong values stop with a message naming the key."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import DictConfig

from smartcrawl.data.prepare import ConfigError, run, source_specs


def _compose(repo_root: Path, overrides: list[str]) -> DictConfig:
    with initialize_config_dir(config_dir=str(repo_root / "conf"), version_base="1.3"):
        return compose(config_name="prepare_data", overrides=overrides)


@pytest.mark.parametrize("task", ["langid", "parallel"])
def test_every_task_composes(repo_root: Path, task: str) -> None:
    cfg = _compose(repo_root, [f"task={task}", "paths.shared_data=/data/x"])
    assert cfg.task_name == task
    assert cfg.data.sources[0].path == "/data/x/paracrawl-human-evals"
    assert f"/{task}" in cfg.data.out_dir


def test_missing_source_names_key(repo_root: Path, tmp_path: Path) -> None:
    cfg = _compose(repo_root, ["task=langid", f"paths.shared_data={tmp_path}/nowhere"])
    with pytest.raises(ConfigError, match=r"data\.sources\[0\]\.path: .*paths\.shared_data"):
        run(cfg)


def test_bad_kind_names_allowed(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"data\.sources\[0\]\.kind: unknown source kind 'csv'; allowed: .*paracrawl"):
        source_specs([{"kind": "csv", "path": str(tmp_path)}], "data.sources")


def test_bad_split_fractions(repo_root: Path, tmp_path: Path) -> None:
    cfg = _compose(repo_root, ["task=langid", "data.splits.train=0.9"])
    with pytest.raises(ConfigError, match=r"data\.splits: .*sum to 1"):
        run(cfg)


def test_bad_negatives_names_allowed(repo_root: Path, shared_data: Path, tmp_path: Path) -> None:
    cfg = _compose(repo_root, ["task=parallel", "negatives=rand+bogus", f"paths.shared_data={shared_data}",
                               f"paths.prepared_dir={tmp_path}"])
    with pytest.raises(ConfigError, match=r"negatives: .*bogus.*allowed"):
        run(cfg)


def test_cli_reports_config_error(repo_root: Path, tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "prepare_data.py", "task=langid", f"paths.shared_data={tmp_path}/missing",
         f"hydra.run.dir={tmp_path}/hydra"],
        cwd=repo_root, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode != 0
    assert "configuration error: data.sources[0].path" in proc.stderr


def test_cli_unknown_task_lists_options(repo_root: Path, tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "prepare_data.py", "task=bogus", f"hydra.run.dir={tmp_path}/hydra"],
        cwd=repo_root, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode != 0
    assert "langid" in proc.stderr and "parallel" in proc.stderr


def test_bad_fallback_names_key(repo_root: Path, shared_data: Path, tmp_path: Path) -> None:
    cfg = _compose(repo_root, ["task=parallel", "data.fallback=everywhere", f"paths.shared_data={shared_data}",
                               f"paths.prepared_dir={tmp_path}"])
    with pytest.raises(ConfigError, match=r"data\.fallback: unknown value 'everywhere'; allowed: pair, none"):
        run(cfg)
