"""The report (make figures): every item and notebook on FIXTURE results written here, and on none.

The fixture results below are made up (marked ``"FIXTURE": true``) but follow the schema the runs
write: ``results/<task>/<run>/{metrics.json, config.yaml, predictions.parquet}``, data cards,
WMT16 and crawl results. Their metrics are computed from their predictions with the project's one
metric function, so every table can be checked against them.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import nbformat
import pandas as pd
import pytest
import yaml

from smartcrawl.analysis import items as items_mod
from smartcrawl.analysis.items import ITEM_NAMES, ITEMS, build_all
from smartcrawl.analysis.markdown import NOT_RUN, to_markdown
from smartcrawl.analysis.notebooks import check_notebooks, expected_notebooks, has_outputs
from smartcrawl.analysis.report import write_report
from smartcrawl.analysis.selection import load_report_config, pick_ours
from smartcrawl.eval.metrics import classification_metrics

LANGS = ("eng", "fra", "mlt")
PAIRS = ("eng-fra", "eng-mlt")
CODES = {"eng": "en", "fra": "fr", "mlt": "mt"}


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".json":
        path.write_text(json.dumps(data, indent=1))
    elif path.suffix == ".yaml":
        path.write_text(yaml.safe_dump(data))
    else:
        data.to_parquet(path, index=False)


def _langid_run(root: Path, name: str, urls: list[tuple[str, str]], err: float, seed: int, trained: bool,
                config: dict[str, Any] | None = None, dev_f1: float | None = None) -> None:
    rng = random.Random(seed)
    pred = [(g if rng.random() > err else rng.choice([*LANGS, "und"])) for _, g in urls]
    df = pd.DataFrame({"url": [u for u, _ in urls], "lang": [g for _, g in urls], "pred": pred})
    if trained:
        df["gold"] = df["lang"]
    m = classification_metrics(df["lang"].tolist(), pred)
    metrics: dict[str, Any] = {"FIXTURE": True, "test": m}
    if trained:
        metrics["best_dev_macro_f1"] = dev_f1 if dev_f1 is not None else m["macro"]["f1"]
        metrics.update(task="langid", model="tiny", epochs_completed=1, global_steps=10, train_examples=100,
                       seconds_this_session=1.0)
    else:
        metrics.update(model={"url-rules": "url_rules", "fasttext": "fasttext_url"}[name],
                       dev={"macro": m["macro"]})
    _write(root / "langid" / name / "metrics.json", metrics)
    _write(root / "langid" / name / "predictions.parquet", df)
    if config is not None:
        _write(root / "langid" / name / "config.yaml", config)


def _pair_rows() -> pd.DataFrame:
    rows = []
    for pair in PAIRS:
        a, b = (CODES[x] for x in pair.split("-"))
        for d in range(12):
            for i in range(10):
                src, trg = f"http://site{d}.example.org/{a}/p{i}", f"http://site{d}.example.org/{b}/p{i}"
                rows.append((src, trg, pair, "positive", 1, pair))
                rows.append((src, f"http://site{d}.example.org/{b}/p{(i + 1) % 10}", pair, "rand_bi", 0, pair))
                rows.append((src, f"http://site{d}.example.org/{a}/p{(i + 2) % 10}", "eng-eng", "rand_mono", 0, pair))
    return pd.DataFrame(rows, columns=["src_url", "trg_url", "pair", "kind", "label", "origin_pair"])


def _pair_run(root: Path, task: str, name: str, rows: pd.DataFrame, err: float, seed: int, baseline: bool,
              config: dict[str, Any] | None = None) -> None:
    rng = random.Random(seed)
    pred = [(y if rng.random() > err else 1 - y) for y in rows["label"]]
    labels = ["non-parallel", "parallel"]
    m = classification_metrics([labels[y] for y in rows["label"]], [labels[p] for p in pred], labels=labels)
    if baseline:
        df = rows.drop(columns="origin_pair").assign(split="test", pred=pred)
        metrics = {"FIXTURE": True, "model": "url_matching", "test": m}
    else:
        df = rows.assign(gold=[labels[y] for y in rows["label"]], pred=[labels[p] for p in pred], prob=0.9)
        metrics = {"FIXTURE": True, "task": "parallel", "model": "tiny", "test": m,
                   "best_dev_macro_f1": 60.0 + seed / 10, "epochs_completed": 1, "train_examples": 100}
    _write(root / task / name / "metrics.json", metrics)
    _write(root / task / name / "predictions.parquet", df)
    if config is not None:
        _write(root / task / name / "config.yaml", config)


def _crawl(root: Path, pair: str) -> None:
    d = root / "crawl" / pair / "websim"
    percent = [10.0 * i for i in range(11)]
    curves, strategies = [], {}
    for name, power in (("bfs", 1.6), ("cld2", 1.4), ("smart", 0.8), ("random", 1.7), ("oracle", 0.4)):
        found = [round(100 * (p / 100) ** power, 1) for p in percent]
        curves += [{"curve": name, "point": i, "percent": p, "found": f, "downloads": 10 * i}
                   for i, (p, f) in enumerate(zip(percent, found))]
        strategies[name] = {"strategy": {"name": name}, "found_by_point": found, "auc_share_oracle": 0.5}
    d.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(curves).to_csv(d / "curves.csv", index=False)
    refs = {k: strategies.pop(k) for k in ("random", "oracle")}
    _write(d / "summary.json", {"FIXTURE": True, "pair": pair.split("-"), "web": "websim", "sites": 3,
                                "percent": percent, "strategies": strategies, "references": refs,
                                "truth": {"pairs_crawled_sites": 100, "pairs_reached": 100}})
    _write(d / "config.yaml", {"scorer": {"_target_": "smartcrawl.crawl.scoring.RuleScorer"}})


def write_fixture_results(root: Path) -> Path:
    """A complete FIXTURE results tree (every item has its runs)."""
    urls = [(f"http://www.{lang}site{d}.com/{CODES[lang]}/page{i}", lang)
            for lang in LANGS for d in range(12) for i in range(10)]
    train_cfg = {"model": {"name": "tiny", "encoder": "tiny", "num_layers": None, "reinit_top_layers": 1},
                 "data": {"sources": [{"kind": "paracrawl", "path": "x"}]}, "curriculum": {"start": None, "step": 0},
                 "train": {"max_test": None}}
    _langid_run(root, "url-rules", urls, 0.4, 1, trained=False)
    _langid_run(root, "fasttext", urls, 0.25, 2, trained=False)
    _langid_run(root, "langid-small", urls[::2], 0.1, 3, trained=True, config=train_cfg)
    for n in (0, 1, 2):
        cfg = {**train_cfg, "model": {**train_cfg["model"], "reinit_top_layers": n}}
        _langid_run(root, f"langid-reinit{n}", urls[::3], 0.1 + 0.05 * n, 10 + n, trained=True, config=cfg)
    for name, start in (("grow", 50), ("none", None)):
        cfg = {**train_cfg, "curriculum": {"start": start, "step": 50 if start else 0}}
        _langid_run(root, f"langid-curriculum-{name}", urls[::3], 0.2, 20, trained=True, config=cfg)
    (root / "langid" / "langid-partial").mkdir(parents=True)  # interrupted: no metrics.json
    per_lang = {lang: {"train": 300, "dev": 40, "test": 120} for lang in LANGS}
    _write(root / "data" / "langid.card.json", {
        "FIXTURE": True, "task": "langid", "languages": 3, "per_language": per_lang, "input_records": 1500,
        "duplicates": 20, "rejected_total": 0, "kept_per_source": {"paracrawl": 1480},
        "splits": {s: {"urls": sum(v[s] for v in per_lang.values()), "domains": 30} for s in ("train", "dev", "test")}})
    cells = {p: {s: {"positives": 10, "negatives": 30} for s in ("train", "dev", "test")} for p in PAIRS}
    _write(root / "data" / "parallel-rand+jaccard+remove.card.json", {
        "FIXTURE": True, "task": "parallel", "table2": cells, "rejected_total": 0,
        "negatives": {"generators": ["rand_bi", "rand_mono"], "per_positive": 1},
        "splits": {s: {"positives": 20, "negatives": 60, "by_kind": {"positive": 20, "rand_bi": 60}}
                   for s in ("train", "dev", "test")}})
    rows = _pair_rows()
    _pair_run(root, "parallel", "url-matching", rows, 0.3, 4, baseline=True)
    _pair_run(root, "parallel", "parallel-small", rows, 0.1, 5, baseline=False, config=train_cfg)
    for i, combo in enumerate(("rand_bi", "rand_bi+rand_mono+jaccard_bi+jaccard_mono+remove_bi")):
        run = f"parallel-neg-{combo}"
        _pair_run(root, "parallel", run, rows, 0.2, 30 + i, baseline=False, config={**train_cfg, "negatives": combo})
        _pair_run(root, "parallel-fixed", run, rows, 0.15 + 0.05 * i, 40 + i, baseline=False)
        _write(root / "wmt16" / run / "metrics.json", {"FIXTURE": True, "scorer": f"model:{run}", "recall": 50.0 + i,
                                                      "soft_recall": None, "n_gold": 30})
    _write(root / "wmt16" / "url-matching" / "metrics.json", {
        "FIXTURE": True, "scorer": "url_matching", "recall": 55.5, "soft_recall": None, "n_gold": 30,
        "soft_recall_null_reason": "no .lett files", "candidate_set": "gold URLs only"})
    _write(root / "wmt16" / "parallel-small" / "metrics.json", {"FIXTURE": True, "scorer": "model:x", "recall": 61.0,
                                                                "soft_recall": 64.0, "n_gold": 30})
    for pair in ("eng-mlt", "eng-isl"):
        _crawl(root, pair)
    return root


@pytest.fixture(scope="module")
def fixture_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The FIXTURE results tree, written once for this module."""
    return write_fixture_results(tmp_path_factory.mktemp("fixture") / "results")


def _expected_files(out: Path) -> None:
    for name in ITEM_NAMES:
        record = json.loads((out / "_items" / f"{name}.json").read_text())
        assert record["tables"], name
        for stem in record["tables"]:
            assert (out / f"{stem}.md").stat().st_size > 0 and (out / f"{stem}.csv").is_file(), stem
        for stem in record["figures"]:
            assert (out / f"{stem}.png").stat().st_size > 1000 and (out / f"{stem}.pdf").is_file(), stem
    page = (out / "README.md").read_text()
    for item in ITEMS:
        assert f"## {item.title}" in page


def test_every_item_on_fixture_results(fixture_results: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    build_all(fixture_results, out)
    write_report(out)
    _expected_files(out)
    for stem in ("table1_langid", "table3_wmt16", "table4_parallel", "figure5_pairs", "appendix_a_negatives",
                 "ablation_reinit", "ablation_curriculum", "figure3_per_language"):
        assert NOT_RUN not in (out / f"{stem}.md").read_text(), stem
    t1 = pd.read_csv(out / "table1_langid.csv")
    assert list(t1["run"]) == ["url-rules", "fasttext", "langid-small"]
    assert set(t1["test URLs"].astype(int)) == {180}  # the URLs every system predicted
    assert list(t1["paper F1"]) == [38.24, 57.41, 69.22]
    f3 = pd.read_csv(out / "figure3_per_language.csv")  # 120 test URLs and 12 domains per language pass 100/10
    assert sorted(f3["language"]) == sorted(LANGS) and set(f3["domains"]) == {12}
    t4 = pd.read_csv(out / "table4_parallel.csv")
    assert len(t4) == 9 and set(t4["class"]) == {"parallel", "non-parallel", "macro"}
    assert sorted(pd.read_csv(out / "figure5_pairs.csv")["pair"]) == list(PAIRS)  # eng-eng folded into its pair
    assert list(pd.read_csv(out / "ablation_reinit.csv")["n"]) == [0, 1, 2]
    appa = pd.read_csv(out / "appendix_a_negatives.csv")
    assert appa["paper's best"].fillna("").tolist().count("yes") == 1
    assert (out / "figure7_crawl_websim.png").is_file()
    page = (out / "README.md").read_text()
    assert "langid-small" in page and "named run" in page


def test_missing_runs_say_not_run(tmp_path: Path) -> None:
    out = tmp_path / "report"
    build_all(tmp_path / "empty-results", out)
    write_report(out)
    _expected_files(out)
    page = (out / "README.md").read_text()
    assert "not run" in page and "python experiments/table1_langid.py --size full" in page
    assert NOT_RUN in (out / "table1_langid.md").read_text()


def test_ours_fallback_is_best_dev(fixture_results: Path, tmp_path: Path) -> None:
    cfg = load_report_config()
    assert pick_ours(fixture_results, "langid", cfg).name == "langid-small"
    cfg = {**cfg, "langid": {**cfg["langid"], "ours": []}}
    choice = pick_ours(fixture_results, "langid", cfg)  # reinit/curriculum runs are excluded from the fallback
    assert choice.name == "langid-small" and "fallback" in choice.rule
    assert pick_ours(tmp_path, "langid", cfg).run is None


def test_stored_notebooks_are_current_and_empty(repo_root: Path) -> None:
    assert check_notebooks(repo_root / "notebooks") == []
    assert len(expected_notebooks()) == len(ITEMS)
    for path in (repo_root / "notebooks").glob("*.ipynb"):
        assert not has_outputs(nbformat.read(str(path), as_version=4)), path


def test_notebooks_execute_on_fixture_results(repo_root: Path, fixture_results: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Every stored notebook's code, run by a real kernel on the fixture results (one kernel for all, for speed)."""
    from nbclient import NotebookClient

    out = tmp_path / "report"
    monkeypatch.setenv(items_mod.RESULTS_ENV, str(fixture_results))
    monkeypatch.setenv(items_mod.REPORT_ENV, str(out))
    combined = nbformat.v4.new_notebook()
    for path in sorted((repo_root / "notebooks").glob("*.ipynb")):
        combined.cells += [c for c in nbformat.read(str(path), as_version=4).cells if c.cell_type == "code"]
    assert len(combined.cells) == len(ITEMS)
    NotebookClient(combined, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(repo_root)}}).execute()
    assert any(o.get("output_type") == "display_data" for c in combined.cells for o in c.outputs)
    write_report(out)
    _expected_files(out)


@pytest.mark.slow
def test_make_figures_runs_each_notebook(repo_root: Path, fixture_results: Path, tmp_path: Path) -> None:
    from smartcrawl.analysis.notebooks import main

    out = tmp_path / "report"
    assert main(["run", "--dir", str(repo_root / "notebooks"), "--results", str(fixture_results),
                 "--out", str(out)]) == 0
    _expected_files(out)


def test_markdown_table() -> None:
    df = pd.DataFrame({"a": ["x|y", "z"], "n": [1234, None], "f": [1.5, float("nan")]})
    md = to_markdown(df)
    assert md.splitlines()[1] == "|---|---:|---:|"
    assert "x\\|y" in md and "1,234" in md and "| – |" in md


def test_ablations_fall_back_to_the_small_setting(fixture_results: Path, tmp_path: Path) -> None:
    """Without full-setting ablation runs the tables show results/small/'s, and say so; full runs win."""
    from smartcrawl.analysis import tables

    cfg = load_report_config()
    only_small = tmp_path / "results"
    src = fixture_results / "langid"
    for run in src.glob("langid-reinit*"):
        dst = only_small / "small" / "langid" / run.name
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.symlink_to(run.resolve(), target_is_directory=True)
    built = tables.ablation_reinit(only_small, cfg)
    assert list(built.frames["ablation_reinit"]["n"]) == [0, 1, 2]
    assert any("--size small" in note for note in built.notes)
    full = tables.ablation_reinit(fixture_results, cfg)  # full-setting runs exist: no fallback, no note
    assert not any("--size small" in note for note in full.notes)
    assert tables.ablation_curriculum(only_small, cfg).frames["ablation_curriculum"].empty
