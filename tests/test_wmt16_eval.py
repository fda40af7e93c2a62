"""WMT16 evaluation: candidates per web domain, greedy 1-1 alignment, recall and soft recall, the CLI."""

from __future__ import annotations

import base64
import gzip
import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from smartcrawl.data.records import Rejects
from smartcrawl.eval import wmt16
from smartcrawl.models.scorer import ParallelScorer
from smartcrawl.eval.wmt16 import (
    GoldIndex,
    UrlMatchingScorer,
    align_one_to_one,
    candidate_pairs,
    evaluate,
    evaluate_site,
    levenshtein,
    sites_from_gold,
    sites_from_lett,
    text_similarity,
)


class DictScorer:
    """Scores from a dict; pairs not in it get 0."""

    def __init__(self, scores: Mapping[tuple[str, str], float]) -> None:
        self.scores = dict(scores)
        self.calls: list[int] = []

    def parallel_probs(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        self.calls.append(len(pairs))
        return np.array([self.scores.get(tuple(p), 0.0) for p in pairs], dtype=np.float32)


def _dp_levenshtein(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


# --- text similarity ----------------------------------------------------------------------------


def test_levenshtein_matches_dynamic_programming() -> None:
    """The bit-parallel distance equals the textbook DP on random strings, long ones and Unicode included."""
    rng = random.Random(0)
    cases = [("", ""), ("", "abc"), ("kitten", "sitting"), ("flaw", "lawn"), ("é€ß", "e€s"), ("a" * 70, "a" * 69 + "b")]
    for _ in range(200):
        alphabet = rng.choice(["ab", "abcde", "aé€x "])
        cases.append(("".join(rng.choices(alphabet, k=rng.randint(0, 90))),
                      "".join(rng.choices(alphabet, k=rng.randint(0, 90)))))
    for a, b in cases:
        d = _dp_levenshtein(a, b)
        assert levenshtein(a, b) == d == levenshtein(b, a), (a, b)
        for k in (0, d - 1, d, d + 3):
            if k >= 0:
                got = levenshtein(a, b, max_distance=k)
                assert (got == d) if d <= k else (got > k), (a, b, k)


def test_text_similarity() -> None:
    """1 - distance / longer length; exact at or above the threshold, below it only the decision."""
    assert text_similarity("", "") == 1.0
    assert text_similarity("abcd", "abce") == 0.75
    assert text_similarity("abc", "") == 0.0
    base = "x" * 100
    near = "x" * 95 + "yyyyy"
    assert text_similarity(base, near, 0.95) == pytest.approx(0.95)
    assert text_similarity(base, "x" * 94 + "y" * 6, 0.95) < 0.95
    assert text_similarity(base, "y" * 100, 0.95) < 0.95


# --- alignment ----------------------------------------------------------------------------------


def test_one_to_one_official_and_authors() -> None:
    """Greedy by score, ties by URLs; 'authors' also uses up the URLs of rejected pairs."""
    scored = [("a", "y", 0.8), ("a", "x", 0.9), ("b", "y", 0.7), ("c", "z", 0.6)]
    assert align_one_to_one(scored, "official") == [("a", "x", 0.9), ("b", "y", 0.7), ("c", "z", 0.6)]
    assert align_one_to_one(scored, "authors") == [("a", "x", 0.9), ("c", "z", 0.6)]
    ties = [("b", "y", 1.0), ("a", "y", 1.0), ("a", "x", 1.0)]
    assert align_one_to_one(ties) == [("a", "x", 1.0), ("b", "y", 1.0)]
    with pytest.raises(ValueError):
        align_one_to_one(scored, "bogus")  # type: ignore[arg-type]


# --- candidates, gold only ----------------------------------------------------------------------

GOLD = [
    ("http://a.com/en/x", "http://a.com/fr/x"),
    ("http://a.com/en/y", "http://a.com/fr/y"),
    ("http://a.com/about", "http://a.com/a-propos"),
    ("http://www.b.org/page?lang=en", "http://www.b.org/page?lang=fr"),
    ("http://b.org/contact", "http://b.org/nous-contacter"),
]


def test_sites_and_candidates_from_gold() -> None:
    """One site per registered domain; the candidates are its gold en x gold fr URLs."""
    sites = sites_from_gold(GOLD)
    assert [s.domain for s in sites] == ["a.com", "b.org"]
    assert [s.n_candidates for s in sites] == [9, 4]
    assert sites[0].texts is None
    gold = GoldIndex(GOLD)
    assert len(list(candidate_pairs(sites[0], gold.by_src, gold.by_trg))) == 9
    # gold_touching: every pair of gold URLs touches a gold URL
    assert len(list(candidate_pairs(sites[0], gold.by_src, gold.by_trg, "gold_touching"))) == 9
    assert len(list(candidate_pairs(sites[0], {}, {"http://a.com/fr/x": 1}, "gold_touching"))) == 3


def test_url_matching_adapter() -> None:
    """The baseline as a scorer: 1.0 for matching pairs, 0.0 otherwise."""
    scorer = UrlMatchingScorer("eng", "fra")
    probs = scorer.parallel_probs([GOLD[0], GOLD[2], GOLD[3], (GOLD[0][0], GOLD[1][1])])
    assert probs.dtype == np.float32
    assert probs.tolist() == [1.0, 0.0, 1.0, 0.0]


def test_combined_scorer_puts_url_matches_first() -> None:
    """URL-matching pairs score 1.0; the model's probability decides the rest."""
    class Half:
        def parallel_probs(self, pairs: list[tuple[str, str]]) -> np.ndarray:
            return np.full(len(pairs), 0.6, dtype=np.float32)

    scorer = wmt16.CombinedScorer(Half(), UrlMatchingScorer("eng", "fra"))
    probs = scorer.parallel_probs([GOLD[0], (GOLD[0][0], GOLD[1][1])])
    assert probs.tolist() == pytest.approx([1.0, 0.6])
    with pytest.raises(ValueError, match="needs --model-dir"):
        wmt16.build_scorer("combined")
    with pytest.raises(ValueError, match="allowed: matching, model, combined"):
        wmt16.build_scorer("rules")


def test_evaluate_gold_only_with_baseline() -> None:
    """Baseline on gold URLs only: recall 3/5, soft recall null with the reason, counts per domain."""
    metrics, pred, gold_df = evaluate(GOLD, sites_from_gold(GOLD), UrlMatchingScorer(), with_texts=False,
                                      batch_size=4)
    assert metrics["recall"] == pytest.approx(60.0)
    assert metrics["soft_recall"] is None
    assert metrics["soft_recall_null_reason"] == wmt16.NO_LETT_REASON
    assert metrics["candidate_set"] == wmt16.GOLD_ONLY_CANDIDATES
    assert metrics["n_candidates"] == 13 and metrics["n_domains"] == 2 and metrics["n_gold"] == 5
    assert metrics["gold_status"] == {"found": 3, "near_match": 0, "blocked_by_1_1": 0, "below_threshold": 2,
                                      "not_a_candidate": 0}
    assert metrics["domains"]["a.com"]["found"] == 2 and metrics["domains"]["a.com"]["candidates"] == 9
    assert metrics["domains"]["b.org"]["below_threshold"] == 1
    assert len(pred) == 3 and pred["gold"].all() and (pred["score"] == 1.0).all()
    assert set(gold_df["status"]) == {"found", "below_threshold"}
    json.dumps(metrics)  # JSON-ready


def test_recall_counts_gold_pairs_lost_to_one_to_one() -> None:
    """A higher-scoring wrong pair takes a gold URL: recall drops, the tp/(tp+fn) figure does not."""
    s1, t1 = GOLD[0]
    s2, t2 = GOLD[1]
    scorer = DictScorer({(s1, t2): 0.9, (s1, t1): 0.8, (s2, t2): 0.7})
    gold = GOLD[:2]
    metrics, pred, gold_df = evaluate(gold, sites_from_gold(gold), scorer, with_texts=False)
    assert metrics["recall"] == 0.0
    assert metrics["gold_status"]["blocked_by_1_1"] == 2
    assert metrics["recall_tp_fn"] is None  # no tp, no fn
    assert pred[["src_url", "trg_url"]].values.tolist() == [[s1, t2]]
    assert metrics["n_positive"] == 3 and metrics["n_aligned"] == 1


# --- .lett files: all documents, soft recall ----------------------------------------------------


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def _write_lett(path: Path, docs: Sequence[tuple[str, str, str]]) -> None:
    lines = [f"{lang}\ttext/html\tcharset=utf-8\t{url}\t{_b64('<p>' + text + '</p>')}\t{_b64(text)}\n"
             for lang, url, text in docs]
    if path.suffix == ".gz":
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.writelines(lines)
    else:
        path.write_text("".join(lines), encoding="utf-8")


TEXT1 = "Bienvenue sur notre site. " * 8
TEXT1_COPY = TEXT1[:-2] + "!!"  # 2 edits in 208 characters: similarity 0.99
TEXT2 = "Nos produits et services pour les entreprises. " * 4
C = "http://c.net"


@pytest.fixture()
def lett_dir(tmp_path: Path) -> Path:
    """Two sites: c.net (2 en, 3 fr, a German page, a near-duplicate fr page) and d.com (1 en, 1 fr)."""
    root = tmp_path / "lett"
    root.mkdir()
    _write_lett(root / "c.net.lett.gz", [
        ("en", f"{C}/en/1", "Welcome to our site. " * 8),
        ("en", f"{C}/en/2", "Our products and services for companies. " * 4),
        ("fr", f"{C}/fr/1", TEXT1),
        ("fr", f"{C}/fr/1-copie", TEXT1_COPY),
        ("fr", f"{C}/fr/2", TEXT2),
        ("de", f"{C}/de/1", "Willkommen"),
    ])
    _write_lett(root / "d.com.lett", [
        ("en", "http://d.com/en/home", "Home"),
        ("fr", "http://d.com/fr/accueil", "Accueil"),
    ])
    return root


LETT_GOLD = [
    (f"{C}/en/1", f"{C}/fr/1"),
    (f"{C}/en/2", f"{C}/fr/2"),
    ("http://d.com/en/home", "http://d.com/fr/accueil"),
    ("http://e.com/en/", "http://e.com/fr/"),  # no .lett file for e.com
]


def test_sites_from_lett(lett_dir: Path) -> None:
    """Every en x fr document of each site; other languages are counted, texts kept for soft recall."""
    rejects = Rejects()
    sites = list(sites_from_lett(lett_dir, rejects))
    assert [(s.domain, s.n_candidates) for s in sites] == [("c.net", 6), ("d.com", 1)]
    assert rejects.counts["other_language"] == 1
    assert sites[0].texts is not None and sites[0].texts[f"{C}/fr/1"] == TEXT1.strip()


def test_soft_recall_near_match(lett_dir: Path) -> None:
    """The best pair points to a near-duplicate of the gold French page: not recall, but soft recall."""
    scorer = DictScorer({
        (f"{C}/en/1", f"{C}/fr/1-copie"): 0.9,
        (f"{C}/en/1", f"{C}/fr/1"): 0.8,
        (f"{C}/en/2", f"{C}/fr/2"): 0.7,
        (f"{C}/en/2", f"{C}/fr/1"): 0.6,  # both URLs gold, wrong pair: never a near match
        ("http://d.com/en/home", "http://d.com/fr/accueil"): 0.4,
    })
    metrics, pred, gold_df = evaluate(LETT_GOLD, sites_from_lett(lett_dir, Rejects()), scorer, with_texts=True)
    assert metrics["recall"] == pytest.approx(25.0)
    assert metrics["soft_recall"] == pytest.approx(50.0)
    assert metrics["soft_recall_null_reason"] is None
    assert metrics["candidate_set"] == wmt16.LETT_CANDIDATES
    assert metrics["n_candidates"] == 7
    assert metrics["gold_status"] == {"found": 1, "near_match": 1, "blocked_by_1_1": 0, "below_threshold": 1,
                                      "not_a_candidate": 1}
    # authors' formula: found / (found + below threshold), soft: (found + near) / (found + near + below)
    assert metrics["recall_tp_fn"] == pytest.approx(50.0)
    assert metrics["soft_recall_tp_fn"] == pytest.approx(100 * 2 / 3)
    near = pred[pred["near_match"]]
    assert near[["src_url", "trg_url", "near_match_trg"]].values.tolist() == [
        [f"{C}/en/1", f"{C}/fr/1-copie", f"{C}/fr/1"]]
    assert near["similarity"].iloc[0] >= 0.95
    status = dict(zip(gold_df["trg_url"], gold_df["status"]))
    assert status[f"{C}/fr/1"] == "near_match" and status["http://e.com/fr/"] == "not_a_candidate"
    assert metrics["domains"]["e.com"] == {**metrics["domains"]["e.com"], "gold": 1, "candidates": 0}


def test_soft_recall_needs_similar_text(lett_dir: Path) -> None:
    """A wrong French page that is not a near duplicate earns nothing; neither does a used-up gold pair."""
    gold = GoldIndex(LETT_GOLD)
    texts = {f"{C}/fr/1": TEXT1, f"{C}/fr/1-copie": TEXT1_COPY, f"{C}/fr/2": TEXT2,
             f"{C}/en/1": "a", f"{C}/en/2": "b"}
    res = evaluate_site("c.net", [(f"{C}/en/1", f"{C}/fr/2", 0.9)], gold, texts)
    assert not res.found and not res.near
    # (en/2, fr/1-copie) would near-match (en/1, fr/1), but (en/1, ...) was aligned before it
    res = evaluate_site("c.net", [(f"{C}/en/1", f"{C}/fr/2", 0.9), (f"{C}/en/2", f"{C}/fr/1-copie", 0.8)],
                        gold, texts)
    assert not res.near and len(res.aligned) == 2
    # without texts (gold-only candidates) there are no near matches
    res = evaluate_site("c.net", [(f"{C}/en/1", f"{C}/fr/1-copie", 0.9)], gold, None)
    assert not res.near


def test_tp_fn_counts_a_near_matched_gold_pair_below_threshold(lett_dir: Path) -> None:
    """As in the authors' script, a gold pair scored below the threshold stays in fn when near-matched."""
    scorer = DictScorer({(f"{C}/en/1", f"{C}/fr/1-copie"): 0.9, (f"{C}/en/1", f"{C}/fr/1"): 0.3})
    metrics, _, _ = evaluate(LETT_GOLD[:1], sites_from_lett(lett_dir, Rejects()), scorer, with_texts=True)
    assert metrics["recall"] == 0.0 and metrics["soft_recall"] == pytest.approx(100.0)
    assert metrics["recall_tp_fn"] == 0.0 and metrics["soft_recall_tp_fn"] == pytest.approx(50.0)


def test_gold_touching_candidates(lett_dir: Path) -> None:
    """gold_touching scores only pairs with a gold URL (the authors' shortcut) and says so."""
    scorer = DictScorer({})
    metrics, _, _ = evaluate(LETT_GOLD, sites_from_lett(lett_dir, Rejects()), scorer, with_texts=True,
                             candidates="gold_touching")
    # c.net: 2 en (both gold) x 3 fr = 6; d.com: 1
    assert metrics["n_candidates"] == 7
    assert metrics["candidate_set"].endswith(wmt16.GOLD_TOUCHING_SUFFIX)
    assert metrics["recall"] == 0.0 and metrics["soft_recall"] == 0.0


# --- CLI ----------------------------------------------------------------------------------------


def test_cli_writes_results(tmp_path: Path, lett_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI with the matching baseline writes metrics.json, predictions.parquet and gold.parquet."""
    pairs = tmp_path / "test.pairs"
    pairs.write_text("".join(f"{s}\t{t}\n" for s, t in GOLD), encoding="utf-8")
    out = tmp_path / "results" / "wmt16" / "url-matching"
    wmt16.main(["--pairs", str(pairs), "--scorer", "matching", "--out", str(out)])
    assert "recall 60.00" in capsys.readouterr().out
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["scorer"] == "url_matching" and metrics["lett"] is None
    assert metrics["soft_recall"] is None and metrics["soft_recall_null_reason"] == wmt16.NO_LETT_REASON
    pred = pd.read_parquet(out / "predictions.parquet")
    assert list(pred.columns[:6]) == ["domain", "rank", "src_url", "trg_url", "score", "gold"] and len(pred) == 3
    assert len(pd.read_parquet(out / "gold.parquet")) == 5
    assert "scorer: url_matching" in (out / "config.yaml").read_text()

    lett_pairs = tmp_path / "lett.pairs"
    lett_pairs.write_text("".join(f"{s}\t{t}\n" for s, t in LETT_GOLD), encoding="utf-8")
    out2 = tmp_path / "with-lett"
    wmt16.main(["--pairs", str(lett_pairs), "--lett", str(lett_dir), "--scorer", "matching", "--out", str(out2)])
    metrics = json.loads((out2 / "metrics.json").read_text())
    assert metrics["soft_recall"] is not None and metrics["n_candidates"] == 7
    assert metrics["rejects"]["other_language"]["count"] == 1
    with pytest.raises(ValueError):
        wmt16.build_scorer("model")


# --- the model scorer ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A freshly initialised tiny parallel classifier saved as train.py saves model dirs (plumbing, not quality)."""
    from smartcrawl.models.encoders import EncoderSpec, build_tiny, load_tokenizer
    from smartcrawl.training.inputs import PARALLEL_LABELS
    from smartcrawl.training.outputs import save_model_dir

    spec = EncoderSpec("tiny", num_layers=1)
    tokenizer = load_tokenizer(spec)
    labels = list(PARALLEL_LABELS)
    model = build_tiny(spec, tokenizer, len(labels), dict(enumerate(labels)))
    return save_model_dir(tmp_path_factory.mktemp("tiny") / "model", model, tokenizer, "parallel", labels, 64)


def test_model_scorer_through_the_cli(tiny_model_dir: Path, tmp_path: Path) -> None:
    """--scorer model loads a parallel model dir; its probabilities drive the same evaluation."""
    scorer = ParallelScorer(tiny_model_dir, device="cpu", batch_size=8)
    probs = scorer.parallel_probs([GOLD[0], GOLD[1], ("not a url", GOLD[0][1])])
    assert probs.shape == (3,) and ((probs >= 0) & (probs <= 1)).all() and probs[2] == 0.0
    pairs = tmp_path / "test.pairs"
    pairs.write_text("".join(f"{s}\t{t}\n" for s, t in GOLD), encoding="utf-8")
    out = tmp_path / "model"
    wmt16.main(["--pairs", str(pairs), "--scorer", "model", "--model-dir", str(tiny_model_dir), "--out", str(out),
                "--device", "cpu", "--one-to-one", "authors"])
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["scorer"].startswith("model:") and metrics["n_candidates"] == 13
    assert metrics["settings"]["one_to_one"] == "authors"
    assert 0.0 <= metrics["recall"] <= 100.0
    pred = pd.read_parquet(out / "predictions.parquet")
    assert len(pred) == metrics["n_aligned"] and (pred["score"] >= 0.5).all()
    # 1-1: no URL twice among the kept pairs
    assert pred["src_url"].is_unique and pred["trg_url"].is_unique


# --- real data ----------------------------------------------------------------------------------


@pytest.mark.shared_data
def test_matching_baseline_on_wmt16_test(shared_data: Path, tmp_path: Path) -> None:
    """The URL-matching baseline on the 2,402 real test pairs (gold URLs only): recall near the paper's 59.91."""
    metrics = wmt16.run(shared_data / "wmt16" / "test.pairs", tmp_path, UrlMatchingScorer(), scorer_name="url_matching")
    assert metrics["n_gold"] == 2402 and metrics["n_domains"] == 203
    assert 50.0 <= metrics["recall"] <= 70.0
    assert metrics["soft_recall"] is None
