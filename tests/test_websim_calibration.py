"""websim calibration: the committed default mix, real-pair readers and measurement, the table."""

from __future__ import annotations

from pathlib import Path

import pytest

from smartcrawl.web.websim.calibration import (
    Calibration,
    Measurement,
    RealPair,
    calibrate,
    calibration_table,
    generated_measurement,
    iter_paracrawl,
    iter_wmt16,
    measure_pairs,
    write_defaults,
)
from smartcrawl.web.websim.config import WebsimConfig, load_default_mix
from smartcrawl.web.websim.conventions import CODE_FORMS, CONVENTIONS, MARKER_CONVENTIONS


def test_default_mix_is_complete_and_normalised() -> None:
    d = load_default_mix()
    assert set(d["mix"]) == set(CONVENTIONS)
    assert abs(sum(d["mix"].values()) - 1.0) < 1e-3
    assert 0.0 < d["unmarked_main_share"] < 1.0
    assert set(d["code_forms"]) == set(CODE_FORMS) and abs(sum(d["code_forms"].values()) - 1) < 1e-3
    assert d["query_params"] and abs(sum(d["query_params"].values()) - 1) < 1e-3
    assert "websim-calibrate --write-default" in d["_comment"]
    cfg = WebsimConfig().resolved()
    assert dict(cfg.mix or {}) == d["mix"]


def test_measure_small_set_and_write_defaults(tmp_path: Path) -> None:
    pairs = [
        RealPair("http://a.com/en/x", "http://a.com/fr/x", "eng", "fra", "t"),
        RealPair("http://a.com/en/y", "http://a.com/y", "eng", "fra", "t"),  # one side unmarked
        RealPair("http://b.com/x?lang=en", "http://b.com/x?lang=fr", "eng", "fra", "t"),
        RealPair("http://c.com/news", "http://c.com/nouvelles", "eng", "fra", "t"),
        RealPair("http://c.com/news", "http://c.com/nouvelles", "eng", "fra", "t"),  # duplicate: ignored
    ]
    m = measure_pairs(pairs)
    assert m.n_pairs == 4 and m.n_domains == 3
    shares = m.domain_shares()
    assert shares["dir_code"] == pytest.approx(1 / 3) and shares["query"] == pytest.approx(1 / 3)
    assert m.pair_shares()["dir_code"] == pytest.approx(0.5)
    assert m.unmarked_share == pytest.approx(1 / 4)  # domain a: 1 of 2, domain b: 0 of 1
    assert m.param_shares() == {"lang": 1.0}
    cal = Calibration({"t": m}, m)
    path = write_defaults(cal, tmp_path / "mix.json")
    assert load_default_mix(path)["mix"]["no_marker"] == pytest.approx(1 / 3, abs=1e-4)
    gen = Measurement()
    table = calibration_table(cal, gen, load_default_mix(path)["mix"])
    assert "dir_code" in table and "websim" in table


def test_calibration_table_compares_generated_pairs() -> None:
    d = load_default_mix()
    gen = generated_measurement(d, n_sites=40, n_pages=3000)
    assert gen.n_domains == 40 and gen.n_pairs > 100
    shares = gen.domain_shares()
    assert sum(shares[c] for c in MARKER_CONVENTIONS) > 0.5  # markers dominate, as on the real web


@pytest.mark.shared_data
def test_real_pairs_readers_and_wmt16_classes(shared_data: Path) -> None:
    wmt = list(iter_wmt16(shared_data / "wmt16" / "test.pairs.manually_classified"))
    assert len(wmt) == 2402 and {p.label for p in wmt} == {"id", "tr", "cd"}
    m = measure_pairs(wmt)
    # "id" pairs (paths differ only by a language code) are mostly found to carry a mark.
    ids = m.by_label["id"]
    assert sum(ids[c] for c in MARKER_CONVENTIONS) / sum(ids.values()) > 0.8
    first = next(iter_paracrawl(shared_data / "paracrawl-human-evals"))
    assert first.lang1 == "eng" and first.url1.startswith("http")


@pytest.mark.shared_data
@pytest.mark.slow
def test_committed_default_mix_matches_a_fresh_calibration(shared_data: Path) -> None:
    fresh = calibrate(shared_data).defaults()
    committed = load_default_mix()
    for key in ("mix", "unmarked_main_share", "code_forms", "query_params", "sources"):
        assert fresh[key] == committed[key], key
