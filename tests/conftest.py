"""Shared test fixtures: the repository root, the real data (when present) and offline settings."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("SMARTCRAWL_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("WANDB_MODE", "offline")


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository root."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data``; skips the test when it is absent (a user's fresh clone)."""
    if not (SHARED_DATA / "wmt16").is_dir():
        pytest.skip(f"real data not found at {SHARED_DATA} (set SMARTCRAWL_SHARED_DATA to run this test)")
    return SHARED_DATA
