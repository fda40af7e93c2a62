"""Synthetic negative generators: name parsing, invariants of each generator, the Jaccard search."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import numpy as np
import pytest

from smartcrawl.data.negatives import (
    GENERATORS,
    NEGATIVE_NAMES,
    Negative,
    NegativeFilter,
    PositiveGroup,
    describe_negatives,
    generate,
    generate_groups,
    parse_negatives,
    remove_random_tokens,
)
from smartcrawl.data.negatives_jaccard import SimilarityIndex, jaccard, jaccard_tokens, raw_tokens, split_resource
from smartcrawl.data.negatives_lett import extract_links, lett_link_negatives


def _group(domain: str = "site.com", n: int = 8, key: str = "g") -> PositiveGroup:
    pairs = [
        (f"https://www.{domain}/en/news/item-{i}.html", f"https://www.{domain}/fr/actualites/article-{i}.html")
        for i in range(n)
    ]
    return PositiveGroup(key, "eng", "fra", pairs)


def _run(name: str, group: PositiveGroup, per_positive: int = 2, seed: int = 0,
         fallback: PositiveGroup | None = None) -> list[Negative]:
    positives = set(group.pairs) | (set(fallback.pairs) if fallback else set())
    return generate(name, group, per_positive, np.random.default_rng(seed), NegativeFilter(positives), fallback)


# --- names ------------------------------------------------------------------------------------


def test_parse_negatives_short_and_full_names() -> None:
    assert parse_negatives("rand+jaccard+remove") == ("rand_bi", "rand_mono", "jaccard_bi", "jaccard_mono", "remove_bi")
    assert parse_negatives("rand") == ("rand_bi", "rand_mono")
    assert parse_negatives("jaccard") == ("jaccard_bi", "jaccard_mono")
    assert parse_negatives("remove") == ("remove_bi",)
    assert parse_negatives("none") == ()
    assert parse_negatives("all") == GENERATORS
    for g in GENERATORS:
        assert parse_negatives(g) == (g,)
    # Order and repeats do not matter; the result is canonical.
    assert parse_negatives("remove_mono+ Rand_BI +rand_bi") == ("rand_bi", "remove_mono")
    assert parse_negatives(["jaccard_mono", "remove"]) == ("jaccard_mono", "remove_bi")


def test_every_appendix_combination_is_expressible() -> None:
    import itertools

    for r in range(1, len(GENERATORS) + 1):
        for combo in itertools.combinations(GENERATORS, r):
            assert parse_negatives("+".join(combo)) == combo


@pytest.mark.parametrize("spec", ["random", "rand+bogus", "rand++remove", ""])
def test_parse_negatives_errors_name_allowed_values(spec: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_negatives(spec)
    msg = str(err.value)
    assert msg.startswith("negatives:")
    for name in NEGATIVE_NAMES:
        assert name in msg


def test_describe_negatives_lists_every_name() -> None:
    table = describe_negatives()
    for name in NEGATIVE_NAMES:
        assert f"| `{name}` |" in table
    assert "| `remove` | `remove_bi` |" in table


# --- URL tokens -------------------------------------------------------------------------------


def test_split_resource_keeps_scheme_authority_port() -> None:
    assert split_resource("http://u:p@a.com:8080/en/x?y=1") == ("http://u:p@a.com:8080/", "en/x?y=1")
    assert split_resource("https://a.com?lang=en") == ("https://a.com?", "lang=en")
    assert split_resource("https://a.com") == ("https://a.com", "")


def test_raw_tokens_cover_the_string_and_keep_escapes_whole() -> None:
    s = "fr/caf%C3%A9_2019/index.php?id=12&lang=fr#top"
    toks = raw_tokens(s)
    assert "".join(toks) == s
    assert "caf%C3%A9" in toks
    assert jaccard_tokens("http://a.com/fr/caf%C3%A9") == frozenset({"fr", "/", "café"})


# --- generators -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["rand_bi", "jaccard_bi"])
def test_bilingual_replacement_keeps_source_url_and_languages(name: str) -> None:
    group = _group()
    negs = _run(name, group)
    assert len(negs) == 2 * len(group.pairs)
    trg_urls = set(group.trg.urls)
    for n in negs:
        u, v = group.pairs[n.origin]
        assert n.src_url == u and n.trg_url != v
        assert n.trg_url in trg_urls
        assert (n.src_lang, n.trg_lang) == ("eng", "fra")
        assert n.kind == name and not n.from_fallback


@pytest.mark.parametrize("name", ["rand_mono", "jaccard_mono"])
def test_monolingual_pairs_are_same_language(name: str) -> None:
    group = _group()
    negs = _run(name, group)
    src_urls, trg_urls = set(group.src.urls), set(group.trg.urls)
    # per_positive for every distinct URL of each side.
    assert len(negs) == 2 * (len(src_urls) + len(trg_urls))
    for n in negs:
        assert n.src_lang == n.trg_lang
        assert n.src_url != n.trg_url
        pool = src_urls if n.src_lang == "eng" else trg_urls
        assert n.src_url in pool and n.trg_url in pool


def test_remove_tokens_never_touches_scheme_host_port() -> None:
    urls = [
        "https://user@www.example.co.uk:8443/en/products/shoes-42.html?color=red&size=9#reviews",
        "http://a.com?lang=en&page=2",
        "http://b.org/caf%C3%A9/menu",
    ]
    rng = np.random.default_rng(3)
    for url in urls:
        before = urlsplit(url)
        for _ in range(200):
            out = remove_random_tokens(url, rng)
            after = urlsplit(out)
            assert (after.scheme, after.netloc, after.port) == (before.scheme, before.netloc, before.port)
            assert out != url and len(out) < len(url)
            assert "//" not in out[len("https://"):]
    assert remove_random_tokens("https://a.com/", rng) == "https://a.com/"


def test_remove_bi_and_mono() -> None:
    group = _group()
    bi = _run("remove_bi", group)
    assert len(bi) == 2 * len(group.pairs)
    for n in bi:
        u, v = group.pairs[n.origin]
        assert (n.src_url, n.trg_url) != (u, v)
        assert urlsplit(n.src_url).netloc == urlsplit(u).netloc and urlsplit(n.trg_url).netloc == urlsplit(v).netloc
        assert (n.src_lang, n.trg_lang) == ("eng", "fra")
    mono = _run("remove_mono", group)
    assert mono and all(n.src_lang == n.trg_lang and n.src_url != n.trg_url for n in mono)


def test_jaccard_picks_the_most_similar_other_url() -> None:
    pairs = [
        ("http://s.com/en/shop/red-shoes.html", "http://s.com/fr/boutique/chaussures-rouges.html"),
        ("http://s.com/en/shop/red-hats.html", "http://s.com/fr/shop/red-hats.html"),
        ("http://s.com/en/about", "http://s.com/fr/about"),
        ("http://s.com/en/contact", "http://s.com/fr/contact-us"),
    ]
    group = PositiveGroup("g", "eng", "fra", pairs)
    negs = _run("jaccard_bi", group, per_positive=1)
    best = {n.src_url: n.trg_url for n in negs}
    # For red-shoes, fr/shop/red-hats shares "shop", "red", "html"... with it: the most similar.
    assert best[pairs[0][0]] == "http://s.com/fr/shop/red-hats.html"
    for src, trg in best.items():
        q = jaccard_tokens(src)
        others = [v for u, v in pairs if u != src]
        assert jaccard(q, jaccard_tokens(trg)) == max(jaccard(q, jaccard_tokens(v)) for v in others)


def test_no_negative_is_a_positive_or_a_duplicate() -> None:
    # Two translations of the same page: (u, v1) and (u, v2) are both positive.
    pairs = [("http://d.com/en/a", "http://d.com/fr/a"), ("http://d.com/en/a", "http://d.com/fr/a-bis")]
    pairs += [(f"http://d.com/en/p{i}", f"http://d.com/fr/p{i}") for i in range(5)]
    group = PositiveGroup("g", "eng", "fra", pairs)
    accept = NegativeFilter(set(pairs))
    rngs = [np.random.default_rng(1)]
    negs = [n for g in GENERATORS for n in generate_groups(g, [group], 3, rngs, accept)]
    keys = [(n.src_url, n.trg_url) for n in negs]
    assert len(keys) == len(set(keys))
    for s, t in keys:
        assert (s, t) not in pairs and (t, s) not in pairs and s != t


def test_generators_are_deterministic_with_a_seed() -> None:
    for name in GENERATORS:
        a = _run(name, _group(), seed=7)
        b = _run(name, _group(), seed=7)
        assert a == b
    assert _run("rand_bi", _group(n=30), seed=1) != _run("rand_bi", _group(n=30), seed=2)


def test_small_domain_falls_back_to_the_language_pair_pool() -> None:
    small = _group("tiny.com", n=1, key="tiny")
    others = [_group(f"d{i}.com", n=3, key=f"d{i}") for i in range(4)]
    pool = PositiveGroup("pool", "eng", "fra", [p for g in (small, *others) for p in g.pairs])
    for name in ("rand_bi", "jaccard_bi", "rand_mono", "jaccard_mono"):
        negs = _run(name, small, per_positive=2, fallback=pool)
        assert len(negs) == (2 if name.endswith("_bi") else 4), name
        assert all(n.from_fallback for n in negs)
        assert _run(name, small, per_positive=2) == []  # without a fallback: none (the authors' behaviour)


def test_generate_rejects_unknown_name() -> None:
    with pytest.raises(ValueError, match="allowed"):
        _run("rand", _group())


# --- Jaccard search ---------------------------------------------------------------------------


def _brute_best(queries: list[str], urls: list[str]) -> list[float]:
    return [max(jaccard(jaccard_tokens(q), jaccard_tokens(u)) for u in urls) for q in queries]


def test_similarity_index_matches_brute_force_on_a_big_pool() -> None:
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(400)]
    urls = [f"http://s.com/{'/'.join(rng.choice(words, size=3))}-{i % 50}.html?p={i % 7}" for i in range(1500)]
    queries = [f"http://s.com/{'/'.join(rng.choice(words, size=3))}-{i}.html" for i in range(60)]
    index = SimilarityIndex(urls)
    best = index.most_similar(queries, 1)
    expected = _brute_best(queries, urls)
    got = [jaccard(jaccard_tokens(q), jaccard_tokens(urls[b[0]])) for q, b in zip(queries, best)]
    assert got == pytest.approx(expected)
    # The top 3 scores too, in order (ties may pick different URLs of equal score).
    top3 = index.most_similar(queries, 3)
    for q, ranked in zip(queries, top3):
        scores = sorted((jaccard(jaccard_tokens(q), jaccard_tokens(u)) for u in urls), reverse=True)[:3]
        assert [jaccard(jaccard_tokens(q), jaccard_tokens(urls[c])) for c in ranked[:3]] == pytest.approx(scores)
    # Excluded positions never come back.
    excl = [[b[0]] for b in best]
    again = index.most_similar(queries, 3, excl)
    assert all(b[0] not in a for a, b in zip(again, best))


@pytest.mark.slow
def test_jaccard_on_a_20k_url_domain_takes_seconds() -> None:
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(3000)]
    pairs = [
        (f"https://big.com/en/{'/'.join(ws)}-{i}.html?id={i}", f"https://big.com/fr/{'/'.join(ws)}-{i}.html?id={i}")
        for i, ws in enumerate(rng.choice(words, size=(20000, 3)))
    ]
    group = PositiveGroup("big", "eng", "fra", pairs)
    start = time.monotonic()
    negs = generate("jaccard_bi", group, 3, np.random.default_rng(0), NegativeFilter(set(pairs)))
    elapsed = time.monotonic() - start
    assert len(negs) == 3 * len(pairs)
    assert elapsed < 30.0, elapsed  # about 5 s on one free core


# --- .lett link negatives ---------------------------------------------------------------------


class _Page:
    def __init__(self, url: str, lang: str, html: str = "") -> None:
        self.url, self.lang, self.html = url, lang, html


def test_extract_links_resolves_and_drops_fragments() -> None:
    html = '<a href="/fr/a#x">A</a><a href="b.html">B</a><link href="https://o.org/c"><a href="mailto:x@y">m</a>'
    assert extract_links(html, "http://s.com/en/") == ["http://s.com/fr/a", "http://s.com/en/b.html", "https://o.org/c"]
    assert extract_links("<a href=", "http://s.com/") == []


def test_lett_negatives_follow_the_paper() -> None:
    from collections import Counter

    gold: dict[str, frozenset[str]] = {}
    for page in ("a", "b"):
        en, fr = f"http://s.com/en/{page}", f"http://s.com/fr/{page}"
        gold[en], gold[fr] = frozenset({fr}), frozenset({en})
    langs = {u: frozenset({"eng", "fra"}) for u in gold}
    links_a = "".join(f'<a href="{h}">x</a>' for h in ("/fr/a", "/en/c", "/fr/d", "/de/e", "/en/a"))
    pages = [
        _Page("http://s.com/en/a", "eng", links_a),
        _Page("http://s.com/fr/a", "fra"),
        _Page("http://s.com/en/b", "eng", '<a href="/en/c">no gold link here</a>'),
        _Page("http://s.com/en/c", "eng"),
        _Page("http://s.com/fr/d", "fra"),
        _Page("http://s.com/de/e", "deu"),
    ]
    counts: Counter[str] = Counter()
    negs = list(lett_link_negatives(pages, gold, langs, 5, 0, counts))
    assert {(n.src_url, n.trg_url, n.src_lang, n.trg_lang) for n in negs} == {
        ("http://s.com/en/a", "http://s.com/en/c", "eng", "eng"),
        ("http://s.com/en/a", "http://s.com/fr/d", "eng", "fra"),
    }
    # en/b links to no gold partner and fr/a links to nothing: both sets discarded.
    assert counts["gold_pages_without_gold_link"] == 2 and counts["gold_pages"] == 3
    capped = list(lett_link_negatives(pages, gold, langs, 1, 0, Counter()))
    assert len(capped) == 1


def test_similarity_ranking_is_the_same_in_every_process() -> None:
    """Rankings must not depend on Python's per-process string hashing (PYTHONHASHSEED)."""
    import subprocess
    import sys

    script = (
        "from smartcrawl.data.negatives_jaccard import SimilarityIndex, _BRUTE_FORCE_MAX\n"
        "urls = [f'http://a.com/{x}/item-{i % 37}/part-{i % 11}-{i % 5}' for i in range(_BRUTE_FORCE_MAX + 200)"
        " for x in ('en',)]\n"
        "idx = SimilarityIndex(urls)\n"
        "print(idx.most_similar(urls[:150], 3))\n"
    )
    outs = {
        subprocess.run([sys.executable, "-c", script], env={**__import__("os").environ, "PYTHONHASHSEED": seed},
                       capture_output=True, text=True, check=True).stdout
        for seed in ("1", "2", "3")
    }
    assert len(outs) == 1
