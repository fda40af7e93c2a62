"""Where the Hydra configs live: ``$SMARTCRAWL_CONF_DIR``, else the checkout's ``conf/``."""

from __future__ import annotations

import os
from pathlib import Path


def conf_dir() -> Path:
    """The Hydra config directory used by the compose-API entry points (demo, crawl CLI)."""
    env = os.environ.get("SMARTCRAWL_CONF_DIR")
    if env:
        return Path(env).resolve()
    for cand in (Path(__file__).resolve().parents[2] / "conf", Path.cwd() / "conf"):
        if cand.is_dir():
            return cand
    raise FileNotFoundError("conf/ not found: run from the repository root or set SMARTCRAWL_CONF_DIR")
