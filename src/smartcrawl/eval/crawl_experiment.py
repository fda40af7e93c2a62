"""``crawl_eval``: build and serve a test-bed web, crawl every site with each strategy, write the curves.

:func:`run_crawl_eval` takes built objects (a :class:`CrawlEval`); :func:`crawl_eval_from_config` is
the thin adapter from the composed ``conf/crawl_eval.yaml``. Steps:

1. the web source builds the pair's web into the cache (once; :mod:`smartcrawl.eval.crawl_webs`);
2. the web is served on loopback by ``python -m smartcrawl.web serve`` in its own process;
3. each strategy crawls every site (one job per site with seeds, under
   ``<work_root>/<pair>/<web id>/<strategy>/<site>/``) in a child process, strategies one after the
   other; finished jobs are skipped (:mod:`smartcrawl.eval.crawl_jobs`), so a re-run resumes;
4. the crawl logs and the truth give per-site curves and the random and oracle references
   (:mod:`smartcrawl.eval.crawl_curves`), summed over sites;
5. ``<results_root>/<pair>/<web name>/`` gets ``config.yaml``, ``curves.csv`` (summed: ``curve, point,
   percent, found, downloads``), ``curves_sites.csv`` (per site), ``summary.json`` and the figure and
   table of :mod:`smartcrawl.analysis.crawl_figure`.

Speed (``summary.json``: ``pages_per_s``, ``scoring_share``) is measured over the crawl runs of each
strategy: pages fetched / wall time of the child's ``run_crawls`` call, and the time spent inside the
URL scorer / the same wall time (0 for strategies without a scorer).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from smartcrawl.crawl.config import CrawlSettings, StrategyConfig
from smartcrawl.crawl.crawllog import read_crawl_log
from smartcrawl.crawl.runner import CrawlSpec
from smartcrawl.crawl.scoring import UrlScorer
from smartcrawl.eval import crawl_curves as cc
from smartcrawl.eval.crawl_jobs import StrategyRun, job_done, read_timing, run_strategy_in_child
from smartcrawl.eval.crawl_webs import CrawlSite, WebSource, crawl_sites, site_of_host

log = logging.getLogger(__name__)

CONFIG_NAME = "crawl_eval"


@dataclass
class CrawlEval:
    """One crawl evaluation: a pair, a web, the strategies (label -> config) and where files go."""

    pair: tuple[str, str]
    web: WebSource
    strategies: Mapping[str, StrategyConfig]
    settings: CrawlSettings
    results_root: Path
    work_root: Path
    cache_dir: Path
    scorer_factory: Callable[[], UrlScorer] | None = None
    max_parallel: int = 4
    n_points: int = 10
    max_sites: int | None = None
    server_latency_ms: float = 0.0
    config: Mapping[str, Any] = field(default_factory=dict)

    @property
    def pair_name(self) -> str:
        """``l1-l2``."""
        return f"{self.pair[0]}-{self.pair[1]}"

    def results_dir(self) -> Path:
        """``<results_root>/<pair>/<web name>``."""
        return self.results_root / self.pair_name / self.web.name

    def work_dir(self) -> Path:
        """``<work_root>/<pair>/<web id>``: the crawl jobs (big; outside results/)."""
        return self.work_root / self.pair_name / self.web.web_id(self.pair)


def job_dir(work_dir: Path, label: str, site: str) -> Path:
    """Where the job of ``site`` crawled with strategy ``label`` lives."""
    return work_dir / label / site


@contextlib.contextmanager
def served_web(web_dir: Path, latency_ms: float = 0.0, log_path: Path | None = None,
               timeout_s: float = 60.0) -> Iterator[str]:
    """Serve ``web_dir`` on loopback in a child process (``python -m smartcrawl.web serve``); yields the proxy URL.

    The server's own messages go to ``log_path`` (discarded when ``None``).
    """
    with tempfile.TemporaryDirectory(prefix="crawl_eval_srv_") as tmp, \
            (log_path.open("a", encoding="utf-8") if log_path else open(os.devnull, "w")) as err:
        port_file = Path(tmp) / "port"
        cmd = [sys.executable, "-m", "smartcrawl.web", "serve", str(web_dir), "--port", "0",
               "--port-file", str(port_file), "--latency-ms", str(latency_ms)]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        try:
            deadline = time.monotonic() + timeout_s
            while not (port_file.exists() and port_file.read_text().strip()):
                if proc.poll() is not None:
                    raise RuntimeError(f"the test-bed server exited with {proc.returncode} (see {log_path})")
                if time.monotonic() > deadline:
                    raise TimeoutError("the test-bed server did not start")
                time.sleep(0.05)
            yield f"http://127.0.0.1:{int(port_file.read_text().strip())}"
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def pending_runs(exp: CrawlEval, sites: Sequence[CrawlSite], proxy_url: str | None) -> list[StrategyRun]:
    """One :class:`StrategyRun` per strategy holding the jobs not finished yet (with these settings)."""
    work = exp.work_dir()
    runs: list[StrategyRun] = []
    for label, strategy in exp.strategies.items():
        specs = [CrawlSpec(job_dir=job_dir(work, label, s.site), seeds=list(s.seeds), pair=exp.pair,
                           strategy=strategy, settings=exp.settings, proxy_url=proxy_url)
                 for s in sites if not job_done(job_dir(work, label, s.site), exp.settings)]
        if specs:
            runs.append(StrategyRun(label, specs, work / label,
                                    exp.scorer_factory if strategy.name == "smart" else None, exp.max_parallel))
    return runs


def evaluate_jobs(work_dir: Path, labels: Sequence[str], sites: Sequence[CrawlSite], pages: pd.DataFrame,
                  n_points: int) -> pd.DataFrame:
    """Per-site curves (:func:`~smartcrawl.eval.crawl_curves.site_curves`) of the jobs under ``work_dir``."""
    frames = []
    for s in sites:
        logs = {label: read_crawl_log(job_dir(work_dir, label, s.site)) for label in labels}
        frames.append(cc.site_curves(logs, pages, s.site, n_points))
    return pd.concat(frames, ignore_index=True)


def crawl_stats(work_dir: Path, label: str, sites: Sequence[CrawlSite]) -> dict[str, Any]:
    """Downloads, stored pages and exhausted sites of a strategy's jobs, and its speed (timing lines)."""
    downloads = stored = exhausted = 0
    for s in sites:
        jd = job_dir(work_dir, label, s.site)
        log_ = read_crawl_log(jd)
        downloads += int(log_["fetched"].sum())
        stored += int(log_["stored"].sum())
        summary_path = jd / "summary.json"
        if summary_path.exists():
            summ = json.loads(summary_path.read_text())
            exhausted += int(summ.get("frontier_queued", 1) == 0 and summ.get("frontier_parked", 1) == 0)
    timing = read_timing(work_dir / label)
    wall = sum(float(t["wall_s"]) for t in timing)
    fetched = sum(int(t["fetched"]) for t in timing)
    scoring = sum(float(t["scoring_s"]) for t in timing)
    return {
        "sites": len(sites), "sites_exhausted": exhausted, "downloads": downloads, "stored": stored,
        "timed_runs": len(timing), "timed_fetched": fetched, "wall_s": round(wall, 3), "scoring_s": round(scoring, 3),
        "pages_per_s": round(fetched / wall, 2) if wall > 0 else None,
        "scoring_share": round(scoring / wall, 4) if wall > 0 else None,
        "scored_urls": sum(int(t.get("scored_urls", 0)) for t in timing),
    }


def _curve_entry(totals: pd.DataFrame, name: str, shares: Mapping[str, float]) -> dict[str, Any]:
    sub = totals[totals["curve"] == name].sort_values("point")
    found = [float(x) for x in sub["found"]]
    share = float(shares[name])
    return {"found_by_point": [round(x, 3) for x in found], "found_total": round(found[-1], 3),
            "downloads_by_point": [int(x) for x in sub["downloads"]],
            "auc": round(cc.auc(found), 4), "auc_share_oracle": round(share, 4) if math.isfinite(share) else None}


def build_summary(exp: CrawlEval, web_dir: Path, sites: Sequence[CrawlSite], groups: pd.DataFrame,
                  pages: pd.DataFrame, per_site: pd.DataFrame, totals: pd.DataFrame) -> dict[str, Any]:
    """The ``summary.json`` dict: totals, AUC shares, speed per strategy, references and the truth's totals."""
    shares = cc.auc_shares(totals)
    host_site = site_of_host(web_dir)
    crawled = {s.site for s in sites}
    truth_by_site = cc.pairs_by_site(groups, exp.pair, host_site)
    strategies: dict[str, Any] = {}
    for label, strategy in exp.strategies.items():
        entry = {"strategy": dataclasses.asdict(strategy), **_curve_entry(totals, label, shares)}
        entry.update(crawl_stats(exp.work_dir(), label, sites))
        strategies[label] = entry
    last = per_site[per_site["point"] == per_site["point"].max()]
    site_rows = {
        s.site: {"truth_pairs": int(truth_by_site.get(s.site, 0)),
                 **{f"found_{c}": round(float(v), 3) for c, v in
                    last[last["site"] == s.site].set_index("curve")["found"].items()},
                 **{f"downloads_{c}": int(v) for c, v in
                    last[last["site"] == s.site].set_index("curve")["downloads"].items()}}
        for s in sites
    }
    return {
        "pair": list(exp.pair), "web": exp.web.name, "web_id": exp.web.web_id(exp.pair), "web_dir": str(web_dir),
        "work_dir": str(exp.work_dir()), "n_points": exp.n_points,
        "percent": [round(100.0 * j / exp.n_points, 3) for j in range(exp.n_points + 1)],
        "sites": len(sites),
        "truth": {"pairs_web": cc.count_pairs(pages),
                  "pairs_crawled_sites": int(sum(v for k, v in truth_by_site.items() if k in crawled)),
                  "pairs_reached": round(float(totals.loc[(totals["curve"] == cc.ORACLE)
                                                           & (totals["point"] == exp.n_points), "found"].sum()), 3)},
        "strategies": strategies,
        "references": {name: _curve_entry(totals, name, shares) for name in cc.REFERENCES},
        "settings": dataclasses.asdict(exp.settings), "max_parallel": exp.max_parallel,
        "server_latency_ms": exp.server_latency_ms,
        "per_site": site_rows,
        "definitions": "see smartcrawl.eval.crawl_curves (found = both pages of a truth pair stored within the"
                       " first k downloads; k_j = round(j/n x the site's downloads); references over the pool of"
                       " pages the compared crawls downloaded; AUC by trapezoids, as a share of the oracle's)",
    }


def write_results(out: Path, exp: CrawlEval, per_site: pd.DataFrame, totals: pd.DataFrame,
                  summary: Mapping[str, Any]) -> None:
    """Write ``config.yaml``, ``curves.csv``, ``curves_sites.csv`` and ``summary.json`` into ``out``."""
    import yaml

    out.mkdir(parents=True, exist_ok=True)
    (out / "config.yaml").write_text(yaml.safe_dump(dict(exp.config), sort_keys=False, allow_unicode=True))
    totals[["curve", "point", "percent", "found", "downloads"]].to_csv(out / "curves.csv", index=False)
    per_site.to_csv(out / "curves_sites.csv", index=False)
    (out / "summary.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False, sort_keys=False) + "\n")


def run_crawl_eval(exp: CrawlEval, draw: bool = True) -> dict[str, Any]:
    """Run the evaluation (module docstring) and return the summary written to ``summary.json``."""
    if not exp.strategies:
        raise ValueError("no strategy to evaluate")
    web_dir = exp.web.build(exp.pair, exp.cache_dir)
    sites = crawl_sites(web_dir)
    if exp.max_sites is not None:
        sites = sites[: exp.max_sites]
    if not sites:
        raise ValueError(f"the web at {web_dir} has no site with seeds")
    if pending_runs(exp, sites, None):
        exp.work_dir().mkdir(parents=True, exist_ok=True)
        with served_web(web_dir, exp.server_latency_ms, exp.work_dir() / "server.log") as proxy:
            for run in pending_runs(exp, sites, proxy):
                line = run_strategy_in_child(run)
                log.info("%s: %d jobs, %d pages in %.1f s (%.1f pages/s, scoring %.1f s)", run.label, line["jobs"],
                         line["fetched"], line["wall_s"], line["fetched"] / max(line["wall_s"], 1e-9),
                         line["scoring_s"])
    else:
        log.info("every crawl job is finished: evaluating the existing crawl logs")
    groups = pd.read_parquet(Path(web_dir) / "truth" / "groups.parquet")
    pages = cc.pair_pages(groups, exp.pair)
    per_site = evaluate_jobs(exp.work_dir(), list(exp.strategies), sites, pages, exp.n_points)
    totals = cc.sum_over_sites(per_site)
    summary = build_summary(exp, Path(web_dir), sites, groups, pages, per_site, totals)
    out = exp.results_dir()
    write_results(out, exp, per_site, totals, summary)
    if draw:
        from smartcrawl.analysis.crawl_figure import render

        render(out)
    return summary


def crawl_eval_from_config(cfg: Any) -> CrawlEval:
    """The thin adapter: a :class:`CrawlEval` from the composed ``conf/crawl_eval.yaml`` (a DictConfig)."""
    from hydra.utils import instantiate
    from omegaconf import OmegaConf

    from smartcrawl.crawl.config import crawl_settings_from_mapping, strategy_from_mapping

    plain = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(plain, dict)
    langs = [str(x) for x in plain["pair"]["langs"]]
    if len(langs) != 2 or langs[0] == langs[1]:
        raise ValueError(f"pair.langs must hold two different languages, got {langs}")
    strategies = {str(k): strategy_from_mapping(v) for k, v in (plain.get("strategies") or {}).items()
                  if v is not None}
    only = plain.get("only_strategies")
    if only:
        unknown = sorted(set(only) - set(strategies))
        if unknown:
            raise ValueError(f"only_strategies names unknown strategies {unknown} (known: {sorted(strategies)})")
        strategies = {k: v for k, v in strategies.items() if k in set(only)}
    scorer_factory = None
    if any(s.name == "smart" for s in strategies.values()) and cfg.get("scorer") is not None:
        scorer_factory = instantiate(cfg.scorer, _partial_=True, _convert_="all")
    return CrawlEval(
        pair=(langs[0], langs[1]), web=instantiate(cfg.web, _convert_="all"), strategies=strategies,
        settings=crawl_settings_from_mapping(plain.get("crawl")), results_root=Path(plain["results_root"]),
        work_root=Path(plain["work_root"]), cache_dir=Path(plain["web_cache_dir"]), scorer_factory=scorer_factory,
        max_parallel=int(plain.get("max_parallel", 4)), n_points=int(plain.get("n_points", 10)),
        max_sites=plain.get("max_sites"), server_latency_ms=float(plain.get("server_latency_ms", 0.0)),
        config={str(k): v for k, v in plain.items()},
    )
