"""``python -m smartcrawl.web websim*`` sub-commands."""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd
import pytest

from smartcrawl.web.cli import build_parser, main
from smartcrawl.web.store import WebStore
from smartcrawl.web.websim.cli import parse_pair


def test_parse_pair() -> None:
    assert parse_pair("eng-mlt") == ("eng", "mlt")
    assert parse_pair("es-eu") == ("spa", "eus")
    with pytest.raises(argparse.ArgumentTypeError):
        parse_pair("eng")
    with pytest.raises(argparse.ArgumentTypeError):
        parse_pair("eng-eng")


def test_subcommands_are_registered() -> None:
    parser = build_parser()
    for cmd in (["websim", "--out", "x"], ["websim-calibrate"], ["websim-cld2"], ["websim-export", "a", "b"]):
        assert callable(parser.parse_args(cmd).func)


def test_generate_export_and_cld2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    web = tmp_path / "web"
    assert main(["websim", "--pair", "eng-fin", "--sites", "3", "--pages", "300", "--seed", "1",
                 "--out", str(web), "--no-traps", "--other-langs", "0-1"]) == 0
    assert "websim eng-fin" in capsys.readouterr().out
    store = WebStore(web)
    assert store.manifest()["pair"] == ["eng", "fin"]
    assert pd.read_parquet(web / "truth" / "traps.parquet").empty  # --no-traps
    assert main(["websim-export", str(web), str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "paracrawl" / "sorted.en-fi").is_file()
    assert main(["websim-cld2", "--web", str(web), "--pages-per-lang", "30"]) == 0
    out = capsys.readouterr().out
    assert "eng" in out and "fin" in out and "accuracy" in out


def test_generate_with_a_custom_mix(tmp_path: Path) -> None:
    web = tmp_path / "web"
    assert main(["websim", "--pair", "spa-eus", "--sites", "2", "--pages", "150", "--out", str(web),
                 "--mix", '{"subdomain": 1}']) == 0
    hosts = {s.host for s in WebStore(web).sites()}
    assert len(hosts) > 2  # one host per language subdomain
