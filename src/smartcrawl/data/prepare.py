"""From a composed ``prepare_data`` config to built objects, then the data-set builders.

This is the only data module that sees a DictConfig: it validates every value (naming the key
and what is allowed) and hands plain objects to the builders.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from smartcrawl.data.records import Rejects, SourceSpec
from smartcrawl.data.splits import SplitFractions

log = logging.getLogger(__name__)

TASKS: tuple[str, ...] = ("langid", "parallel")


class ConfigError(ValueError):
    """A configuration value that cannot be used; the message names the key and what is allowed."""


def source_specs(cfg_sources: Any, key: str, must_exist: bool = True) -> list[SourceSpec]:
    """Validate a list of ``{kind, path, **options}`` entries into :class:`SourceSpec` objects."""
    from smartcrawl.data.sources import LANG_KINDS, PAIR_KINDS

    allowed = tuple(dict.fromkeys((*PAIR_KINDS, *LANG_KINDS, "lett")))
    if cfg_sources is None:
        return []
    items = OmegaConf.to_container(cfg_sources, resolve=True) if not isinstance(cfg_sources, list) else cfg_sources
    if not isinstance(items, list):
        raise ConfigError(f"{key}: expected a list of {{kind, path}} entries, got {type(items).__name__}")
    specs = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or "kind" not in item or "path" not in item:
            raise ConfigError(f"{key}[{i}]: each source needs 'kind' and 'path', got {item!r}")
        kind, path = str(item["kind"]), str(item["path"])
        if kind not in allowed:
            raise ConfigError(f"{key}[{i}].kind: unknown source kind {kind!r}; allowed: {', '.join(allowed)}")
        if must_exist and not Path(path).exists():
            raise ConfigError(
                f"{key}[{i}].path: {path} does not exist. Point paths.shared_data at the data directory "
                f"(paths.shared_data=/path/to/data) or override {key}[{i}].path"
            )
        options = {k: v for k, v in item.items() if k not in ("kind", "path")}
        specs.append(SourceSpec(kind=kind, path=path, options=options))
    return specs


def split_fractions(cfg_data: DictConfig) -> SplitFractions:
    """The validated split fractions of ``data.splits`` with ``data.split_salt``."""
    try:
        return SplitFractions(dict(cfg_data.splits), salt=str(cfg_data.split_salt))
    except ValueError as exc:
        raise ConfigError(f"data.splits: {exc}") from exc


def run(cfg: DictConfig) -> dict[str, Any]:
    """Prepare the data set of ``cfg.task_name``; returns its card (also copied to ``data.card_copy``)."""
    card = _build(cfg)
    copy = cfg.data.get("card_copy")
    if copy:
        from smartcrawl.data.parquet_io import write_card

        Path(copy).parent.mkdir(parents=True, exist_ok=True)
        write_card(copy, {k: v for k, v in card.items() if k != "config"})
        log.info("card: %s (copy: %s)", Path(cfg.data.out_dir) / "card.json", copy)
    return card


def _build(cfg: DictConfig) -> dict[str, Any]:
    task = cfg.get("task_name")
    if task not in TASKS:
        raise ConfigError(f"task_name: unknown task {task!r}; allowed: {', '.join(TASKS)} (choose with task=...)")
    resolved = OmegaConf.to_container(cfg, resolve=True)
    data = cfg.data
    fractions = split_fractions(data)
    rejects = Rejects()
    if task == "langid":
        from smartcrawl.data.langid_dataset import build_langid_dataset, held_out_domains, iter_source_records

        max_per_lang = int(data.max_per_lang)
        if max_per_lang <= 0:
            raise ConfigError(f"data.max_per_lang: must be a positive integer, got {max_per_lang}")
        sources = source_specs(data.sources, "data.sources")
        exclude = held_out_domains(source_specs(data.get("held_out_sources"), "data.held_out_sources"), Rejects())
        return build_langid_dataset(
            iter_source_records(sources, rejects), data.out_dir, fractions, max_per_lang, rejects, resolved,
            exclude_domains=exclude,
        )

    from smartcrawl.data.negatives import parse_negatives
    from smartcrawl.data.parallel_dataset import build_parallel_dataset, check_options

    try:
        generators = parse_negatives(str(cfg.negatives))
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    per_positive, fallback, lett_per_positive = data.per_positive, data.fallback, data.lett_per_positive
    try:
        check_options(generators, per_positive, fallback, lett_per_positive)
    except ValueError as exc:
        raise ConfigError(f"data.{exc}") from exc
    return build_parallel_dataset(
        sources=source_specs(data.sources, "data.sources"),
        test_sources=source_specs(data.test_sources, "data.test_sources"),
        generators=generators,
        per_positive=per_positive,
        fractions=fractions,
        out_dir=Path(data.out_dir),
        seed=int(cfg.seed),
        lett_sources=source_specs(data.get("lett_sources"), "data.lett_sources"),
        rejects=rejects,
        fallback=fallback,
        lett_per_positive=lett_per_positive,
        config=resolved,
    )
