"""The three baselines: URL rules, fastText over URLs, WMT16 URL matching (and their CLIs)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from smartcrawl.langs import UNKNOWN
from smartcrawl.models.baselines import fasttext_url, url_matching, url_rules
from smartcrawl.models.baselines.fasttext_url import FastTextParams, FastTextUrlClassifier
from smartcrawl.models.baselines.url_matching import (
    CachedUrlMatcher,
    LanguageStripper,
    UrlMatchingBaseline,
    language_tokens,
    UrlMatcher,
    url_matching_parallel,
)
from smartcrawl.models.baselines.url_rules import PAPER_ORDER, UrlRulesClassifier, all_orders, fit_order

LABELS = {"eng", "fra", "deu", "fin", "isl", "sqi"}

# ---------------------------------------------------------------- URL rules


@pytest.mark.parametrize(
    ("url", "lang"),
    [
        ("http://example.com/page?lang=de", "deu"),  # query-parameter value
        ("http://example.com/page?l=ger&x=1", "deu"),  # ISO 639-2/B
        ("http://example.com/fr/page.html", "fra"),  # directory
        ("http://example.com/docs/fra", "fra"),  # last path segment, ISO 639-3
        ("http://www.example.fi/sivu", "fin"),  # public suffix = ISO 639-1 code
        ("https://example.is/", "isl"),
        ("http://de.example.com/seite", "deu"),  # subdomain
        ("http://example.com/about-us", UNKNOWN),  # nothing found
        ("http://example.co.uk/", UNKNOWN),  # whole suffix must be a code
        ("http://www.de.example.com/", UNKNOWN),  # whole subdomain must be a code
        ("http://example.com/fr-fr/page", UNKNOWN),  # a directory must equal a code
        ("http://example.com/FR/page", UNKNOWN),  # case-sensitive by default (as the authors)
        ("http://example.com/es/page", UNKNOWN),  # spa is not in the label set
    ],
)
def test_rules_parts(url: str, lang: str) -> None:
    assert UrlRulesClassifier(LABELS).predict([url]) == [lang]


def test_rules_lowercase_and_country_suffix() -> None:
    assert UrlRulesClassifier(LABELS, lowercase=True).predict_one("http://example.com/FR/page") == "fra"
    code = UrlRulesClassifier(LABELS)
    country = UrlRulesClassifier(LABELS, suffix_mode="country")
    assert code.predict_one("http://example.at/") == UNKNOWN
    assert country.predict_one("http://example.at/") == "deu"
    assert country.predict_one("http://example.ch/") == UNKNOWN  # fra and deu official: ambiguous
    assert country.predict_one("http://example.fi/") == "fin"
    with pytest.raises(ValueError):
        UrlRulesClassifier(LABELS, suffix_mode="tld")  # type: ignore[arg-type]


def test_rules_order_matters() -> None:
    url = "http://de.example.fi/fr/page?lang=en"
    expected = {"params": "eng", "dirs": "fra", "suffix": "fin", "subdomain": "deu"}
    clf = UrlRulesClassifier(LABELS)
    assert clf.detect(url) == expected
    for first, lang in expected.items():
        order = (first, *[p for p in PAPER_ORDER if p != first])
        assert clf.with_order(order).predict_one(url) == lang
    with pytest.raises(ValueError):
        UrlRulesClassifier(LABELS, ("params", "dirs"))


def test_fit_order_picks_better_order() -> None:
    # The subdomain is right and the directory wrong: every order with subdomain before dirs wins.
    urls = [f"http://de.site{i}.com/fr/page{i}" for i in range(10)] + [f"http://site{i}.com/fr/x" for i in range(5)]
    labels = ["deu"] * 10 + ["fra"] * 5
    assert len(all_orders()) == 24 and all_orders()[0] == PAPER_ORDER
    order = fit_order(urls, labels, LABELS)
    assert order.index("subdomain") < order.index("dirs")
    scores = url_rules.score_orders(urls, labels, LABELS)
    assert scores[order]["macro"]["f1"] == pytest.approx(100.0)
    assert scores[PAPER_ORDER]["macro"]["f1"] < 100.0
    # No conflicts at all: every order ties and the paper's order is kept.
    assert fit_order(["http://x.com/fr/a", "http://de.y.com/"], ["fra", "deu"], LABELS) == PAPER_ORDER


def _write_langid(data: Path) -> None:
    data.mkdir()
    rows = {
        "train": [("http://a.com/fr/x", "fra"), ("http://b.de/", "deu"), ("http://c.com/en/", "eng")],
        "dev": [("http://de.d.com/fr/x", "deu"), ("http://e.com/fr/y", "fra"), ("http://f.com/", "eng")],
        "test": [("http://de.g.com/fr/x", "deu"), ("http://h.com/?lang=en", "eng"), ("http://i.com/a", "fra")],
    }
    for split, rs in rows.items():
        pd.DataFrame(
            {"url": [u for u, _ in rs], "lang": [lab for _, lab in rs],
             "domain": [f"d{i}" for i in range(len(rs))], "source": ["t"] * len(rs)}
        ).to_parquet(data / f"{split}.parquet", index=False)


def test_rules_cli(tmp_path: Path) -> None:
    data, out = tmp_path / "langid", tmp_path / "res"
    _write_langid(data)
    url_rules.main(["--data", str(data), "--out", str(out)])
    res = json.loads((out / "metrics.json").read_text())
    assert len(res["dev_f1_by_order"]) == 24
    assert res["order"].index("subdomain") < res["order"].index("dirs")
    assert res["test"]["n"] == 3 and res["test"]["accuracy"] == pytest.approx(200 / 3)
    assert res["test_unknown_rate"] == pytest.approx(100 / 3)
    pred = pd.read_parquet(out / "predictions.parquet")
    assert list(pred.columns) == ["url", "lang", "pred"]
    assert pred["pred"].tolist() == ["deu", "eng", UNKNOWN]


# ---------------------------------------------------------------- fastText

_FT = FastTextParams(bucket=20_000, threads=1, epoch=10, seed=1)


def _synthetic(n: int, start: int = 0) -> tuple[list[str], list[str]]:
    urls, labels = [], []
    for i in range(start, start + n):
        urls += [f"https://shop{i}.com/fr/produit-{i}.html", f"http://www.news{i}.org/de/artikel/{i}"]
        labels += ["fra", "deu"]
    return urls, labels


def test_fasttext_learns_markers_and_round_trips(tmp_path: Path) -> None:
    urls, labels = _synthetic(150)
    clf = FastTextUrlClassifier.train(urls, labels, _FT)
    assert sorted(clf.labels) == ["deu", "fra"]
    test_urls, test_labels = _synthetic(20, start=1000)
    pred = clf.predict(test_urls)
    assert sum(p == t for p, t in zip(pred, test_labels)) / len(pred) >= 0.95
    path = clf.save(tmp_path / "m" / "model.bin")
    again = FastTextUrlClassifier.load(path)
    assert again.predict(test_urls) == pred
    assert clf.predict_with_proba(test_urls)[1] == pytest.approx(again.predict_with_proba(test_urls)[1])
    assert clf.predict(["", "http://x.com/fr/a%0Ab"])[0] == UNKNOWN  # empty text; newline decoded safely


def test_fasttext_seeded_single_thread_is_deterministic() -> None:
    urls, labels = _synthetic(40)
    a = FastTextUrlClassifier.train(urls, labels, _FT)
    b = FastTextUrlClassifier.train(urls, labels, _FT)
    probe = _synthetic(10, start=700)[0]
    assert a.predict_with_proba(probe) == b.predict_with_proba(probe)


def test_fasttext_training_file_format() -> None:
    import io

    fh = io.StringIO()
    n = fasttext_url.write_training_file(fh, ["https://a.com/en/x%20y", ""], ["eng", "fra"])
    assert n == 1 and fh.getvalue() == "__label__eng a.com / en / x y\n"
    with pytest.raises(ValueError):
        fasttext_url.write_training_file(io.StringIO(), ["http://a.com/x"], ["bad label"])


def test_fasttext_cli(tmp_path: Path) -> None:
    data, out = tmp_path / "langid", tmp_path / "res"
    data.mkdir()
    for split, (n, start) in {"train": (60, 0), "dev": (5, 500), "test": (5, 900)}.items():
        urls, labels = _synthetic(n, start)
        pd.DataFrame({"url": urls, "lang": labels, "domain": urls, "source": "t"}).to_parquet(
            data / f"{split}.parquet", index=False
        )
    fasttext_url.main(["--data", str(data), "--out", str(out), "--bucket", "20000", "--threads", "1",
                       "--epoch", "20"])
    res = json.loads((out / "metrics.json").read_text())
    assert res["params"]["dim"] == 16 and res["params"]["loss"] == "hs"
    assert res["n_train"] == 120 and res["test"]["n"] == 10
    assert res["test"]["macro"]["f1"] >= 80.0
    assert (out / "model.bin").is_file()
    assert list(pd.read_parquet(out / "predictions.parquet").columns) == ["url", "lang", "pred"]


# ---------------------------------------------------------------- URL matching


def test_albanian_tokens() -> None:
    assert {"albanian", "shqip", "sqi", "alb", "sq", "sq-al", "sq-xk"} <= set(language_tokens("sqi"))
    assert "francais" in language_tokens("fra") and "fr_fr" in language_tokens("fra")


@pytest.mark.parametrize(
    ("src", "trg"),
    [
        ("http://site.com/en/about", "http://site.com/fr/about"),
        ("https://site.com/about?lang=en&id=3", "https://site.com/about?lang=fr&id=3"),
        ("http://site.com/news/page-en.html", "http://site.com/news/page-fr.html"),
        ("http://site.com/en-US/help/", "http://site.com/fr-FR/help/"),
        ("http://site.com/english/a", "http://site.com/francais/a"),
        ("http://site.com/en/a", "http://site.com/a"),
        ("http://site.com/index_EN.php?x=1", "http://site.com/index_fre.php?x=1"),
        ("http://site.gc.ca/report_123_e.html", "http://site.gc.ca/report_123_f.html"),  # WMT16 extra tokens
        ("http://site.com/uk/a", "http://site.com/a"),  # no en/fr token: the last step removes any language's
        ("http://site.com/x.php?Lang=1&id=7", "http://site.com/x.php?Lang=2&id=7"),  # lang-like query key
        ("http://site.com/x.php?choixlang=2&id=7", "http://site.com/x.php?id=7"),
    ],
)
def test_matching_en_fr_pairs(src: str, trg: str) -> None:
    assert url_matching_parallel(src, trg, "eng", "fra")


@pytest.mark.parametrize(
    ("src", "trg"),
    [
        ("http://site.com/en/news/12", "http://site.com/fr/news/13"),  # different ids
        ("http://site.com/en/a", "http://site.com/en/a"),  # the same URL
        ("http://site.com/a", "http://site.com/b"),  # nothing to remove
        ("http://site.com/france/a", "http://site.com/english/a"),  # 'france' is not a token
        ("http://fr.site.com/a", "http://en.site.com/a"),  # the host is kept by default
        ("http://site.com/en/de/a", "http://site.com/fr/a"),  # own-language step first: 'de' stays
        ("http://site.com/page3en.htm", "http://site.com/page3fr.htm"),  # glued to a digit: not a token
    ],
)
def test_matching_non_pairs(src: str, trg: str) -> None:
    assert not url_matching_parallel(src, trg, "eng", "fra")


def test_matching_without_wmt16_extras() -> None:
    assert not url_matching_parallel("http://s.ca/r_e.html", "http://s.ca/r_f.html", "eng", "fra", wmt16_tokens=False)
    assert "e" in language_tokens("eng") and "e" not in language_tokens("eng", wmt16_tokens=False)


def test_matching_albanian_strip_host_and_batch() -> None:
    assert url_matching_parallel("http://x.al/en/lajme/5", "http://x.al/sq/lajme/5", "eng", "sqi")
    assert url_matching_parallel("http://x.al/english/5", "http://x.al/shqip/5", "eng", "sqi")
    assert url_matching_parallel("http://x.al/en/5", "http://x.al/sq-AL/5", "eng", "sqi")
    assert url_matching_parallel("http://fr.site.com/a", "http://en.site.com/a", "eng", "fra", strip_host=True)
    pairs = [
        ("http://a.com/en/1", "http://a.com/fr/1", "eng", "fra"),
        ("http://a.com/en/1", "http://a.com/fr/2", "eng", "fra"),
        ("http://a.com/en/1", "http://a.com/is/1", "eng", "isl"),
    ]
    assert UrlMatchingBaseline().predict(pairs) == [1, 0, 1]
    assert LanguageStripper(["fra"]).strip("http://bla.com/lang-fr-FR-foo/x").text == "bla.com/lang-foo/x"


def test_matching_cli(tmp_path: Path) -> None:
    data, out = tmp_path / "parallel", tmp_path / "res"
    data.mkdir()
    rows = [
        ("http://a.com/en/1", "http://a.com/fr/1", 1),
        ("http://a.com/en/1", "http://a.com/fr/2", 0),
        ("http://b.com/x", "http://b.com/y", 1),
        ("http://b.com/x", "http://c.com/z", 0),
    ]
    df = pd.DataFrame(
        {"src_url": [r[0] for r in rows], "trg_url": [r[1] for r in rows], "src_lang": "eng", "trg_lang": "fra",
         "pair": "eng-fra", "label": [r[2] for r in rows], "kind": "t", "domain": "d", "source": "t"}
    )
    df.to_parquet(data / "test.parquet", index=False)
    df[df["label"] == 1].to_parquet(data / "wmt16_test.parquet", index=False)
    url_matching.main(["--data", str(data), "--out", str(out)])
    res = json.loads((out / "metrics.json").read_text())
    assert res["test"]["per_class"]["1"]["recall"] == pytest.approx(50.0)
    assert res["test"]["per_class"]["1"]["precision"] == pytest.approx(100.0)
    assert res["test"]["per_class"]["0"]["recall"] == pytest.approx(100.0)
    assert res["test"]["by_pair"]["eng-fra"]["n"] == 4
    assert res["wmt16_test"]["macro"]["recall"] == pytest.approx(50.0)
    pred = pd.read_parquet(out / "predictions.parquet")
    assert pred["split"].tolist() == ["test"] * 4 + ["wmt16_test"] * 2
    assert pred["pred"].tolist() == [1, 0, 0, 0, 1, 0]


def test_cached_url_matcher_agrees_and_stays_bounded() -> None:
    plain, cached = UrlMatcher("eng", "fra"), CachedUrlMatcher("eng", "fra", max_entries=3)
    urls = [f"http://a.test/{lang}/page{i}.html" for i in range(5) for lang in ("en", "fr")]
    for url in urls + urls:
        assert cached.strip(url, "eng") == plain.strip(url, "eng")
        assert cached.canonical(url) == plain.canonical(url)
    assert cached.parallel("http://a.test/en/page1.html", "http://a.test/fr/page1.html")
    assert len(cached._stripped) <= 3 and len(cached._canonical) <= 3
