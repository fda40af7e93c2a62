"""crawl_eval end to end on a tiny websim web (bfs, cld2, smart with the rules scorer), its configs and helpers.

The evaluation runs as ``python crawl_eval.py`` in a subprocess, as a user runs it (its crawls start
Twisted reactors in child processes, never in the test process).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from smartcrawl.analysis.crawl_figure import render_pairs
from smartcrawl.crawl.config import CrawlSettings, StrategyConfig
from smartcrawl.crawl.scoring import RuleScorer
from smartcrawl.crawl.summary import CrawlSummary
from smartcrawl.eval.crawl_experiment import CrawlEval, crawl_eval_from_config
from smartcrawl.eval.crawl_jobs import DONE_FILE, TIMING_FILE, TimedScorer, job_done, mark_done
from smartcrawl.eval.crawl_webs import DebianDocsWeb, WebsimWeb, crawl_sites, site_of_host

REPO = Path(__file__).resolve().parents[1]
STRATEGIES = ("bfs", "cld2", "smart")


def compose_eval(overrides: list[str]) -> Any:
    """The composed ``conf/crawl_eval.yaml``."""
    with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
        return compose(config_name="crawl_eval", overrides=overrides)


@pytest.mark.parametrize("overrides", [
    [],
    ["web=debian-docs", "pair=eng-fin"],
    ["pair=spa-eus", "scorer=neural", "scorer.langid_dir=/models/langid", "scorer.parallel_dir=/models/parallel"],
    ["pair=eng-isl", "+strategy@strategies.smart_drop=smart", "strategies.smart_drop.outside_pair=drop",
     "only_strategies=[bfs,smart_drop]"],
    ["pair=eng-fin", "+strategy@strategies.smart_plus=smart_plus"],
])
def test_config_builds_every_option(overrides: list[str]) -> None:
    exp = crawl_eval_from_config(compose_eval(overrides))
    assert isinstance(exp, CrawlEval)
    assert isinstance(exp.settings, CrawlSettings) and exp.settings.max_pages_per_site == 20000
    assert all(isinstance(s, StrategyConfig) for s in exp.strategies.values())
    assert exp.results_dir() == Path("results/crawl") / exp.pair_name / exp.web.name
    if "web=debian-docs" in overrides:
        assert isinstance(exp.web, DebianDocsWeb) and exp.web.web_id(exp.pair) == \
            "debian-eng-fin-libreoffice+apache+install-guide-b2"
    else:
        assert isinstance(exp.web, WebsimWeb)
    if "only_strategies=[bfs,smart_drop]" in overrides:
        assert list(exp.strategies) == ["bfs", "smart_drop"]
        assert exp.strategies["smart_drop"].outside_pair == "drop"
    elif "+strategy@strategies.smart_plus=smart_plus" in overrides:
        assert list(exp.strategies) == [*STRATEGIES, "smart_plus"]
        plus, paper = exp.strategies["smart_plus"], exp.strategies["smart"]
        assert plus.link_hints and plus.counterparts and not paper.link_hints and not paper.counterparts
    else:
        assert list(exp.strategies) == list(STRATEGIES)
    assert exp.scorer_factory is not None  # built lazily in the crawl process, not here
    if "scorer=neural" in overrides:
        assert exp.scorer_factory.keywords["langid_dir"] == "/models/langid"  # type: ignore[attr-defined]
    else:
        scorer = exp.scorer_factory()
        assert isinstance(scorer, RuleScorer) and scorer.langs == exp.pair


def test_unknown_only_strategy_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown strategies"):
        crawl_eval_from_config(compose_eval(["only_strategies=[nope]"]))


def test_timed_scorer_counts_time_and_urls() -> None:
    timed = TimedScorer(RuleScorer(("eng", "mlt")))
    out = timed.lang_probs(["http://x.test/mt/a", "http://x.test/en/a"], "mlt")
    assert out.tolist() == [1.0, 0.01]
    timed.parallel_probs([("http://x.test/en/a", "http://x.test/mt/a")])
    assert timed.calls == 2 and timed.urls == 3 and timed.seconds > 0


def test_done_marker_follows_the_settings(tmp_path: Path) -> None:
    settings = CrawlSettings(max_pages_per_site=10)
    summary = CrawlSummary(job_dir=str(tmp_path), run=0, finish_reason="finished", elapsed_s=1.0, downloads=3,
                           fetched=3, stored=3, pages_per_s=3.0, fetched_total=3, stored_total=3, stored_by_lang={},
                           by_reason={}, by_status={}, skipped_links={}, frontier_queued=0, frontier_parked=0,
                           recovered={}, warc_files=[], crawl_log="crawl_log.jsonl")
    assert not job_done(tmp_path, settings)
    assert mark_done(summary, settings) and (tmp_path / DONE_FILE).is_file()
    assert job_done(tmp_path, settings)
    assert job_done(tmp_path, CrawlSettings(max_pages_per_site=10, log_level="DEBUG"))  # cosmetic change
    assert not job_done(tmp_path, CrawlSettings(max_pages_per_site=20))  # a bigger budget: resume
    summary.finish_reason = "shutdown"
    assert not mark_done(summary, CrawlSettings(max_pages_per_site=20))


def run_eval(root: Path, extra: list[str] = ()) -> subprocess.CompletedProcess[str]:  # type: ignore[assignment]
    """``python crawl_eval.py`` on a tiny websim web, everything under ``root``."""
    cmd = [sys.executable, str(REPO / "crawl_eval.py"), "pair=eng-mlt", "web.n_sites=3", "web.n_pages=150",
           f"results_root={root / 'results'}", f"work_root={root / 'runs'}", f"web_cache_dir={root / 'webs'}",
           f"hydra.run.dir={root / 'hydra'}", "max_parallel=3", *extra]
    return subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A finished tiny evaluation; yields its root."""
    root = tmp_path_factory.mktemp("crawl_eval")
    proc = run_eval(root)
    assert proc.returncode == 0, proc.stderr[-4000:]
    yield root


def test_files_and_curves(evaluated: Path) -> None:
    out = evaluated / "results" / "eng-mlt" / "websim"
    for name in ("config.yaml", "curves.csv", "curves_sites.csv", "summary.json", "figure.png", "figure.pdf",
                 "table.md"):
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    summary = json.loads((out / "summary.json").read_text())
    curves = pd.read_csv(out / "curves.csv")
    assert set(curves["curve"]) == {*STRATEGIES, "random", "oracle"}
    wide = curves.pivot(index="point", columns="curve", values="found")
    assert wide.index.tolist() == list(range(11)) and (wide.loc[0] == 0).all()
    for name in wide.columns:
        assert (np.diff(wide[name]) >= -1e-9).all(), f"{name} is not monotone"
        assert (wide[name] <= wide["oracle"] + 1e-9).all(), f"the oracle does not dominate {name}"
    per_site = pd.read_csv(out / "curves_sites.csv")
    for _, g in per_site.groupby("site"):
        w = g.pivot(index="point", columns="curve", values="found")
        assert all((w[c] <= w["oracle"] + 1e-9).all() for c in w.columns)
    truth = summary["truth"]
    assert 0 < truth["pairs_reached"] <= truth["pairs_crawled_sites"] <= truth["pairs_web"]
    web_dir = Path(summary["web_dir"])
    assert summary["sites"] == len(crawl_sites(web_dir)) == 3
    for label in STRATEGIES:
        s = summary["strategies"][label]
        assert 0 < s["found_total"] <= truth["pairs_reached"]
        assert s["found_by_point"] == wide[label].tolist()
        assert 0 < s["auc_share_oracle"] <= 1.0
        assert s["sites_exhausted"] == 3 and s["downloads"] > 0 and s["pages_per_s"] > 0
        assert s["scoring_share"] == 0.0 if label != "smart" else 0.0 < s["scoring_share"] < 1.0
    assert summary["references"]["oracle"]["auc_share_oracle"] == 1.0
    # every crawl ran to exhaustion, so all reach every pair of the pool at 100 %
    assert {summary["strategies"][x]["found_total"] for x in STRATEGIES} == {truth["pairs_reached"]}
    assert summary["references"]["random"]["found_total"] == pytest.approx(truth["pairs_reached"])
    table = (out / "table.md").read_text()
    assert "+CLD2+smart" in table and "oracle order" in table and "AUC / oracle" in table
    assert set(site_of_host(web_dir).values()) >= {s.site for s in crawl_sites(web_dir)}


def test_rerun_skips_finished_jobs_and_figure7(evaluated: Path) -> None:
    work = next((evaluated / "runs" / "eng-mlt").iterdir())
    timing = {label: (work / label / TIMING_FILE).read_text() for label in STRATEGIES}
    assert all(len(t.splitlines()) == 1 for t in timing.values())
    before = (evaluated / "results" / "eng-mlt" / "websim" / "curves.csv").read_text()
    proc = run_eval(evaluated)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "every crawl job is finished" in proc.stdout + proc.stderr
    assert {label: (work / label / TIMING_FILE).read_text() for label in STRATEGIES} == timing
    assert (evaluated / "results" / "eng-mlt" / "websim" / "curves.csv").read_text() == before
    paths = render_pairs(evaluated / "results", "websim")
    assert [p.name for p in paths] == ["figure7-websim.png", "figure7-websim.pdf", "table7-websim.md", "sites.md"]


def test_added_strategy_crawls_alone_and_is_labelled(evaluated: Path) -> None:
    """Adding our smart_plus to a finished evaluation crawls only it; the table names its signals."""
    work = next((evaluated / "runs" / "eng-mlt").iterdir())
    timing = {label: (work / label / TIMING_FILE).read_text() for label in STRATEGIES}
    proc = run_eval(evaluated, ["+strategy@strategies.smart_plus=smart_plus"])
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert {label: (work / label / TIMING_FILE).read_text() for label in STRATEGIES} == timing
    out = evaluated / "results" / "eng-mlt" / "websim"
    summary = json.loads((out / "summary.json").read_text())
    plus = summary["strategies"]["smart_plus"]
    assert all(plus["strategy"][k] for k in ("link_hints", "counterparts", "language_marks", "balance_languages"))
    assert plus["found_total"] == summary["truth"]["pairs_reached"] and 0 < plus["auc_share_oracle"] <= 1.0
    label = "+CLD2+smart +link hints +counterparts +language marks +score floor +language lanes (ours)"
    assert label in (out / "table.md").read_text()
