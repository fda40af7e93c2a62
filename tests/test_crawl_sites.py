"""Per-site AUC shares of a crawl (smartcrawl.analysis.crawl_sites)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from smartcrawl.analysis import crawl_sites


def _curve(name: str, site: str, found: list[float]) -> list[dict[str, object]]:
    n = len(found) - 1
    return [{"curve": name, "site": site, "point": i, "percent": 100.0 * i / n, "downloads": 10 * i, "found": f}
            for i, f in enumerate(found)]


def _results(tmp_path: Path, web_dir: Path | None) -> Path:
    rows = (_curve("bfs", "a.test", [0, 0, 4]) + _curve("oracle", "a.test", [0, 4, 4])
            + _curve("bfs", "b.test", [0, 1, 2]) + _curve("oracle", "b.test", [0, 2, 2]))
    root = tmp_path / "res"
    root.mkdir()
    pd.DataFrame(rows).to_csv(root / "curves_sites.csv", index=False)
    summary = {"pair": ["eng", "fin"], "web": "websim", "web_dir": str(web_dir) if web_dir else None,
               "strategies": {"bfs": {}}}
    (root / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    return root


def test_site_areas_are_shares_of_each_sites_oracle(tmp_path: Path) -> None:
    areas = crawl_sites.site_areas(pd.read_csv(_results(tmp_path, None) / "curves_sites.csv"))
    assert areas.loc["a.test", "bfs"] == pytest.approx(1.0) and areas.loc["a.test", "oracle"] == pytest.approx(3.0)
    assert areas.loc["b.test", "bfs"] == pytest.approx(1.0) and areas.loc["b.test", "pairs"] == 2


def test_sites_table_joins_the_web_description_and_sums_by_switcher(tmp_path: Path) -> None:
    web = tmp_path / "web"
    (web / "truth").mkdir(parents=True)
    pd.DataFrame({"host": ["a.test", "b.test"], "convention": ["opaque_id", "dir_code"],
                  "switcher": ["none", "hreflang"], "langs": ["eng,fin", "fin,eng"]}).to_parquet(
        web / "truth" / "sites.parquet")
    text = crawl_sites.render(_results(tmp_path, web)).read_text(encoding="utf-8")
    assert "| a.test | 4 | 33.3 % | opaque_id | none | eng,fin |" in text
    assert "| b.test | 2 | 66.7 % | dir_code | hreflang | fin,eng |" in text
    assert "| none | 1 | 4 | 33.3 % |" in text and "| hreflang | 1 | 2 | 66.7 % |" in text


def test_sites_table_without_a_description(tmp_path: Path) -> None:
    text = crawl_sites.render(_results(tmp_path, tmp_path / "gone")).read_text(encoding="utf-8")
    assert "| a.test | 4 | 33.3 % |" in text and "switcher" not in text


def test_ablation_table_gives_each_variants_change(tmp_path: Path) -> None:
    from smartcrawl.analysis import crawl_ablation

    for pair, shares in {"eng-fin": {"smart_plus": 0.8, "no_balance": 0.75}, "eng-mlt": {"smart_plus": 0.84}}.items():
        out = tmp_path / pair / "websim"
        out.mkdir(parents=True)
        summary = {"pair": pair.split("-"), "strategies": {k: {"auc_share_oracle": v} for k, v in shares.items()}}
        (out / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    text = crawl_ablation.render(tmp_path).read_text(encoding="utf-8")
    assert "| eng-fin | 80.0 % | 75.0 % (-5.0) |" in text and "| eng-mlt | 84.0 % | - |" in text
    with pytest.raises(FileNotFoundError, match="no results for web 'debian-docs'"):
        crawl_ablation.render(tmp_path, "debian-docs")
