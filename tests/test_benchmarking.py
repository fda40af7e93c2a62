"""The benchmarks' shared result writer: machine figures, the JSON file, and one benchmark end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from smartcrawl.benchmarking import load_average, machine_info, write_result


def test_machine_info_has_cpus_and_load_in_each_form() -> None:
    assert set(machine_info()) == {"cpus", "load_average_1min"}
    assert machine_info()["cpus"] == os.cpu_count()
    before = load_average()
    span = machine_info(before)["load_average_1min"]
    assert isinstance(span, list) and span[0] == before and len(span) == 2
    split = machine_info(before, split=True)
    assert list(split) == ["cpus", "load_average_1min_before", "load_average_1min_after"]
    assert split["load_average_1min_before"] == before


def test_write_result_makes_the_folder_and_skips_none(tmp_path: Path) -> None:
    out = tmp_path / "a" / "b" / "result.json"
    write_result(out, {"x": 1, "rows": [{"y": 2.5}]})
    assert out.read_text() == json.dumps({"x": 1, "rows": [{"y": 2.5}]}, indent=2) + "\n"
    write_result(None, {"x": 1})
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == ["result.json"]


def test_prepare_cdx_benchmark_writes_its_keys(repo_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "bench" / "prepare_cdx.json"
    subprocess.run([sys.executable, str(repo_root / "benchmarks" / "prepare_cdx.py"), "--urls", "400",
                    "--workdir", str(tmp_path / "work"), "--json", str(out)], check=True, cwd=repo_root,
                   capture_output=True)
    result = json.loads(out.read_text())
    assert set(result) == {"urls", "seconds_wall", "seconds_cpu", "urls_per_s_wall", "urls_per_s_cpu", "peak_rss_gib",
                           "kept", "languages", "duplicates", "max_per_lang", "load_average_1min", "cpus"}
    assert result["urls"] == 400 and result["cpus"] == os.cpu_count()
