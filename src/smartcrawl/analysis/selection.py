"""Which runs the report shows: the choice of "ours" and of the baselines, from ``conf/report.yaml``.

The rule, per task (``langid``, ``parallel``): the first name in ``ours`` whose run is complete
(has ``metrics.json``); else the complete non-baseline run with the highest dev macro-F1, leaving out
runs matching ``exclude_from_fallback`` (ablation and Appendix-A runs); else none ("not run").
``$SMARTCRAWL_REPORT_RUNS`` points at another selection file.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from smartcrawl.analysis.results_io import Run, list_runs, load_run


def default_config_path() -> Path:
    """``$SMARTCRAWL_REPORT_RUNS``, else ``conf/report.yaml`` of the checkout (:func:`smartcrawl.confdir.conf_dir`)."""
    env = os.environ.get("SMARTCRAWL_REPORT_RUNS")
    if env:
        return Path(env)
    from smartcrawl.confdir import conf_dir

    return conf_dir() / "report.yaml"


def load_report_config(path: str | Path | None = None) -> dict[str, Any]:
    """The selection file as a dict (``conf/report.yaml`` by default)."""
    cfg_path = Path(path) if path is not None else default_config_path()
    loaded = yaml.safe_load(cfg_path.read_text(encoding="utf-8"))
    if not isinstance(loaded, dict):
        raise ValueError(f"{cfg_path}: expected a mapping at the top level")
    return loaded


@dataclass(frozen=True)
class Choice:
    """The run chosen for a role, and why (``rule``); ``run`` is None when nothing qualifies."""

    role: str
    run: Run | None
    rule: str

    @property
    def name(self) -> str:
        """The run's name, or ``not run``."""
        return self.run.name if self.run is not None else "not run"


def _matches(name: str, globs: list[str]) -> bool:
    return any(fnmatch.fnmatch(name, g) for g in globs)


def pick_ours(results: str | Path, task: str, cfg: dict[str, Any]) -> Choice:
    """"Ours" of ``task`` by the rule of the module docstring."""
    section = cfg.get(task, {})
    for name in section.get("ours", []):
        run = load_run(results, task, str(name))
        if run is not None and run.complete:
            return Choice("ours", run, f"named run `{name}` (first complete run listed under {task}.ours "
                                       "in conf/report.yaml)")
    excluded = [str(g) for g in section.get("exclude_from_fallback", [])]
    baselines = set(_baseline_names(section))
    candidates = [r for r in list_runs(results, task) if not r.is_baseline and r.name not in baselines
                  and not _matches(r.name, excluded) and r.dev_f1 is not None]
    if not candidates:
        return Choice("ours", None, f"no complete fine-tuned {task} run under results/{task}/")
    best = max(candidates, key=lambda r: (r.dev_f1 or 0.0, r.name))
    return Choice("ours", best, f"fallback: highest dev macro-F1 ({best.dev_f1:.2f}) among "
                                f"{len(candidates)} complete fine-tuned {task} run(s); none of "
                                f"{section.get('ours', [])} is complete")


def _baseline_names(section: dict[str, Any]) -> list[str]:
    names: list[str] = []
    if isinstance(section.get("baselines"), dict):
        names += [str(v) for v in section["baselines"].values()]
    if section.get("baseline"):
        names.append(str(section["baseline"]))
    return names


def pick_baseline(results: str | Path, task: str, cfg: dict[str, Any], key: str | None = None) -> Choice:
    """The baseline run of ``task`` (``key`` selects one of ``baselines``, e.g. ``rules``/``fasttext``)."""
    section = cfg.get(task, {})
    name = str(section["baselines"][key]) if key is not None else str(section["baseline"])
    run = load_run(results, task, name)
    if run is None or not run.complete:
        return Choice(key or "baseline", None, f"results/{task}/{name}/metrics.json not found")
    return Choice(key or "baseline", run, f"baseline run `{name}` (conf/report.yaml)")


def runs_matching(results: str | Path, task: str, glob: str) -> list[Run]:
    """Complete runs of ``task`` whose name matches ``glob`` (ablation and Appendix-A families)."""
    return [r for r in list_runs(results, task) if fnmatch.fnmatch(r.name, glob)]
