"""The report's items (one per paper table or figure, plus the ablations): build, write, show.

:func:`build_item` runs an item's table builder (:mod:`smartcrawl.analysis.tables`), draws its figures
(:mod:`smartcrawl.analysis.figures`) and writes into the report directory:

- ``<stem>.md`` and ``<stem>.csv`` for every table, ``<stem>.png`` and ``<stem>.pdf`` for every figure;
- ``_items/<item>.json``: title, the paper's reference, notes, runs used, what is missing and the
  experiment command that produces it; :mod:`smartcrawl.analysis.report` assembles the page from these.

Each notebook under ``notebooks/`` is one call of :func:`build_item` and :func:`show`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from smartcrawl.analysis import figures, paper_numbers, tables
from smartcrawl.analysis.markdown import to_markdown
from smartcrawl.analysis.selection import load_report_config

RESULTS_ENV = "SMARTCRAWL_RESULTS"
REPORT_ENV = "SMARTCRAWL_REPORT"
ITEMS_DIR = "_items"

FigureFn = Callable[[tables.Built], list[tuple[str, Any]]]


@dataclass(frozen=True)
class Item:
    """One report item: which builder makes its tables, which figures it draws, how to produce its runs."""

    name: str
    title: str
    paper: str
    build: Callable[[Path, dict[str, Any]], tables.Built]
    figures: FigureFn | None
    experiments: tuple[str, ...]
    differences: str
    claim: str = ""


@dataclass
class ItemResult:
    """What :func:`build_item` wrote (paths relative to the report dir) and the item's text."""

    name: str
    title: str
    paper: str
    tables: list[str] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    used: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    experiments: list[str] = field(default_factory=list)
    differences: str = ""
    claim: str = ""
    out_dir: str = ""


def _fig2(b: tables.Built) -> list[tuple[str, Any]]:
    return [("figure2_languages", figures.figure2_languages(b.frames["figure2_languages"], b.plot.get("splits", [])))]


def _fig3(b: tables.Built) -> list[tuple[str, Any]]:
    return [("figure3_per_language", figures.figure3_per_language(b.frames["figure3_per_language"],
                                                                   b.plot.get("systems", [])))]


def _fig5(b: tables.Built) -> list[tuple[str, Any]]:
    return [("figure5_pairs", figures.figure5_pairs(b.frames["figure5_pairs"]))]


def _fig7(b: tables.Built) -> list[tuple[str, Any]]:
    found: dict[tuple[str, str], list[str]] = b.plot.get("found", {})
    if not found:
        return [("figure7_crawl", figures.figure7_crawl([], ""))]
    out = []
    for (root, web), dirs in found.items():
        scorer = "rules scorer" if root == "crawl" else f"results/{root}"
        out.append((f"figure7_{root}_{web}", figures.figure7_crawl(dirs, f"{web}: {scorer}")))
    return out


def _appa(b: tables.Built) -> list[tuple[str, Any]]:
    return [("appendix_a_negatives", figures.appendix_a_negatives(b.frames["appendix_a_negatives"]))]


def _reinit(b: tables.Built) -> list[tuple[str, Any]]:
    return [("ablation_reinit", figures.ablation_reinit(b.frames["ablation_reinit"]))]


def _curr(b: tables.Built) -> list[tuple[str, Any]]:
    return [("ablation_curriculum", figures.ablation_curriculum(b.frames["ablation_curriculum"]))]


_ENCODER_DIFF = ("Encoder: multilingual-e5-small (BERT, hidden 384, XLM-R vocabulary; often cut to its first 2 or 6 "
                 "layers, see the run) instead of XLM-RoBERTa-base (no XLM-R weights offline); trained on 2 CPU cores "
                 "on capped samples, not to convergence on 50M URLs.")
_LANGID_DATA_DIFF = ("Data: ParaCrawl human-evaluated URL pairs (+ WMT16 train, a MaCoCu sample) with content-based "
                     "language labels, 30 languages and about 14k test URLs, instead of CommonCrawl URLs labelled by "
                     "CLD2, 161 languages and about 220k test URLs.")
_PAIR_DATA_DIFF = ("Data: positives from ParaCrawl human-evaluated pairs (29 pairs), WMT16 train and a MaCoCu sample "
                   "instead of WMT16 + the full MaCoCu v2 (10 pairs); the same synthetic negative generators, one per "
                   "positive per generator; splits 80/10/10 by web domain, WMT16-test sites held out.")

ITEMS: tuple[Item, ...] = (
    Item("table1_langid", "Table 1: URL language identification, macro P/R/F1", "Table 1",
         tables.table1_langid, None, ("python experiments/table1_langid.py --size full",),
         _LANGID_DATA_DIFF + " " + _ENCODER_DIFF,
         "Rules 65.29 / 34.42 / 38.24, FastText 60.92 / 57.32 / 57.41, ours 72.59 / 69.04 / 69.22; English is hard "
         "(ours P 36.6, R 58.5); the rules baseline says unknown for 57.4 % of test URLs."),
    Item("figure2_languages", "Figure 2: language distribution per split", "Figure 2",
         tables.figure2_languages, _fig2, ("python experiments/figure2_languages.py --size full",),
         _LANGID_DATA_DIFF, paper_numbers.CLAIMS["figure2"]),
    Item("figure3_per_language", "Figure 3: per-language F1, ours against each baseline", "Figure 3",
         tables.figure3_per_language, _fig3, ("python experiments/figure3_per_language.py --size full",),
         _LANGID_DATA_DIFF + " " + _ENCODER_DIFF, paper_numbers.CLAIMS["figure3"]),
    Item("table2_parallel_data", "Table 2: positives / negatives per language pair and split", "Table 2",
         tables.table2_parallel_data, None, ("python experiments/table2_parallel_data.py --size full",),
         _PAIR_DATA_DIFF, paper_numbers.CLAIMS["table2"]),
    Item("table3_wmt16", "Table 3: WMT16 document alignment, recall and soft recall", "Table 3",
         tables.table3_wmt16, None, ("python experiments/table3_wmt16.py --size full",),
         "No WMT16 .lett files here: the candidates are the Cartesian product of the gold pairs' English x French "
         "URLs of each site (easier than the paper's all documents of each site), and soft recall (which needs the "
         "documents' text) cannot be computed. " + _ENCODER_DIFF,
         "Baseline 59.91 / 59.91, ours 62.99 / 66.69 (recall / soft recall)."),
    Item("table4_parallel", "Table 4: URL-pair parallelism, per-class and macro P/R/F1", "Table 4",
         tables.table4_parallel, None, ("python experiments/table4_parallel.py --size full",),
         _PAIR_DATA_DIFF + " " + _ENCODER_DIFF, paper_numbers.CLAIMS["table4"]),
    Item("figure5_pairs", "Figure 5: macro-F1 per language pair", "Figure 5",
         tables.figure5_pairs, _fig5, ("python experiments/figure5_pairs.py --size full",),
         _PAIR_DATA_DIFF, paper_numbers.CLAIMS["figure5"]),
    Item("figure7_crawl", "Figure 7: parallel documents found by share of each site's downloads", "Figure 7",
         tables.figure7_crawl, _fig7, ("python experiments/figure7_crawl.py --size full",
                                       "python experiments/figure7_crawl.py --size full --scorer rules"),
         "A test-bed web served on loopback (websim: synthetic sites calibrated on real URL pairs, with known "
         "translations; Debian documentation sites) crawled to exhaustion by our Scrapy crawler, instead of Heritrix "
         "on 200 real sites per pair for 48 h; parallel documents counted from the ground truth, not by Bitextor; "
         "random and oracle orders added as references.", paper_numbers.CLAIMS["figure7"]),
    Item("appendix_a_negatives", "Appendix A: every combination of negative generators", "Appendix A",
         tables.appendix_a_negatives, _appa, ("python experiments/appendix_a_negatives.py --size full",),
         "No WMT16 .lett files, so no real (crawler-emulating) negatives: combinations are compared on WMT16 recall "
         "over the gold URLs and on a fixed test split built with all six generators. " + _ENCODER_DIFF,
         paper_numbers.CLAIMS["appendix_a"]),
    Item("ablation_reinit", "Ablation: re-initialised top layers n = 0..5", "Section 3.2",
         tables.ablation_reinit, _reinit, ("python experiments/ablation_reinit.py --size full",),
         _ENCODER_DIFF, paper_numbers.CLAIMS["ablation_reinit"]),
    Item("ablation_curriculum", "Ablation: fold-growing curriculum against all data at once", "Section 3.2",
         tables.ablation_curriculum, _curr, ("python experiments/ablation_curriculum.py --size full",),
         _ENCODER_DIFF, paper_numbers.CLAIMS["ablation_curriculum"]),
)
ITEM_NAMES: tuple[str, ...] = tuple(i.name for i in ITEMS)


def get_item(name: str) -> Item:
    """The item called ``name`` (one of :data:`ITEM_NAMES`)."""
    for item in ITEMS:
        if item.name == name:
            return item
    raise KeyError(f"unknown report item {name!r}; known: {', '.join(ITEM_NAMES)}")


def default_results() -> Path:
    """``$SMARTCRAWL_RESULTS`` or ``results``."""
    return Path(os.environ.get(RESULTS_ENV, "results"))


def default_report(results: str | Path | None = None) -> Path:
    """``$SMARTCRAWL_REPORT`` or ``<results>/report``."""
    env = os.environ.get(REPORT_ENV)
    return Path(env) if env else Path(results if results is not None else default_results()) / "report"


def build_item(name: str, results: str | Path | None = None, out_dir: str | Path | None = None,
               config: dict[str, Any] | None = None) -> ItemResult:
    """Build one item from ``results`` and write its tables, figures and ``_items/<name>.json`` into ``out_dir``."""
    item = get_item(name)
    res_root = Path(results) if results is not None else default_results()
    out = Path(out_dir) if out_dir is not None else default_report(res_root)
    out.mkdir(parents=True, exist_ok=True)
    cfg = config if config is not None else load_report_config()
    built = item.build(res_root, cfg)
    result = ItemResult(name=item.name, title=item.title, paper=item.paper, notes=list(built.notes),
                        used=list(built.used), missing=list(built.missing), experiments=list(item.experiments),
                        differences=item.differences, claim=item.claim, out_dir=str(out))
    for stem, frame in built.frames.items():
        (out / f"{stem}.md").write_text(to_markdown(frame), encoding="utf-8")
        frame.to_csv(out / f"{stem}.csv", index=False)
        result.tables.append(stem)
    if item.figures is not None:
        for stem, fig in item.figures(built):
            figures.save_figure(fig, out, stem)
            result.figures.append(stem)
    (out / ITEMS_DIR).mkdir(exist_ok=True)
    record = {k: v for k, v in asdict(result).items() if k != "out_dir"}
    (out / ITEMS_DIR / f"{name}.json").write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n",
                                                  encoding="utf-8")
    return result


def build_all(results: str | Path | None = None, out_dir: str | Path | None = None,
              names: Sequence[str] | None = None) -> list[ItemResult]:
    """:func:`build_item` for every item (or ``names``), without notebooks."""
    cfg = load_report_config()
    return [build_item(n, results, out_dir, cfg) for n in (names or ITEM_NAMES)]


def show(result: ItemResult) -> None:
    """Display an item in a notebook (Markdown tables and PNG figures); prints Markdown outside IPython."""
    out = Path(result.out_dir)
    parts = [f"## {result.title}", *(f"- {n}" for n in result.used), *(f"- **not run**: {m}" for m in result.missing)]
    for stem in result.tables:
        parts += ["", f"`{stem}`", "", (out / f"{stem}.md").read_text(encoding="utf-8")]
    parts += [f"\n{n}" for n in result.notes]
    text = "\n".join(parts)
    try:
        from IPython import get_ipython
        from IPython.display import Image, Markdown, display
    except ImportError:  # pragma: no cover - IPython is a dev dependency
        print(text)
        return
    if get_ipython() is None:
        print(text)
        return
    display(Markdown(text))
    for stem in result.figures:
        display(Image(filename=str(out / f"{stem}.png")))
