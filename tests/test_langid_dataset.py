"""The language-ID data-set builder: de-duplication, cap, domain-disjoint splits, card, rejects."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from smartcrawl.data.langid_dataset import build_langid_dataset
from smartcrawl.data.records import LangRecord, Rejects
from smartcrawl.data.splits import SplitFractions


def _records() -> list[LangRecord]:
    recs = []
    for d in range(60):
        for p in range(10):
            lang = "eng" if p % 2 else ("isl" if d % 3 else "mlt")
            recs.append(LangRecord(f"http://www.site{d}.com/{lang[:2]}/page{p}", lang, "test"))
    recs.append(LangRecord("http://www.site1.com/is/page0", "isl", "test"))  # exact duplicate
    recs.append(LangRecord("http://www.site2.com/is/page0", "fin", "test"))  # conflicting label
    recs.append(LangRecord("not a url", "eng", "test"))
    recs.append(LangRecord("ftp://files.example.com/x", "eng", "test"))
    return recs


def test_build_langid_dataset(tmp_path: Path) -> None:
    fractions = SplitFractions({"train": 0.6, "dev": 0.2, "test": 0.2})
    rejects = Rejects()
    card = build_langid_dataset(_records(), tmp_path, fractions, max_per_lang=100, rejects=rejects)
    frames = {s: pd.read_parquet(tmp_path / f"{s}.parquet") for s in ("train", "dev", "test")}
    total = sum(len(f) for f in frames.values())
    # 300 eng, 200 isl, 100 mlt before the cap of 100 per language.
    assert total == 300
    assert card["capped"] == {"eng": 200, "isl": 100}
    all_rows = pd.concat(frames.values())
    assert all_rows.groupby("lang").size().to_dict() == {"eng": 100, "isl": 100, "mlt": 100}
    assert all_rows["url"].is_unique
    domains = [set(f["domain"]) for f in frames.values()]
    assert not (domains[0] & domains[1]) and not (domains[0] & domains[2]) and not (domains[1] & domains[2])
    assert all(len(f) > 0 for f in frames.values())
    assert card["duplicates"] == 1
    assert rejects.counts == {"conflicting_language": 1, "whitespace_in_url": 1, "not_http_url": 1}
    on_disk = json.loads((tmp_path / "card.json").read_text())
    assert on_disk["rejected_total"] == 3
    assert {s: v["urls"] for s, v in on_disk["splits"].items()} == {s: len(f) for s, f in frames.items()}
    assert sum(sum(c.values()) for c in on_disk["per_language"].values()) == total


def test_cap_is_independent_of_input_order(tmp_path: Path) -> None:
    fractions = SplitFractions({"train": 0.8, "dev": 0.1, "test": 0.1})
    recs = _records()[:600]
    a = build_langid_dataset(recs, tmp_path / "a", fractions, max_per_lang=50)
    b = build_langid_dataset(list(reversed(recs)), tmp_path / "b", fractions, max_per_lang=50)
    assert a["per_language"] == b["per_language"]
    ua = set(pd.read_parquet(tmp_path / "a" / "train.parquet")["url"])
    ub = set(pd.read_parquet(tmp_path / "b" / "train.parquet")["url"])
    assert ua == ub


def test_splits_are_shuffled_across_languages(tmp_path: Path) -> None:
    fractions = SplitFractions({"train": 0.8, "dev": 0.1, "test": 0.1})
    build_langid_dataset(_records()[:600], tmp_path, fractions, max_per_lang=1000)
    train = pd.read_parquet(tmp_path / "train.parquet")
    # A prefix of the file is a sample of every language, not the first language only.
    assert set(train["lang"].iloc[:60]) == {"eng", "isl", "mlt"}


@pytest.mark.shared_data
def test_real_data_is_domain_disjoint(shared_data: Path, tmp_path: Path) -> None:
    from smartcrawl.data.langid_dataset import held_out_domains, iter_source_records
    from smartcrawl.data.records import SourceSpec

    sources = [
        SourceSpec("paracrawl", str(shared_data / "paracrawl-human-evals")),
        SourceSpec("wmt16", str(shared_data / "wmt16" / "train.pairs")),
        SourceSpec("macocu", str(shared_data / "macocu" / "MaCoCu-sl-en-sample.tsv")),
    ]
    rejects = Rejects()
    fractions = SplitFractions({"train": 0.8, "dev": 0.1, "test": 0.1})
    held_out = held_out_domains([SourceSpec("wmt16", str(shared_data / "wmt16" / "test.pairs"))], Rejects())
    card = build_langid_dataset(iter_source_records(sources, rejects), tmp_path, fractions, rejects=rejects,
                                exclude_domains=held_out)
    assert card["excluded_held_out_domains"]["urls"] > 0
    assert 28 <= card["languages"] <= 32  # about 30 languages in the real data
    frames = {s: pd.read_parquet(tmp_path / f"{s}.parquet") for s in ("train", "dev", "test")}
    domains = {s: set(f["domain"]) for s, f in frames.items()}
    assert not (domains["train"] & domains["dev"]) and not (domains["train"] & domains["test"])
    assert not (domains["dev"] & domains["test"])
    assert all(len(f) > 5000 for f in frames.values())
    # WMT16 test sites never reach any split (ParaCrawl holds some of their URLs).
    assert not (set().union(*domains.values()) & held_out)
