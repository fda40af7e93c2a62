"""Unit tests of the crawl-curve math (smartcrawl.eval.crawl_curves) on hand-made crawl logs and truth."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pandas as pd
import pytest

from smartcrawl.eval import crawl_curves as cc

PAIR = ("eng", "mlt")
H = "http://www.site.test"


def truth(rows: list[tuple[str, str, str]]) -> pd.DataFrame:
    """Truth groups from (group, path, lang) rows."""
    return pd.DataFrame([{"group": g, "url": f"{H}{p}", "host": "www.site.test", "lang": lang} for g, p, lang in rows])


def crawl_log(rows: list[tuple[str, bool, bool]]) -> pd.DataFrame:
    """A crawl log from (path, fetched, stored) rows, in order."""
    return pd.DataFrame([{"ord": i + 1, "url": f"{H}{p}", "fetched": f, "stored": s}
                         for i, (p, f, s) in enumerate(rows)])


# Three groups: g1 eng+mlt (1 pair), g2 eng+mlt+fra (1 pair), g3 eng+fra (no pair of the pair).
TRUTH = truth([("g1", "/en/a", "eng"), ("g1", "/mt/a", "mlt"), ("g2", "/en/b", "eng"), ("g2", "/mt/b", "mlt"),
               ("g2", "/fr/b", "fra"), ("g3", "/en/c", "eng"), ("g3", "/fr/c", "fra")])


def test_pair_pages_and_count() -> None:
    pages = cc.pair_pages(TRUTH, PAIR)
    assert sorted(pages["key"]) == sorted(cc.url_key(f"{H}{p}") for p in ("/en/a", "/mt/a", "/en/b", "/mt/b"))
    assert set(pages.loc[pages["key"].str.contains("/mt/"), "side"]) == {1}
    assert cc.count_pairs(pages) == 2
    # m x n pairs: a group with two English and three Maltese pages holds 6
    big = truth([("g", "/en/1", "eng"), ("g", "/en/2", "eng"), ("g", "/mt/1", "mlt"), ("g", "/mt/2", "mlt"),
                 ("g", "/mt/3", "mlt")])
    assert cc.count_pairs(cc.pair_pages(big, PAIR)) == 6
    assert cc.count_pairs(cc.pair_pages(big, PAIR), [cc.url_key(f"{H}/en/1"), cc.url_key(f"{H}/mt/3")]) == 1
    with pytest.raises(ValueError):
        cc.pair_pages(TRUTH, ("eng", "eng"))


def test_url_key_matches_encodings_and_host_case() -> None:
    assert cc.url_key("http://WWW.Site.test/mt/spe%c4%8bjali") == cc.url_key("http://www.site.test/mt/speċjali")
    assert cc.url_key("http://www.site.test") == cc.url_key("http://www.site.test/")
    assert cc.url_key("http://[bad/x") == "http://[bad/x"  # does not parse: the raw string


def test_downloads_keep_fetched_rows_in_order() -> None:
    log = crawl_log([("/", True, True), ("/private", False, False), ("/old", True, False), ("/en/a", True, True)])
    dl = cc.downloads(log.iloc[::-1])  # out of order on purpose
    assert dl["position"].tolist() == [1, 2, 3]
    assert [k.rsplit("/", 1)[-1] for k in dl["key"]] == ["", "old", "a"]
    assert dl["stored"].tolist() == [True, False, True]


def test_found_counts_pairs_when_both_pages_are_stored() -> None:
    pages = cc.pair_pages(TRUTH, PAIR)
    log = crawl_log([("/", True, True), ("/en/a", True, True), ("/en/b", True, True), ("/missing", True, False),
                     ("/mt/b", True, True), ("/fr/b", True, True), ("/mt/a", True, False)])  # /mt/a failed
    done = cc.completions(cc.downloads(log), pages)
    assert done.tolist() == [5]  # g2 complete at the 5th download; g1's Maltese page was never stored
    assert cc.found_at(done, np.array([0, 4, 5, 7])).tolist() == [0, 0, 1, 1]
    # a page listed twice in the log counts at its first stored download
    again = crawl_log([("/en/a", True, True), ("/mt/a", True, True), ("/en/a", True, True)])
    assert cc.completions(cc.downloads(again), pages).tolist() == [2]


def test_completions_count_m_by_n_pairs() -> None:
    big = cc.pair_pages(truth([("g", "/en/1", "eng"), ("g", "/en/2", "eng"), ("g", "/mt/1", "mlt")]), PAIR)
    log = crawl_log([("/mt/1", True, True), ("/en/1", True, True), ("/x", True, True), ("/en/2", True, True)])
    assert cc.completions(cc.downloads(log), big).tolist() == [2, 4]


def test_points_are_rounded_shares_of_the_downloads() -> None:
    assert cc.points(25).tolist() == [0, 3, 5, 8, 10, 13, 15, 18, 20, 23, 25]
    assert cc.points(100).tolist() == list(range(0, 101, 10))
    assert cc.points(0).tolist() == [0] * 11
    assert cc.points(7, n_points=4).tolist() == [0, 2, 4, 5, 7]
    with pytest.raises(ValueError):
        cc.points(10, n_points=0)


def _brute_oracle(groups: list[tuple[int, int]], k: int) -> int:
    """Most pairs from k pages chosen among groups of (a L1, b L2) pages, by enumeration."""
    items = [(g, side) for g, (a, b) in enumerate(groups) for side, n in ((0, a), (1, b)) for _ in range(n)]
    best = 0
    for chosen in itertools.combinations(range(len(items)), min(k, len(items))):
        counts: dict[tuple[int, int], int] = {}
        for i in chosen:
            counts[items[i]] = counts.get(items[i], 0) + 1
        best = max(best, sum(counts.get((g, 0), 0) * counts.get((g, 1), 0) for g in range(len(groups))))
    return best


def _pages_of(groups: list[tuple[int, int]]) -> tuple[pd.DataFrame, list[str]]:
    rows = [(f"g{g}", f"/{lang}/{g}-{i}", lang) for g, (a, b) in enumerate(groups)
            for lang, n in (("eng", a), ("mlt", b)) for i in range(n)]
    frame = truth(rows)
    return cc.pair_pages(frame, PAIR), [cc.url_key(u) for u in frame["url"]]


def test_oracle_one_page_per_language_is_pairs_first() -> None:
    pages, keys = _pages_of([(1, 1)] * 3)
    ks = np.arange(0, 9)
    assert cc.oracle_found(pages, keys, ks).tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 3]
    # only stored pool pages count
    assert cc.oracle_found(pages, keys[:4], ks).tolist() == [0, 0, 1, 1, 2, 2, 2, 2, 2]


@pytest.mark.parametrize("seed", range(6))
def test_oracle_is_the_exact_optimum(seed: int) -> None:
    rng = random.Random(seed)
    groups = [(rng.randint(1, 3), rng.randint(1, 3)) for _ in range(rng.randint(1, 3))]
    groups += [(1, 1)] * rng.randint(0, 2)
    pages, keys = _pages_of(groups)
    n = len(keys)
    ks = np.arange(0, n + 1)
    assert cc.oracle_found(pages, keys, ks).tolist() == [_brute_oracle(groups, k) for k in range(n + 1)]


def test_random_reference_is_the_mean_over_all_orders() -> None:
    # pool: 5 downloads, 2 pairs (g1, g2); exact mean over all 120 orders
    pages = cc.pair_pages(TRUTH, PAIR)
    pool = [cc.url_key(f"{H}{p}") for p in ("/en/a", "/mt/a", "/en/b", "/mt/b", "/x")]
    ks = np.arange(0, 6)
    exact = np.zeros(len(ks))
    orders = list(itertools.permutations(pool))
    for order in orders:
        dl = pd.DataFrame({"position": np.arange(1, 6), "key": list(order), "stored": True})
        exact += cc.found_at(cc.completions(dl, pages), ks)
    exact /= len(orders)
    np.testing.assert_allclose(cc.random_found(5, 2, ks), exact)
    assert cc.random_found(1, 0, ks).tolist() == [0.0] * 6
    with pytest.raises(ValueError):
        cc.random_found(5, 2, np.array([6]))


def _site_logs() -> dict[str, pd.DataFrame]:
    good = crawl_log([("/", True, True), ("/en/a", True, True), ("/mt/a", True, True), ("/en/b", True, True),
                      ("/mt/b", True, True), ("/fr/b", True, True), ("/en/c", True, True), ("/fr/c", True, True),
                      ("/x", True, False), ("/y", True, True)])
    bad = crawl_log([("/", True, True), ("/x", True, False), ("/y", True, True), ("/en/c", True, True),
                     ("/fr/c", True, True), ("/fr/b", True, True), ("/en/a", True, True), ("/en/b", True, True),
                     ("/mt/b", True, True), ("/mt/a", True, True)])
    return {"good": good, "bad": bad}


def test_site_curves_and_references() -> None:
    pages = cc.pair_pages(TRUTH, PAIR)
    curves = cc.site_curves(_site_logs(), pages, site="www.site.test")
    assert list(curves.columns) == list(cc.CURVE_COLUMNS)
    wide = curves.pivot(index="point", columns="curve", values="found")
    assert wide["good"].tolist() == [0, 0, 0, 1, 1, 2, 2, 2, 2, 2, 2]
    assert wide["bad"].tolist() == [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2]
    assert wide["oracle"].tolist() == [0, 0, 1, 1, 2, 2, 2, 2, 2, 2, 2]
    # pool = 10 downloads, 2 pairs: random = 2 k (k - 1) / 90
    np.testing.assert_allclose(wide["random"], [2 * k * (k - 1) / 90 for k in range(11)])
    for name in ("good", "bad", "random"):
        assert (wide[name] <= wide["oracle"] + 1e-9).all()
        assert (np.diff(wide[name]) >= 0).all()
    with pytest.raises(ValueError, match="reserved"):
        cc.site_curves({"oracle": _site_logs()["good"]}, pages)


def test_references_use_the_pool_and_the_longest_crawl() -> None:
    """A budget-cut crawl: the oracle picks from every page any crawl reached, with the longest crawl's N."""
    pages = cc.pair_pages(TRUTH, PAIR)
    logs = _site_logs()
    short = crawl_log([("/", True, True), ("/en/a", True, True), ("/mt/a", True, True), ("/robots", False, False)])
    curves = cc.site_curves({"full": logs["bad"], "short": short}, pages)
    last = curves[curves["point"] == 10].set_index("curve")
    assert last.loc["short", "downloads"] == 3 and last.loc["short", "found"] == 1
    assert last.loc["oracle", "downloads"] == 10 and last.loc["oracle", "found"] == 2
    for name in ("full", "short"):
        sub = curves[curves["curve"] == name].set_index("point")["found"]
        assert (sub <= curves[curves["curve"] == "oracle"].set_index("point")["found"]).all()


def test_sum_over_sites_and_auc_shares() -> None:
    pages = cc.pair_pages(TRUTH, PAIR)
    one = cc.site_curves(_site_logs(), pages, site="a")
    two = cc.site_curves(_site_logs(), pages, site="b")
    totals = cc.sum_over_sites(pd.concat([one, two]))
    good = totals[totals["curve"] == "good"].sort_values("point")
    assert good["found"].tolist() == [0, 0, 0, 2, 2, 4, 4, 4, 4, 4, 4]
    assert good["downloads"].tolist()[-1] == 20
    shares = cc.auc_shares(totals)
    assert shares["oracle"] == pytest.approx(1.0)
    assert shares["bad"] < shares["random"] < shares["good"] < 1.0
    oracle = totals[totals["curve"] == "oracle"].sort_values("point")["found"].tolist()
    assert shares["good"] == pytest.approx(cc.auc(good["found"].tolist()) / cc.auc(oracle))


def test_auc_trapezoids() -> None:
    assert cc.auc([0, 1, 1]) == pytest.approx(0.75)
    assert cc.auc([0, 10]) == pytest.approx(5.0)
    assert cc.auc([0.0] * 11) == 0.0
    with pytest.raises(ValueError):
        cc.auc([1.0])
    empty = pd.DataFrame({"curve": ["oracle", "oracle", "x", "x"], "point": [0, 1, 0, 1], "found": [0.0] * 4})
    assert math.isnan(cc.auc_shares(empty)["x"])


def test_pairs_by_site_uses_the_host_map() -> None:
    groups = pd.concat([TRUTH, truth([("h1", "/en/h", "eng")]).assign(host="mt.site.test"),
                        truth([("h1", "/mt/h", "mlt")]).assign(host="mt.site.test"),
                        truth([("o1", "/en/o", "eng"), ("o1", "/mt/o", "mlt")]).assign(host="other.test")])
    out = cc.pairs_by_site(groups, PAIR, {"www.site.test": "www.site.test", "mt.site.test": "www.site.test"})
    assert out == {"www.site.test": 3, "other.test": 1}
