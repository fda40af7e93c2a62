"""The parallel (URL-pair) data-set builder: splits, leakage, card vs files, rejects, .lett negatives."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from smartcrawl.data.negatives import parse_negatives
from smartcrawl.data.parallel_dataset import (
    OUTPUTS,
    TEST_OUTPUT,
    build_parallel_dataset,
    build_parallel_from_records,
    table2_text,
)
from smartcrawl.data.records import PairRecord, Rejects, SourceSpec
from smartcrawl.data.splits import SplitFractions
from smartcrawl.urls import registered_domain

FRACTIONS = SplitFractions({"train": 0.8, "dev": 0.1, "test": 0.1})
GENS = parse_negatives("rand+jaccard+remove")


def _records() -> list[PairRecord]:
    recs = []
    for d in range(80):
        trg, code = ("isl", "is") if d % 4 == 0 else ("fra", "fr")
        for i in range(d % 6 + 1):  # 1..6 pairs per domain: singletons need the fallback pool
            recs.append(PairRecord(f"https://www.site{d}.com/en/page-{i}.html",
                                   f"https://www.site{d}.com/{code}/page-{i}.html", "eng", trg, "synthetic"))
    recs.append(PairRecord("https://www.site1.com/en/page-0.html", "https://www.site1.com/fr/page-0.html",
                           "eng", "fra", "again"))  # duplicate
    recs.append(PairRecord("https://www.site1.com/fr/page-1.html", "https://www.site1.com/en/page-1.html",
                           "fra", "eng", "reversed"))  # the same pair reversed: a duplicate too
    recs.append(PairRecord("not a url", "https://www.site2.com/fr/x", "eng", "fra", "bad"))
    recs.append(PairRecord("https://www.site3.com/en/x", "https://www.site3.com/xx/x", "eng", "zzz", "bad"))
    recs.append(PairRecord("https://wmt-a.org/en/leak", "https://wmt-a.org/fr/leak", "eng", "fra", "leak"))
    return recs


def _test_records() -> list[PairRecord]:
    return [
        PairRecord(f"http://wmt-{c}.org/en/doc{i}", f"http://wmt-{c}.org/fr/doc{i}", "en", "fr", "wmt16-test")
        for c in "abc"
        for i in range(4)
    ]


def _frames(out_dir: Path) -> dict[str, pd.DataFrame]:
    return {o: pd.read_parquet(out_dir / f"{o}.parquet") for o in OUTPUTS}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict[str, pd.DataFrame], Rejects, Path]:
    out = tmp_path_factory.mktemp("parallel")
    rejects = Rejects()
    card = build_parallel_from_records(_records(), _test_records(), GENS, 2, FRACTIONS, out, seed=5, rejects=rejects)
    return card, _frames(out), rejects, out


def test_outputs_are_domain_disjoint(built: tuple) -> None:
    _, frames, _, _ = built
    domains = {o: set(f["domain"]) for o, f in frames.items()}
    assert all(domains[o] for o in OUTPUTS), {o: len(d) for o, d in domains.items()}
    for i, a in enumerate(OUTPUTS):
        for b in OUTPUTS[i + 1 :]:
            assert not (domains[a] & domains[b]), (a, b)
    # Every URL of an output (negatives included) belongs to that output's domains.
    for o, f in frames.items():
        url_domains = {registered_domain(u) for u in pd.concat([f["src_url"], f["trg_url"]])}
        assert url_domains <= domains[o], o
    assert domains[TEST_OUTPUT] == {"wmt-a.org", "wmt-b.org", "wmt-c.org"}


def test_card_counts_equal_parquet_rows(built: tuple) -> None:
    card, frames, _, out = built
    on_disk = json.loads((out / "card.json").read_text())
    assert on_disk == card
    for o, f in frames.items():
        s = card["splits"][o]
        assert s["rows"] == len(f)
        assert s["positives"] == int((f["label"] == 1).sum())
        assert s["negatives"] == int((f["label"] == 0).sum())
        assert s["by_kind"] == f["kind"].value_counts().sort_index().to_dict()
        for pair, cells in card["table2"].items():
            rows = f[f["origin_pair"] == pair]
            if o in cells:
                assert cells[o] == {"positives": int((rows["label"] == 1).sum()),
                                    "negatives": int((rows["label"] == 0).sum())}
            else:
                assert rows.empty
    total = sum(len(f) for f in frames.values())
    assert card["totals"]["rows"] == total
    for g in GENS:
        assert card["generators"][g]["emitted"] == sum(int((f["kind"] == g).sum()) for f in frames.values())
    assert "eng-isl" in card["table2"] and "eng-fra" in card["table2"]
    assert "eng-fra" in table2_text(card)


def test_rejects_and_filters_are_counted(built: tuple) -> None:
    card, _, rejects, _ = built
    assert rejects.counts == {"whitespace_in_url": 1, "unknown_language": 1}
    assert card["rejected_total"] == 2
    assert set(card["rejects"]) == {"whitespace_in_url", "unknown_language"}
    assert card["filtered"]["duplicate_pair"] == 2
    assert card["filtered"]["domain_in_test_sources"] == 1
    assert card["splits"][TEST_OUTPUT]["positives"] == 12


def test_rows_are_valid_negatives(built: tuple) -> None:
    _, frames, _, _ = built
    allf = pd.concat(frames.values())
    pos = allf[allf["label"] == 1]
    positives = set(zip(pos["src_url"], pos["trg_url"]))
    neg = allf[allf["label"] == 0]
    for s, t in zip(neg["src_url"], neg["trg_url"]):
        assert (s, t) not in positives and (t, s) not in positives and s != t
    for f in frames.values():
        assert not f.duplicated(["src_url", "trg_url"]).any()
        assert str(f["label"].dtype) == "int8"
        assert (f["pair"] == f["src_lang"] + "-" + f["trg_lang"]).all()
    mono = neg[neg["kind"].str.endswith("_mono")]
    assert (mono["src_lang"] == mono["trg_lang"]).all() and len(mono)
    bi = neg[neg["kind"].str.endswith("_bi")]
    assert (bi["src_lang"] != bi["trg_lang"]).all()
    assert set(allf["kind"]) == {"positive", *GENS}
    # Shuffled: positives are not all at the top of the train file.
    train = frames["train"]
    assert train["label"].iloc[: (train["label"] == 1).sum()].mean() < 0.9


def test_deterministic_and_independent_of_input_order(tmp_path: Path, built: tuple) -> None:
    _, frames, _, _ = built
    # Without the reversed duplicate (which orientation is kept depends on which comes first).
    recs = [r for r in _records() if r.source != "reversed"]
    build_parallel_from_records(list(reversed(recs)), _test_records(), GENS, 2, FRACTIONS, tmp_path / "a", seed=5)
    build_parallel_from_records(recs, _test_records(), GENS, 2, FRACTIONS, tmp_path / "b", seed=5)
    again, same = _frames(tmp_path / "a"), _frames(tmp_path / "b")
    for o in OUTPUTS:
        pd.testing.assert_frame_equal(same[o].drop(columns="source"), again[o].drop(columns="source"))
    # Same input, same seed: the same files.
    build_parallel_from_records(_records(), _test_records(), GENS, 2, FRACTIONS, tmp_path / "c", seed=5)
    for o, f in _frames(tmp_path / "c").items():
        pd.testing.assert_frame_equal(frames[o], f)


def test_positives_only_and_config_errors(tmp_path: Path) -> None:
    card = build_parallel_from_records(_records()[:50], [], (), 3, FRACTIONS, tmp_path, seed=1)
    assert card["totals"]["negatives"] == 0 and card["totals"]["positives"] > 0
    assert card["splits"][TEST_OUTPUT]["rows"] == 0
    with pytest.raises(ValueError, match="per_positive"):
        build_parallel_from_records([], [], GENS, -1, FRACTIONS, tmp_path, seed=1)
    with pytest.raises(ValueError, match="fallback.*allowed: pair, none"):
        build_parallel_from_records([], [], GENS, 1, FRACTIONS, tmp_path, seed=1, fallback="domain")
    with pytest.raises(ValueError, match="negatives: unknown generator 'rand'.*allowed"):
        build_parallel_from_records([], [], ("rand",), 1, FRACTIONS, tmp_path, seed=1)


def test_no_fallback_gives_no_cross_domain_negatives(tmp_path: Path) -> None:
    card = build_parallel_from_records(_records(), _test_records(), GENS, 2, FRACTIONS, tmp_path, seed=5,
                                       fallback="none")
    assert all(g["from_fallback_pool"] == 0 for g in card["generators"].values())
    for f in _frames(tmp_path).values():
        neg = f[f["label"] == 0]
        assert all(registered_domain(u) == d for u, d in zip(neg["trg_url"], neg["domain"]))


class _Page:
    def __init__(self, url: str, lang: str, html: str = "") -> None:
        self.url, self.lang, self.html = url, lang, html


def test_lett_real_negatives(tmp_path: Path) -> None:
    site = "http://wmt-a.org"
    links = "".join(f'<a href="{site}/{p}">x</a>' for p in ("fr/doc0", "fr/doc1", "en/doc2", "en/extra", "de/x"))
    pages = [_Page(f"{site}/en/doc0", "eng", links)]
    pages += [_Page(f"{site}/{lang[:2]}/doc{i}", lang) for lang in ("eng", "fra") for i in range(1, 4)]
    pages += [_Page(f"{site}/fr/doc0", "fra"), _Page(f"{site}/en/extra", "eng"), _Page(f"{site}/de/x", "deu")]
    card = build_parallel_from_records(_records(), _test_records(), GENS, 1, FRACTIONS, tmp_path, seed=5,
                                       lett_pages=[pages], lett_per_positive=5)
    test = pd.read_parquet(tmp_path / f"{TEST_OUTPUT}.parquet")
    lett = test[test["kind"] == "lett_real"]
    assert set(zip(lett["src_url"], lett["trg_url"])) == {
        (f"{site}/en/doc0", f"{site}/fr/doc1"),
        (f"{site}/en/doc0", f"{site}/en/doc2"),
        (f"{site}/en/doc0", f"{site}/en/extra"),
    }
    assert (lett["label"] == 0).all() and (lett["domain"] == "wmt-a.org").all()
    assert card["generators"]["lett_real"]["emitted"] == 3 == card["lett"]["negatives"]
    assert card["lett"]["files"] == 1


def test_build_from_source_specs_needs_known_lett_kind(tmp_path: Path) -> None:
    pytest.importorskip("smartcrawl.data.sources", reason="source readers not available")
    with pytest.raises(ValueError, match="lett_sources\\[0\\].kind"):
        build_parallel_dataset([], [], GENS, 1, FRACTIONS, tmp_path, 1, [SourceSpec("wmt16", "x.lett")])


def _real_specs(shared_data: Path, with_paracrawl: bool) -> tuple[list[SourceSpec], list[SourceSpec]]:
    sources = [
        SourceSpec("wmt16", str(shared_data / "wmt16" / "train.pairs")),
        SourceSpec("macocu", str(shared_data / "macocu" / "MaCoCu-sl-en-sample.tsv")),
    ]
    if with_paracrawl:
        sources.insert(0, SourceSpec("paracrawl", str(shared_data / "paracrawl-human-evals")))
    return sources, [SourceSpec("wmt16", str(shared_data / "wmt16" / "test.pairs"))]


def _check_real(card: dict, out: Path) -> None:
    frames = _frames(out)
    for o, f in frames.items():
        assert card["splits"][o]["rows"] == len(f)
    domains = [set(f["domain"]) for f in frames.values()]
    for i in range(len(domains)):
        for j in range(i + 1, len(domains)):
            assert not (domains[i] & domains[j])
    print()
    print(table2_text(card))
    print("totals", card["totals"], "filtered", card["filtered"], "rejected", card["rejected_total"],
          "seconds", card["seconds"])


@pytest.mark.shared_data
def test_real_wmt16_and_macocu(shared_data: Path, tmp_path: Path) -> None:
    sources, test_sources = _real_specs(shared_data, with_paracrawl=False)
    card = build_parallel_dataset(sources, test_sources, GENS, 1, FRACTIONS, tmp_path, 42)
    assert card["splits"][TEST_OUTPUT]["positives"] == 2402
    assert card["totals"]["positives"] > 3500
    _check_real(card, tmp_path)


@pytest.mark.slow
@pytest.mark.shared_data
def test_real_full_with_paracrawl(shared_data: Path, tmp_path: Path) -> None:
    sources, test_sources = _real_specs(shared_data, with_paracrawl=True)
    card = build_parallel_dataset(sources, test_sources, GENS, 1, FRACTIONS, tmp_path, 42)
    assert card["totals"]["positives"] > 70000
    _check_real(card, tmp_path)
