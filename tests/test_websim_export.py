"""websim export: ParaCrawl-layout pairs and CDX lines, read back with the project's source readers."""

from __future__ import annotations

from pathlib import Path

import pytest

from smartcrawl.data.records import Rejects
from smartcrawl.data.sources import iter_lang_records, iter_pair_records
from smartcrawl.web.store import WebStore
from smartcrawl.web.websim import build_websim, export_for_prepare
from smartcrawl.web.websim.export import cdx_line, surt_key


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("websim_export")
    store = build_websim(root / "web", ("eng", "mlt"), n_sites=5, n_pages=800, seed=2, other_langs=(1, 1))
    export_for_prepare(store, root / "out")
    return root / "web", root / "out"


def test_pairs_read_back_as_paracrawl(exported: tuple[Path, Path]) -> None:
    web_dir, out = exported
    store = WebStore(web_dir)
    groups = store.truth_groups()
    truth = dict(zip(store.truth_langs()["url"], store.truth_langs()["lang"]))
    assert (out / "paracrawl" / "sorted.en-mt").is_file()
    rejects = Rejects()
    records = list(iter_pair_records("paracrawl", out / "paracrawl", rejects))
    assert rejects.total == 0, rejects.summary()
    en_mt = [r for r in records if (r.src_lang, r.trg_lang) == ("eng", "mlt")]
    expected = groups[groups["lang"].isin(["eng", "mlt"])].groupby("group")["lang"].nunique().eq(2).sum()
    assert len(en_mt) == expected > 0
    for r in records:
        assert truth[r.src_url] == r.src_lang and truth[r.trg_url] == r.trg_lang
    line = (out / "paracrawl" / "sorted.en-mt").read_text(encoding="utf-8").splitlines()[0].split("\t")
    assert len(line) == 8 and line[2] and line[3] and line[5] == "V"


def test_url_languages_read_back_as_cdx(exported: tuple[Path, Path]) -> None:
    web_dir, out = exported
    langs = WebStore(web_dir).truth_langs()
    rejects = Rejects()
    records = list(iter_lang_records("cdx", out / "cdx" / "websim.cdx", rejects))
    assert rejects.total == 0, rejects.summary()
    assert {(r.url, r.lang) for r in records} == set(zip(langs["url"], langs["lang"]))


def test_cdx_line_format() -> None:
    assert surt_key("http://www.Example.com/es/a.html?lang=es") == "com,example)/es/a.html?lang=es"
    line = cdx_line("http://www.a.com/x/", "mlt", b"<html></html>")
    key, ts, blob = line.split(" ", 2)
    assert key == "com,a)/x/" and len(ts) == 14
    assert blob.startswith('{"url": "http://www.a.com/x/", "mime": "text/html"') and '"languages": "mlt"' in blob
