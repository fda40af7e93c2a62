"""Parallel documents found as a crawl goes on, by decile of each site's downloads (the paper's Figure 7).

Pure functions from crawl logs (:func:`smartcrawl.crawl.crawllog.read_crawl_log`) and the test bed's
ground truth (``truth/groups.parquet``) to curves, two reference curves and areas under the curves.

Definitions
-----------
- **URL key**: the crawler's canonical URL (:func:`smartcrawl.crawl.urlnorm.canonical_url`), so that
  the crawl log and the truth compare equal whatever the percent-encoding or case of the host.
- **Parallel document pair** of the pair (L1, L2): two pages of the same translation group whose
  truth languages are L1 and L2. A group with one L1 and one L2 page holds 1 pair; one with m L1
  and n L2 pages holds m x n.
- **Downloads** of a crawl: its crawl-log rows with ``fetched`` true (a request reached the server:
  what a per-site page budget counts), in ``ord`` order. A page is *had* after k downloads when its
  row is among the first k and was ``stored`` (2xx HTML, kept in the WARC).
- **found(k)**: pairs whose two pages are both had after k downloads.
- **Points**: with N downloads of a site and ``n_points`` = n (10: deciles), point j = 0..n is
  k_j = floor(j N / n + 1/2) downloads (k_0 = 0, k_n = N): "j x 10 % of the site's downloads".
  Curves are computed per site and summed over sites at each point (the paper's aggregation).
- **Pool** of a site: the distinct URL keys downloaded by any of the compared crawls of that site
  (the pages a crawler can reach there); a key is *stored* in the pool when some crawl stored it.
  Its size is M. The references use N_ref = the largest N among the compared crawls of the site
  (all equal when every crawl ran to exhaustion).
- **Oracle**: for each k, the most pairs that k downloads drawn from the pool can complete (a
  knapsack over groups, exact; when every group has at most one page per language it is
  min(floor(k / 2), pairs in the pool), reached by the order "pages of translation groups first").
  It bounds every compared crawl from above at every point: a crawl's first k downloads are k
  pool members and its N <= N_ref.
- **Random**: the expected found(k) of a uniformly random order of the pool, computed analytically:
  each pool pair is complete after k of M downloads with probability k (k - 1) / (M (M - 1)).
- **AUC**: trapezoids over the points (x = j / n from 0 to 1, found = 0 at 0 %), of the summed
  curve; reported as a share of the oracle's AUC.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from smartcrawl.crawl.urlnorm import canonical_url

ORACLE = "oracle"
RANDOM = "random"
REFERENCES: tuple[str, ...] = (RANDOM, ORACLE)
CURVE_COLUMNS: tuple[str, ...] = ("curve", "site", "point", "percent", "downloads", "found")


def url_key(url: str) -> str:
    """The comparison key of a URL: its canonical form (the raw string when it does not parse)."""
    try:
        return canonical_url(str(url))
    except ValueError:
        return str(url)


def pair_pages(groups: pd.DataFrame, pair: Sequence[str]) -> pd.DataFrame:
    """Pages of translation groups holding both languages of ``pair``: columns ``key, group, side``.

    ``groups`` has the truth's ``group, url, lang`` columns; ``side`` is 0 for ``pair[0]`` and 1 for
    ``pair[1]``; ``group`` becomes an integer code. A page listed twice in one group counts once.
    """
    l1, l2 = str(pair[0]), str(pair[1])
    if l1 == l2:
        raise ValueError(f"a language pair needs two different languages, got {list(pair)}")
    sub = groups.loc[groups["lang"].isin((l1, l2)), ["group", "url", "lang"]]
    both = sub.groupby("group")["lang"].nunique()
    sub = sub[sub["group"].isin(both.index[both == 2])]
    out = pd.DataFrame({
        "key": [url_key(u) for u in sub["url"]],
        "group": pd.factorize(sub["group"].astype(str))[0].astype(np.int64),
        "side": (sub["lang"] == l2).astype(np.int64).to_numpy(),
    })
    return out.drop_duplicates(["key", "group", "side"]).reset_index(drop=True)


def count_pairs(pages: pd.DataFrame, keys: Iterable[str] | None = None) -> int:
    """Pairs among ``pages`` (:func:`pair_pages`), or among those whose key is in ``keys``."""
    sub = pages if keys is None else pages[pages["key"].isin(set(keys))]
    if sub.empty:
        return 0
    per = sub.groupby(["group", "side"]).size().unstack(fill_value=0)
    if per.shape[1] < 2:
        return 0
    return int((per[0] * per[1]).sum())


def pairs_by_site(groups: pd.DataFrame, pair: Sequence[str], site_of_host: Mapping[str, str]) -> dict[str, int]:
    """Pairs of the truth per site (pages grouped by ``site_of_host[host]``; unknown hosts are their own site)."""
    hosts = groups["host"].astype(str)
    sites = hosts.map(lambda h: site_of_host.get(h, h))
    return {str(site): count_pairs(pair_pages(sub, pair)) for site, sub in groups.groupby(sites, sort=True)}


def downloads(log: pd.DataFrame) -> pd.DataFrame:
    """The downloads of a crawl log in order: columns ``position`` (1..N), ``key``, ``stored``."""
    rows = log.sort_values("ord", kind="stable") if "ord" in log.columns else log
    rows = rows[rows["fetched"].astype(bool)]
    return pd.DataFrame({
        "position": np.arange(1, len(rows) + 1, dtype=np.int64),
        "key": [url_key(u) for u in rows["url"]],
        "stored": rows["stored"].astype(bool).to_numpy(),
    })


def completions(dl: pd.DataFrame, pages: pd.DataFrame) -> np.ndarray:
    """Sorted download positions at which each pair becomes found (both pages had), one per pair."""
    had = dl.loc[dl["stored"], ["key", "position"]].drop_duplicates("key")
    hit = pages.merge(had, on="key", how="inner")
    if hit.empty:
        return np.zeros(0, dtype=np.int64)
    a = hit.loc[hit["side"] == 0, ["group", "position"]]
    b = hit.loc[hit["side"] == 1, ["group", "position"]]
    both = a.merge(b, on="group", suffixes=("_a", "_b"))
    return np.sort(np.maximum(both["position_a"].to_numpy(), both["position_b"].to_numpy()).astype(np.int64))


def points(n_downloads: int, n_points: int = 10) -> np.ndarray:
    """Downloads k_j = floor(j N / n + 1/2) at points j = 0..n (module docstring)."""
    if n_points < 1:
        raise ValueError(f"n_points must be >= 1, got {n_points}")
    if n_downloads < 0:
        raise ValueError(f"n_downloads must be >= 0, got {n_downloads}")
    j = np.arange(n_points + 1, dtype=np.int64)
    return (2 * j * n_downloads + n_points) // (2 * n_points)


def found_at(done: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """found(k) for each k: how many completion positions are <= k."""
    return np.searchsorted(np.asarray(done), np.asarray(ks), side="right").astype(np.int64)


@dataclass(frozen=True)
class Pool:
    """What the compared crawls of one site downloaded (module docstring)."""

    size: int
    stored: frozenset[str]
    n_ref: int


def pool_of(dls: Iterable[pd.DataFrame]) -> Pool:
    """The pool of a site from the :func:`downloads` of its compared crawls."""
    frames = list(dls)
    if not frames:
        return Pool(0, frozenset(), 0)
    every = pd.concat(frames, ignore_index=True)
    return Pool(size=int(every["key"].nunique()), stored=frozenset(every.loc[every["stored"], "key"]),
                n_ref=max(len(f) for f in frames))


def _group_sizes(pages: pd.DataFrame, stored: Iterable[str]) -> np.ndarray:
    """(a, b) per group: its L1 and L2 pages stored in the pool, for groups with both."""
    sub = pages[pages["key"].isin(set(stored))]
    if sub.empty:
        return np.zeros((0, 2), dtype=np.int64)
    per = sub.groupby(["group", "side"]).size().unstack(fill_value=0)
    if per.shape[1] < 2:
        return np.zeros((0, 2), dtype=np.int64)
    ab = per[[0, 1]].to_numpy(dtype=np.int64)
    return ab[(ab[:, 0] > 0) & (ab[:, 1] > 0)]


def _best_split(a: int, b: int, t: int) -> int:
    """Most pairs from t pages of a group with a L1 and b L2 pages (x L1 and t - x L2 pages)."""
    lo, hi = max(0, t - b), min(a, t)
    best = 0
    for x in {lo, hi, min(hi, max(lo, t // 2)), min(hi, max(lo, (t + 1) // 2))}:
        best = max(best, x * (t - x))
    return best


def oracle_found(pages: pd.DataFrame, stored: Iterable[str], ks: np.ndarray) -> np.ndarray:
    """Most pairs completable with k downloads from a pool whose stored keys are ``stored``, for each k."""
    ks = np.asarray(ks, dtype=np.int64)
    ab = _group_sizes(pages, stored)
    simple = int(((ab[:, 0] == 1) & (ab[:, 1] == 1)).sum())
    rest = ab[~((ab[:, 0] == 1) & (ab[:, 1] == 1))]
    if len(rest) == 0:
        return np.minimum(ks // 2, simple)
    top = int(ks.max()) if len(ks) else 0
    best = np.zeros(top + 1, dtype=np.int64)  # best[j]: most pairs with at most j pages
    for a, b in rest.tolist():
        new = best.copy()
        for t in range(2, min(a + b, top) + 1):
            np.maximum(new[t:], best[: top + 1 - t] + _best_split(a, b, t), out=new[t:])
        best = new
    combined = best.copy()
    for m in range(1, min(simple, top // 2) + 1):
        np.maximum(combined[2 * m:], best[: top + 1 - 2 * m] + m, out=combined[2 * m:])
    return combined[ks]


def random_found(pool_size: int, pool_pairs: int, ks: np.ndarray) -> np.ndarray:
    """Expected found(k) of a uniformly random order of ``pool_size`` downloads holding ``pool_pairs`` pairs."""
    k = np.asarray(ks, dtype=np.float64)
    if pool_size < 2 or pool_pairs == 0:
        return np.zeros(len(k), dtype=np.float64)
    if (k > pool_size).any():
        raise ValueError(f"k exceeds the pool size {pool_size}")
    return pool_pairs * k * (k - 1) / (pool_size * (pool_size - 1))


def site_curves(logs: Mapping[str, pd.DataFrame], pages: pd.DataFrame, site: str = "",
                n_points: int = 10) -> pd.DataFrame:
    """Curves of one site: each crawl of ``logs`` (strategy -> crawl log) plus the random and oracle references.

    Returns a long DataFrame with :data:`CURVE_COLUMNS` (``curve`` = strategy or reference name).
    """
    bad = set(logs) & set(REFERENCES)
    if bad:
        raise ValueError(f"strategy names {sorted(bad)} are reserved for the references")
    dls = {name: downloads(log) for name, log in logs.items()}
    frames: list[pd.DataFrame] = []

    def add(curve: str, ks: np.ndarray, found: np.ndarray) -> None:
        frames.append(pd.DataFrame({
            "curve": curve, "site": site, "point": np.arange(len(ks)), "percent": 100.0 * np.arange(len(ks)) / n_points,
            "downloads": ks, "found": np.asarray(found, dtype=np.float64)}))

    for name, dl in dls.items():
        ks = points(len(dl), n_points)
        add(name, ks, found_at(completions(dl, pages), ks))
    pool = pool_of(dls.values())
    ks = points(pool.n_ref, n_points)
    add(RANDOM, ks, random_found(pool.size, count_pairs(pages, pool.stored), ks))
    add(ORACLE, ks, oracle_found(pages, pool.stored, ks))
    return pd.concat(frames, ignore_index=True)[list(CURVE_COLUMNS)]


def sum_over_sites(curves: pd.DataFrame) -> pd.DataFrame:
    """Per-site curves (:func:`site_curves`, concatenated) summed over sites.

    Columns: ``curve, point, percent, found, downloads``.
    """
    out = curves.groupby(["curve", "point"], sort=False).agg(
        percent=("percent", "first"), found=("found", "sum"), downloads=("downloads", "sum")).reset_index()
    return out.sort_values(["curve", "point"], kind="stable").reset_index(drop=True)


def auc(found: Sequence[float]) -> float:
    """Area under a curve given at equally spaced points from 0 % to 100 % (x in [0, 1]; trapezoids).

    ``found[0]`` is the value at 0 % (0 for a crawl curve); a curve given without the 0 % point should
    be prefixed with 0 by the caller.
    """
    y = np.asarray(found, dtype=np.float64)
    if len(y) < 2:
        raise ValueError("a curve needs at least the 0 % and 100 % points")
    return float(((y[1:] + y[:-1]) / 2.0).sum() / (len(y) - 1))


def auc_shares(totals: pd.DataFrame) -> dict[str, float]:
    """AUC of each summed curve (:func:`sum_over_sites`) as a share of the oracle's (NaN when the oracle's is 0)."""
    areas = {str(name): auc(g.sort_values("point")["found"].to_numpy()) for name, g in totals.groupby("curve")}
    ref = areas.get(ORACLE, 0.0)
    return {name: (area / ref if ref > 0 else float("nan")) for name, area in areas.items()}
