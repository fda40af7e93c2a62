"""Each table of the report as pandas DataFrames, built from ``results/`` only.

Every builder takes the results root and the selection config (:mod:`smartcrawl.analysis.selection`)
and returns a :class:`Built`: the tables (first one = the main table), notes, the runs it used and
what is missing. A missing run never raises: its cells say ``not run``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from smartcrawl.analysis import paper_numbers as paper
from smartcrawl.analysis.markdown import NOT_RUN
from smartcrawl.analysis.results_io import Run, incomplete_runs, load_card, load_json, load_run
from smartcrawl.analysis.selection import Choice, pick_baseline, pick_ours, runs_matching
from smartcrawl.analysis.views import (
    PARALLEL_LABELS,
    common_rows,
    langid_predictions,
    metrics_of,
    parallel_predictions,
    per_group_macro_f1,
)


@dataclass
class Built:
    """What a table builder returns: tables by name, notes, runs used, missing pieces, plot data."""

    frames: dict[str, pd.DataFrame] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    used: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    plot: dict[str, Any] = field(default_factory=dict)

    def use(self, choice: Choice, what: str) -> None:
        """Record a choice: in ``used`` when a run was found, in ``missing`` otherwise."""
        if choice.run is not None:
            self.used.append(f"{what}: `{choice.run.task}/{choice.run.name}` ({choice.rule}){describe_run(choice.run)}")
        else:
            self.missing.append(f"{what}: {choice.rule}")


def describe_run(run: Run) -> str:
    """A short description of a trained run's model, data and training size (empty for baselines)."""
    if run.is_baseline or not run.config:
        return ""
    parts = []
    model = run.config_value("model.name")
    if model:
        layers = run.config_value("model.num_layers")
        reinit = run.config_value("model.reinit_top_layers")
        parts.append(f"model {model} ({run.config_value('model.encoder', '?')}, "
                     f"{'all' if layers is None else layers} layers, top {reinit} re-initialised)")
    sources = run.config_value("data.sources") or []
    kinds = sorted({str(s.get("kind")) for s in sources if isinstance(s, dict)})
    if kinds:
        parts.append("data " + "+".join(kinds))
    m = run.metrics or {}
    if m.get("train_examples"):
        parts.append(f"{m['train_examples']:,} training examples, {m.get('epochs_completed', '?')} epochs")
    test = run.split_metrics("test")
    if test:
        parts.append(f"{test['n']:,} test rows")
    cap = run.config_value("train.max_test")
    if cap:
        parts.append(f"train.max_test={cap}")
    return "; " + "; ".join(parts) if parts else ""


def _macro(m: dict[str, Any] | None) -> tuple[float, float, float]:
    if not m:
        return (math.nan, math.nan, math.nan)
    return (m["macro"]["precision"], m["macro"]["recall"], m["macro"]["f1"])


def _cell(x: float) -> Any:
    return NOT_RUN if isinstance(x, float) and math.isnan(x) else x


# ------------------------------------------------------------------------------------------- Table 1
LANGID_SYSTEMS: tuple[tuple[str, str], ...] = (("rules", "URL rules (baseline)"), ("fasttext", "FastText"),
                                               ("ours", "Ours"))


def langid_choices(results: Path, cfg: dict[str, Any]) -> dict[str, Choice]:
    """The three language-ID systems of Table 1 / Figure 3: rules, fasttext, ours."""
    return {"rules": pick_baseline(results, "langid", cfg, "rules"),
            "fasttext": pick_baseline(results, "langid", cfg, "fasttext"),
            "ours": pick_ours(results, "langid", cfg)}


def langid_common(choices: dict[str, Choice]) -> dict[str, pd.DataFrame]:
    """Predictions of every chosen system that has them, on the URLs they all predicted."""
    frames = {}
    for key, choice in choices.items():
        if choice.run is not None:
            df = langid_predictions(choice.run)
            if df is not None:
                frames[key] = df
    return common_rows(frames)


def table1_langid(results: Path, cfg: dict[str, Any]) -> Built:
    """Table 1: macro P/R/F1 of rules, FastText and ours, beside the paper's; plus own-test and English views."""
    out = Built()
    choices = langid_choices(results, cfg)
    for key, label in LANGID_SYSTEMS:
        out.use(choices[key], label)
    common = langid_common(choices)
    n_common = len(next(iter(common.values()))) if common else 0
    main, own, english = [], [], []
    for key, label in LANGID_SYSTEMS:
        run = choices[key].run
        pp = paper.TABLE1[key]
        m_common = metrics_of(common[key]) if key in common else None
        p, r, f = _macro(m_common)
        main.append({"system": label, "run": choices[key].name, "paper P": pp["precision"], "paper R": pp["recall"],
                     "paper F1": pp["f1"], "P": _cell(p), "R": _cell(r), "F1": _cell(f),
                     "test URLs": n_common if m_common else NOT_RUN})
        test = run.split_metrics("test") if run is not None else None
        p2, r2, f2 = _macro(test)
        own.append({"system": label, "run": choices[key].name, "test URLs": test["n"] if test else NOT_RUN,
                    "P": _cell(p2), "R": _cell(r2), "F1": _cell(f2),
                    "dev F1": run.dev_f1 if run is not None and run.dev_f1 is not None else NOT_RUN})
        if key in common and not common[key].empty:
            df = common[key]
            eng = (m_common or {}).get("per_class", {}).get("eng")
            english.append({"system": label, "English P": eng["precision"] if eng else NOT_RUN,
                            "English R": eng["recall"] if eng else NOT_RUN,
                            "predicted unknown (%)": 100.0 * float((df["pred"] == "und").mean())})
    english.append({"system": "paper: ours (XLM-R)", "English P": paper.ENGLISH_OURS["precision"],
                    "English R": paper.ENGLISH_OURS["recall"], "predicted unknown (%)": None})
    english.append({"system": "paper: URL rules", "English P": None, "English R": None,
                    "predicted unknown (%)": paper.RULES_UNKNOWN_SHARE})
    out.frames["table1_langid"] = pd.DataFrame(main)
    out.frames["table1_langid_own_test"] = pd.DataFrame(own)
    out.frames["table1_langid_english"] = pd.DataFrame(english)
    if common:
        langs = sorted(set(next(iter(common.values()))["gold"]))
        out.notes.append(f"Main table: every system on the same {n_common:,} test URLs (those all of "
                         f"{', '.join(common)} predicted), {len(langs)} gold languages, macro over the gold "
                         "languages (the metrics module's definition). The paper: 161 languages, about 220,000 "
                         "CommonCrawl test URLs.")
    out.notes.append("Own-test table: each run's metrics.json on the test rows it scored (a trained run may "
                     "cap them with train.max_test, so its rows can differ from the baselines').")
    partial = [r.name for r in incomplete_runs(results, "langid")]
    if partial:
        out.notes.append(f"Run directories without metrics.json (interrupted, not used): {', '.join(partial)}.")
    return out


# ------------------------------------------------------------------------------------------- Figure 2
def figure2_languages(results: Path, cfg: dict[str, Any]) -> Built:
    """Figure 2: URLs per language and split, from the language-ID data card."""
    out = Built()
    card = load_card(results, "langid")
    if card is None:
        out.missing.append("data card results/data/langid.card.json")
        out.frames["figure2_languages"] = pd.DataFrame(columns=["language", "train", "dev", "test", "total"])
        return out
    splits = list(card["splits"])
    rows = [{"language": lang, **{s: int(c.get(s, 0)) for s in splits}} for lang, c in card["per_language"].items()]
    df = pd.DataFrame(rows)
    df["total"] = df[splits].sum(axis=1)
    df = df.sort_values(["total", "language"], ascending=[False, True]).reset_index(drop=True)
    out.frames["figure2_languages"] = df
    out.frames["figure2_splits"] = pd.DataFrame([{"split": s, "URLs": card["splits"][s]["urls"],
                                                  "domains": card["splits"][s]["domains"]} for s in splits])
    out.used.append(f"data card `results/data/langid.card.json`: {card['languages']} languages, sources "
                    f"{', '.join(card.get('kept_per_source', {}))}")
    out.notes.append(f"{card['languages']} languages, {int(df['total'].sum()):,} URLs after de-duplication "
                     f"({card['input_records']:,} input records, {card['duplicates']:,} duplicates); the "
                     f"paper: {paper.TABLE1_LANGUAGES} languages, about 50.4M CommonCrawl URLs.")
    out.plot["splits"] = splits
    return out


# ------------------------------------------------------------------------------------------- Figure 3
def _domain(url: str) -> str:
    from smartcrawl.urls import registered_domain

    try:
        return registered_domain(url)
    except Exception:  # noqa: BLE001 - an odd URL counts as its own domain
        return url


def largest_test_set(choices: dict[str, Choice]) -> pd.DataFrame:
    """The predictions covering the most test URLs among the chosen systems (the test set, for counting)."""
    frames = [langid_predictions(c.run) for c in choices.values() if c.run is not None]
    frames = [f for f in frames if f is not None]
    return max(frames, key=len)


def figure3_per_language(results: Path, cfg: dict[str, Any]) -> Built:
    """Figure 3: per-language F1 of each system on the common test URLs, languages with enough URLs and domains."""
    out = Built()
    fcfg = cfg.get("figure3", {})
    min_urls, min_domains = int(fcfg.get("min_urls", 100)), int(fcfg.get("min_domains", 10))
    choices = langid_choices(results, cfg)
    for key, label in LANGID_SYSTEMS:
        out.use(choices[key], label)
    common = langid_common(choices)
    cols = ["language", "test URLs", "domains", *[label for _, label in LANGID_SYSTEMS]]
    if not common:
        out.frames["figure3_per_language"] = pd.DataFrame(columns=cols)
        return out
    base = next(iter(common.values()))
    full = largest_test_set(choices)
    counts = full.assign(domain=full["url"].map(_domain)).groupby("gold").agg(
        urls=("url", "size"), domains=("domain", "nunique"))
    keep = counts[(counts["urls"] >= min_urls) & (counts["domains"] >= min_domains)]
    per_sys = {key: (metrics_of(df) or {}).get("per_class", {}) for key, df in common.items()}
    rows = []
    for lang in keep.index:
        row: dict[str, Any] = {"language": lang, "test URLs": int(keep.loc[lang, "urls"]),
                               "domains": int(keep.loc[lang, "domains"])}
        for key, label in LANGID_SYSTEMS:
            row[label] = per_sys[key][lang]["f1"] if key in per_sys and lang in per_sys[key] else NOT_RUN
        rows.append(row)
    df = pd.DataFrame(rows, columns=cols)
    if not df.empty:
        order = df["Ours"] if key_present(df, "Ours") else df[[c for c in cols[3:] if key_present(df, c)][0]]
        df = df.assign(_o=pd.to_numeric(order, errors="coerce")).sort_values("_o", ascending=False).drop(columns="_o")
    out.frames["figure3_per_language"] = df.reset_index(drop=True)
    out.notes.append(f"{len(df)} of {len(counts)} languages have at least {min_urls} test URLs and {min_domains} "
                     f"web domains in the test set ({len(full):,} URLs; the paper's filter); 'test URLs' and "
                     f"'domains' count them there. The F1 scores are on the {len(base):,} URLs every system "
                     "predicted.")
    if "ours" in common:
        for key, label in LANGID_SYSTEMS[:2]:
            if key in common and not df.empty:
                ours_f1, base_f1 = pd.to_numeric(df["Ours"], errors="coerce"), pd.to_numeric(df[label], errors="coerce")
                wins = int((ours_f1 > base_f1).sum())
                out.notes.append(f"Ours beats {label} in {wins} of {len(df)} languages.")
    out.plot["systems"] = [label for key, label in LANGID_SYSTEMS if key in common]
    return out


def key_present(df: pd.DataFrame, col: str) -> bool:
    """Whether column ``col`` holds at least one number."""
    return col in df.columns and pd.to_numeric(df[col], errors="coerce").notna().any()


# ------------------------------------------------------------------------------------------- Table 2
def table2_parallel_data(results: Path, cfg: dict[str, Any]) -> Built:
    """Table 2: positives / negatives per language pair and split, from the parallel data card."""
    out = Built()
    negatives = str(cfg.get("parallel", {}).get("negatives", "rand+jaccard+remove"))
    stem = f"parallel-{negatives}"
    card = load_card(results, stem)
    if card is None:
        out.missing.append(f"data card results/data/{stem}.card.json")
        out.frames["table2_parallel_data"] = pd.DataFrame(columns=["pair"])
        return out
    splits = list(card["splits"])
    rows = []
    for pair, cells in card["table2"].items():
        row: dict[str, Any] = {"pair": pair}
        for s in splits:
            row[f"{s} pos"] = int(cells[s]["positives"]) if s in cells else 0
            row[f"{s} neg"] = int(cells[s]["negatives"]) if s in cells else 0
        rows.append(row)
    total: dict[str, Any] = {"pair": "total"}
    for s in splits:
        total[f"{s} pos"] = int(card["splits"][s]["positives"])
        total[f"{s} neg"] = int(card["splits"][s]["negatives"])
    rows.append(total)
    out.frames["table2_parallel_data"] = pd.DataFrame(rows)
    kinds = sorted({k for s in splits for k in card["splits"][s].get("by_kind", {})})
    out.frames["table2_by_kind"] = pd.DataFrame(
        [{"split": s, **{k: int(card["splits"][s].get("by_kind", {}).get(k, 0)) for k in kinds}} for s in splits])
    gens = " + ".join(card["negatives"]["generators"])
    out.used.append(f"data card `results/data/{stem}.card.json`: negatives {gens}, "
                    f"{card['negatives']['per_positive']} per positive per generator")
    out.notes.append(f"{len(card['table2'])} language pairs; negatives = {gens}. The paper: WMT16 en-fr + MaCoCu v2 "
                     "(10 pairs with English); ours: ParaCrawl human-evaluated pairs, WMT16 and a MaCoCu sample.")
    return out


# ------------------------------------------------------------------------------------------- Table 3
def table3_wmt16(results: Path, cfg: dict[str, Any]) -> Built:
    """Table 3: WMT16 recall and soft recall of the URL-matching baseline and ours, beside the paper's."""
    out = Built()
    base = pick_baseline(results, "wmt16", cfg)
    ours_parallel = pick_ours(results, "parallel", cfg)
    ours_run = load_run(results, "wmt16", ours_parallel.run.name) if ours_parallel.run is not None else None
    ours = Choice("ours", ours_run if ours_run is not None and ours_run.complete else None,
                  f"results/wmt16/<parallel ours = {ours_parallel.name}>"
                  + ("" if ours_run is not None and ours_run.complete else " not found"))
    out.use(base, "URL matching (baseline)")
    out.use(ours, "Ours")
    rows = []
    for key, label, choice in (("baseline", "URL matching (baseline)", base), ("ours", "Ours", ours)):
        m = (choice.run.metrics or {}) if choice.run is not None else {}
        soft = m.get("soft_recall")
        rows.append({"system": label, "run": choice.name, "paper recall": paper.TABLE3[key]["recall"],
                     "paper soft recall": paper.TABLE3[key]["soft_recall"],
                     "recall": m.get("recall", NOT_RUN) if m else NOT_RUN,
                     "soft recall": soft if soft is not None else ("not computable" if m else NOT_RUN),
                     "gold pairs": m.get("n_gold", NOT_RUN) if m else NOT_RUN})
        if m.get("soft_recall_null_reason"):
            out.notes.append(f"{label}: soft recall not computable: {m['soft_recall_null_reason']}.")
        if m.get("candidate_set"):
            out.notes.append(f"{label} candidates: {m['candidate_set']}.")
    out.frames["table3_wmt16"] = pd.DataFrame(rows)
    return out


# ------------------------------------------------------------------------------------ Table 4 / Fig. 5
def parallel_common(results: Path, cfg: dict[str, Any]) -> tuple[dict[str, Choice], dict[str, pd.DataFrame]]:
    """The baseline and ours of the pair task and their predictions on the test rows both scored."""
    choices = {"baseline": pick_baseline(results, "parallel", cfg), "ours": pick_ours(results, "parallel", cfg)}
    frames = {}
    for key, choice in choices.items():
        if choice.run is not None:
            df = parallel_predictions(choice.run)
            if df is not None and not df.empty:
                frames[key] = df
    common = common_rows(frames)
    if "ours" in common and "baseline" in common and common["ours"]["has_origin"].any():
        # Group the baseline's rows by the pair ours knows them under (origin_pair of mono negatives).
        common["baseline"] = common["baseline"].assign(group=common["ours"]["group"].to_numpy())
    return choices, common


def table4_parallel(results: Path, cfg: dict[str, Any]) -> Built:
    """Table 4: per-class and macro P/R/F1 of the URL-matching baseline and ours on the common test rows."""
    out = Built()
    choices, common = parallel_common(results, cfg)
    out.use(choices["baseline"], "URL matching (baseline)")
    out.use(choices["ours"], "Ours")
    metrics = {key: metrics_of(df, PARALLEL_LABELS) for key, df in common.items()}
    rows = []
    for cls in (*reversed(PARALLEL_LABELS), "macro"):
        for metric, name in (("precision", "P"), ("recall", "R"), ("f1", "F1")):
            row: dict[str, Any] = {"class": cls, "metric": name}
            for key, label in (("baseline", "URL matching (baseline)"), ("ours", "Ours")):
                m = metrics.get(key)
                if not m:
                    row[label] = NOT_RUN
                else:
                    row[label] = m["macro"][metric] if cls == "macro" else m["per_class"][cls][metric]
            rows.append(row)
    out.frames["table4_parallel"] = pd.DataFrame(rows)
    if common:
        df = next(iter(common.values()))
        scored = "the baseline and ours both scored" if len(common) == 2 else f"{next(iter(common))} scored"
        out.notes.append(f"On the {len(df):,} test pairs ({int((df['gold'] == 'parallel').sum()):,} parallel) "
                         f"{scored}; the paper gives Table 4 only in words (quoted above).")
    return out


def figure5_pairs(results: Path, cfg: dict[str, Any]) -> Built:
    """Figure 5: macro-F1 per language pair of the baseline and ours on the common test rows."""
    out = Built()
    choices, common = parallel_common(results, cfg)
    out.use(choices["baseline"], "URL matching (baseline)")
    out.use(choices["ours"], "Ours")
    merged: pd.DataFrame | None = None
    for key, label in (("baseline", "URL matching (baseline)"), ("ours", "Ours")):
        if key not in common:
            continue
        g = per_group_macro_f1(common[key]).rename(columns={"macro_f1": label})
        merged = g if merged is None else merged.merge(g[["pair", label]], on="pair", how="outer")
    if merged is None:
        merged = pd.DataFrame(columns=["pair", "rows", "positives"])
    for label in ("URL matching (baseline)", "Ours"):
        if label not in merged.columns:
            merged[label] = NOT_RUN
    out.frames["figure5_pairs"] = merged.reset_index(drop=True)
    if common and not next(iter(common.values()))["has_origin"].any():
        out.notes.append("The predictions have no origin_pair column: monolingual negatives (eng-eng, ...) "
                         "cannot be given to a pair and are left out of the per-pair scores.")
    return out


# ------------------------------------------------------------------------------------------- Figure 7
def crawl_dirs(results: Path, cfg: dict[str, Any]) -> dict[tuple[str, str], list[Path]]:
    """Crawl results dirs per (root, web) that exist: ``results/<root>/<pair>/<web>/summary.json``."""
    from smartcrawl.analysis.crawl_figure import find_results

    fcfg = cfg.get("figure7", {})
    found: dict[tuple[str, str], list[Path]] = {}
    for root in fcfg.get("roots", ["crawl"]):
        if not (results / root).is_dir():
            continue
        for web in fcfg.get("webs", ["websim"]):
            dirs = find_results(results / root, web, fcfg.get("pairs") or None)
            if dirs:
                found[(str(root), str(web))] = dirs
    return found


def scorer_of(config: dict[str, Any]) -> str:
    """``rules`` / ``neural`` (or the class name) of a crawl_eval config's scorer."""
    target = str((config.get("scorer") or {}).get("_target_", ""))
    return {"RuleScorer": "rules", "NeuralScorer": "neural"}.get(target.rsplit(".", 1)[-1], target or "?")


def _count(x: Any) -> Any:
    """A document count as an int when it is whole (the random reference is an expectation)."""
    return int(x) if isinstance(x, float) and x.is_integer() else x


def figure7_crawl(results: Path, cfg: dict[str, Any]) -> Built:
    """Figure 7: parallel documents found at 10-30 % of each site's downloads and AUC, per pair and strategy."""
    import yaml

    out = Built()
    found = crawl_dirs(results, cfg)
    rows = []
    for (root, web), dirs in found.items():
        for d in dirs:
            summary = load_json(d / "summary.json") or {}
            config_path = d / "config.yaml"
            config = yaml.safe_load(config_path.read_text(encoding="utf-8")) if config_path.is_file() else {}
            scorer = scorer_of(config or {})
            percents = list(summary.get("percent", []))
            for name, info in {**summary.get("strategies", {}), **summary.get("references", {})}.items():
                by_point = info.get("found_by_point", [])
                row = {"results": root, "web": web, "pair": "-".join(summary.get("pair", [])),
                       "sites": summary.get("sites"),
                       "scorer": scorer if name in summary.get("strategies", {}) else "–", "crawler": name}
                for pct in (10.0, 20.0, 30.0):
                    row[f"found at {pct:g} %"] = _count(by_point[percents.index(pct)]) if pct in percents and by_point \
                        else NOT_RUN
                row["found total"] = _count(by_point[-1]) if by_point else NOT_RUN
                share = info.get("auc_share_oracle")
                row["AUC / oracle (%)"] = 100.0 * share if share is not None else NOT_RUN
                rows.append(row)
            out.used.append(f"`{d.relative_to(results)}` ({scorer} scorer, {summary.get('sites')} sites)")
    out.frames["figure7_crawl"] = pd.DataFrame(rows)
    out.plot["found"] = {k: [str(p) for p in v] for k, v in found.items()}
    if not found:
        out.missing.append("crawl results results/<root>/<pair>/<web>/summary.json")
    if found and not any(r for r in found if r[0] != "crawl"):
        out.notes.append("Only the model-free rules scorer has been crawled so far; the smart crawler with the "
                         "trained classifiers writes results/crawl-neural/.")
    return out


# ---------------------------------------------------------------------------------- Appendix A, ablations
SMALL_NOTE = ("No full-setting runs exist, so these are the `--size small` runs under `{root}` (experiments/README.md: "
              "me5-small cut to 2 layers, 6 for the re-initialisation ablation, frozen word embeddings, 3,000 "
              "training examples, 1 epoch, 3 for the curriculum ablation, 1,000 test rows, 40 small WMT16 sites). "
              "They show that the experiment runs end to end on this machine; at this size the differences "
              "between rows are mostly noise, not the paper's effects, and some runs predict a single class "
              "(a WMT16 recall of 0, or a fixed-test F1 at the majority-class level).")


def shown_path(path: Path) -> Path:
    """``path`` relative to the working directory when it lies below it (the report shows no absolute paths)."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path


def family_root(results: Path, cfg: dict[str, Any], task: str, glob: str) -> tuple[Path, bool, list[Run]]:
    """Where a family of ablation runs lives and its runs: ``results``, else the small setting's results (``True``).

    ``cfg["small_results"]`` (default ``small``) names the small setting's results directory under ``results``.
    """
    runs = runs_matching(results, task, glob)
    if runs:
        return results, False, runs
    small = results / str(cfg.get("small_results", "small"))
    small_runs = runs_matching(small, task, glob) if small.is_dir() else []
    if small_runs:
        return small, True, small_runs
    return results, False, []


def appendix_a_negatives(results: Path, cfg: dict[str, Any]) -> Built:
    """Appendix A: every trained combination of negative generators, scored on WMT16 and a fixed test set."""
    from smartcrawl.data.negatives import parse_negatives

    out = Built()
    acfg = cfg.get("appendix_a", {})
    task, glob = str(acfg.get("task", "parallel")), str(acfg.get("glob", "parallel-neg-*"))
    results, small, runs = family_root(results, cfg, task, glob)
    if small:
        out.notes.append(SMALL_NOTE.format(root=shown_path(results)))
    best = set(parse_negatives("rand+jaccard+remove"))
    rows = []
    for run in runs:
        spec = str(run.config_value(str(acfg.get("key", "negatives")), "") or run.name.split("-neg-", 1)[-1])
        try:
            gens = parse_negatives(spec)
        except ValueError:
            gens = ()
        wmt = load_run(results, "wmt16", run.name)
        fixed = load_run(results, str(acfg.get("fixed_test", "parallel-fixed")), run.name)
        wm = (wmt.metrics or {}) if wmt is not None and wmt.complete else {}
        fm = fixed.split_metrics("test") if fixed is not None and fixed.complete else None
        own = run.split_metrics("test")
        rows.append({"negatives": spec, "generators": " + ".join(gens) or "none",
                     "paper's best": "yes" if set(gens) == best else "",
                     "dev F1": run.dev_f1 if run.dev_f1 is not None else NOT_RUN,
                     "own test F1": own["macro"]["f1"] if own else NOT_RUN,
                     "fixed test F1": fm["macro"]["f1"] if fm else NOT_RUN,
                     "WMT16 recall": wm.get("recall", NOT_RUN) if wm else NOT_RUN,
                     "WMT16 soft recall": wm.get("soft_recall") if wm.get("soft_recall") is not None else
                     ("not computable" if wm else NOT_RUN),
                     "run": run.name})
    df = pd.DataFrame(rows, columns=["negatives", "generators", "paper's best", "dev F1", "own test F1",
                                     "fixed test F1", "WMT16 recall", "WMT16 soft recall", "run"])
    if not df.empty:
        key = "fixed test F1" if key_present(df, "fixed test F1") else "WMT16 recall"
        df = df.assign(_k=pd.to_numeric(df[key], errors="coerce")).sort_values("_k", ascending=False,
                                                                              na_position="last").drop(columns="_k")
        shown = shown_path(results)
        out.used.append(f"{len(df)} runs `{shown}/{task}/{glob}` (+ {shown}/wmt16/ "
                        f"and {shown}/{acfg.get('fixed_test', 'parallel-fixed')}/ of the same names)")
    else:
        out.missing.append(f"runs results/{task}/{glob}")
    out.frames["appendix_a_negatives"] = df.reset_index(drop=True)
    out.notes.append("own test F1 is on each run's own test split, whose negatives come from that run's generators "
                     "(not comparable across rows); fixed test F1 scores every model on the same test split built "
                     "with all six generators; WMT16 recall is the paper's criterion (here over the gold URLs only).")
    return out


def _training_cells(run: Run) -> dict[str, Any]:
    """A run's dev and test macro-F1 and its epochs trained (``not run`` where absent)."""
    test = run.split_metrics("test")
    return {"dev F1": run.dev_f1 if run.dev_f1 is not None else NOT_RUN,
            "test F1": test["macro"]["f1"] if test else NOT_RUN,
            "epochs": (run.metrics or {}).get("epochs_completed", NOT_RUN)}


def _ablation_frame(out: Built, results: Path, cfg: dict[str, Any], acfg: dict[str, Any], default_glob: str,
                    cells: Callable[[Run], dict[str, Any]], columns: list[str]) -> pd.DataFrame:
    """One row per run of an ablation (``cells(run)``, its dev/test F1 and epochs, its name); notes them in ``out``.

    ``acfg`` selects the runs: ``task`` (default ``langid``) and ``glob`` (default ``default_glob``);
    without full-setting runs the small setting's are shown (:func:`family_root`).
    """
    task, glob = str(acfg.get("task", "langid")), str(acfg.get("glob", default_glob))
    root, small, runs = family_root(results, cfg, task, glob)
    rows = [{**cells(run), **_training_cells(run), "run": run.name} for run in runs]
    df = pd.DataFrame(rows, columns=columns)
    if df.empty:
        out.missing.append(f"runs results/{task}/{glob}")
    else:
        out.used.append(f"{len(df)} runs `{shown_path(root)}/{task}/{glob}`")
        if small:
            out.notes.append(SMALL_NOTE.format(root=shown_path(root)))
    return df


def ablation_reinit(results: Path, cfg: dict[str, Any]) -> Built:
    """Ablation: dev and test macro-F1 against the number n of re-initialised top layers (n = 0..5)."""
    out = Built()
    acfg = cfg.get("ablations", {}).get("reinit", {})
    key = str(acfg.get("key", "model.reinit_top_layers"))

    def cells(run: Run) -> dict[str, Any]:
        n = run.config_value(key)
        return {"n": int(n) if n is not None else NOT_RUN, "model": run.config_value("model.name", run.model),
                "train examples": (run.metrics or {}).get("train_examples", NOT_RUN)}

    df = _ablation_frame(out, results, cfg, acfg, "langid-reinit*", cells,
                         ["n", "model", "dev F1", "test F1", "epochs", "train examples", "run"])
    if not df.empty:
        df = df.assign(_n=pd.to_numeric(df["n"], errors="coerce")).sort_values("_n").drop(columns="_n")
    out.frames["ablation_reinit"] = df.reset_index(drop=True)
    return out


def ablation_curriculum(results: Path, cfg: dict[str, Any]) -> Built:
    """Ablation: the fold-growing curriculum against all training data in every epoch."""
    out = Built()

    def cells(run: Run) -> dict[str, Any]:
        start, step = run.config_value("curriculum.start"), run.config_value("curriculum.step")
        m = run.metrics or {}
        return {"curriculum": "all data every epoch" if start in (None, 0) else f"{start:,} + {step or 0:,} per epoch",
                "optimiser steps": m.get("global_steps", NOT_RUN), "seconds": m.get("seconds_this_session", NOT_RUN)}

    out.frames["ablation_curriculum"] = _ablation_frame(
        out, results, cfg, cfg.get("ablations", {}).get("curriculum", {}), "langid-curriculum-*", cells,
        ["curriculum", "dev F1", "test F1", "epochs", "optimiser steps", "seconds", "run"])
    return out
