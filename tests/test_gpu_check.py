"""The GPU training check: skips cleanly without CUDA, and its composed configs train one bf16 step on CPU."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import torch
from omegaconf import OmegaConf


def _load(repo_root: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("gpu_check", repo_root / "benchmarks" / "gpu_check.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gpu_check_runs_or_skips(repo_root: Path) -> None:
    proc = subprocess.run([sys.executable, str(repo_root / "benchmarks" / "gpu_check.py")], cwd=repo_root,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    expected = "OK: trainer=gpu" if torch.cuda.is_available() else "SKIPPED: no CUDA device"
    assert expected in proc.stdout


@pytest.mark.parametrize("trainer", ["gpu", "ddp"])
def test_gpu_configs_train_one_bf16_step_on_cpu(repo_root: Path, tmp_path: Path, trainer: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert _load(repo_root).check(trainer, 1, tmp_path, on_cpu=True) == 0
    assert f"OK: trainer={trainer} precision=bf16-mixed" in capsys.readouterr().out


def test_trainer_configs(repo_root: Path) -> None:
    gpu = OmegaConf.load(repo_root / "conf" / "trainer" / "gpu.yaml")
    ddp = OmegaConf.load(repo_root / "conf" / "trainer" / "ddp.yaml")
    assert gpu.accelerator == "gpu" and gpu.precision == "bf16-mixed" and gpu.devices == 1
    assert ddp.accelerator == "gpu" and ddp.strategy == "ddp" and ddp.precision == "bf16-mixed"
