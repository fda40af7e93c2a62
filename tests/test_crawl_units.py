"""Unit tests of the crawler's parts that need no crawl: URLs, scope, CLD2, links, scorer, strategies, configs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hydra import compose, initialize_config_dir
from test_crawl_testweb import ENG, FRA, MLT, text_of

from smartcrawl.crawl.config import (
    CrawlSettings,
    StrategyConfig,
    crawl_settings_from_mapping,
    scrapy_settings,
    strategy_from_mapping,
)
from smartcrawl.crawl.content_lang import detect_language, page_language, visible_text
from smartcrawl.crawl.htmldoc import looks_binary, parse_html
from smartcrawl.crawl.links import extract_links
from smartcrawl.crawl.scope import Scope, UrlFilter, same_domain, site_domain
from smartcrawl.crawl.scoring import RuleScorer, UrlScorer
from smartcrawl.crawl.strategies import (
    BEST_COST,
    RANKING_LEVELS,
    LinkPriority,
    ParentPage,
    build_strategy,
    priority_of,
)
from smartcrawl.crawl.urlnorm import canonical_url, fingerprint

PAIR = ("eng", "mlt")


# -- URLs and scope -------------------------------------------------------------------------------
def test_canonical_url_and_fingerprint() -> None:
    assert canonical_url("HTTP://WWW.Alpha.TEST:80/a/?b=2&a=1#frag") == "http://www.alpha.test/a/?a=1&b=2"
    assert canonical_url("http://a.test/p?sid=7&x=1") == "http://a.test/p?x=1"
    assert canonical_url("http://a.test/p;jsessionid=ABC?PHPSESSID=1") == "http://a.test/p"
    assert fingerprint("http://a.test/s?sid=1") == fingerprint("http://a.test/s?sid=2")
    assert fingerprint("http://a.test/x") != fingerprint("http://a.test/y")
    with pytest.raises(ValueError):
        canonical_url("http://a.test:99999/")


@pytest.mark.parametrize(("url", "reason"), [
    ("http://www.alpha.test/en/news/1", None),
    ("https://www.alpha.test/", None),
    ("http://[::1", "bad_url"),
    ("http://exa mple.com/", "bad_url"),
    ("http://www.alpha.test:99999/", "bad_url"),
    ("http://", "bad_url"),
    ("ftp://www.alpha.test/f", "not_http"),
    ("http://a.test/trap/a/a/a/", "repeated_segments"),
    ("http://a.test/trap/a/a/", None),
    ("http://a.test/" + "x/" * 7, "too_many_segments"),
    ("http://a.test/report.PDF", "binary_extension"),
    ("http://a.test/" + "y" * 3000, "url_too_long"),
])
def test_url_filter(url: str, reason: str | None) -> None:
    assert UrlFilter(max_url_length=2048, max_path_segments=6).reject_reason(url) == reason


def test_scope_modes_and_sites() -> None:
    assert site_domain("www.alpha.test") == "alpha.test"  # unknown suffix: last two labels
    assert site_domain("news.bbc.co.uk") == "bbc.co.uk"
    assert site_domain("127.0.0.1") == "127.0.0.1"
    seeds = ["http://www.alpha.test/"]
    domain, host, anything = Scope(seeds, "domain"), Scope(seeds, "host"), Scope(seeds, "any")
    assert domain.allows("http://mt.alpha.test/x") and not domain.allows("http://www.google.com/")
    assert host.allows("http://www.alpha.test/x") and not host.allows("http://mt.alpha.test/x")
    assert anything.allows("http://www.google.com/")
    assert domain.site_of("http://mt.alpha.test/x") == "alpha.test"
    assert host.site_of("http://mt.alpha.test/x") == "mt.alpha.test"
    assert same_domain("http://www.alpha.test/a", "http://mt.alpha.test/b")
    assert not same_domain("http://www.alpha.test/a", "http://www.beta.test/b")
    with pytest.raises(ValueError):
        Scope(["not a url"], "domain")


# -- content language, HTML, links ------------------------------------------------------------------
def test_detect_language_pair_and_others() -> None:
    assert detect_language(text_of(ENG, 1)).lang == "eng"
    mt = detect_language(text_of(MLT, 1))
    assert mt.lang == "mlt" and mt.reliable and mt.cld2_code == "mt"
    assert detect_language(FRA).lang == "fra"
    assert detect_language("").lang == "und"
    assert detect_language("\x00\x01\ud800 " + text_of(ENG, 2)).lang == "eng"  # bytes CLD2 refuses are cleaned


def test_visible_text_skips_scripts_and_page_language() -> None:
    html = f"<html><head><title>T</title><style>p {{}}</style></head><body><p>{text_of(MLT, 3)}</p>" \
           "<script>var english = 'the the the the';</script><!-- a comment --></body></html>"
    text = visible_text(parse_html(html))
    assert "english" not in text and "comment" not in text and text.startswith("T ")
    assert page_language(html).lang == "mlt"
    assert parse_html("") is None and visible_text(None) == ""


def test_looks_binary() -> None:
    assert looks_binary(bytes(range(256)) * 8)
    assert not looks_binary(b"<html><body>text \x00 with one stray NUL byte in a long enough page</body></html>")
    assert not looks_binary(b"")


def test_extract_links() -> None:
    html = """<html><head><base href="http://www.alpha.test/sub/">
      <link rel="Alternate" hreflang="mt" href="/mt/page"><link rel="stylesheet" href="/style.css"></head>
      <body><a href="page#frag">a</a><a href="page">dup</a><area href="http://other.test/x">
      <a href="javascript:void(0)">js</a><a href="mailto:a@b.test">m</a><a href="#top">t</a>
      <a href="http://[::1">bad</a><a href=" /trimmed ">t</a><img src="/img.png"></body></html>"""
    links = extract_links(parse_html(html), "http://www.alpha.test/start")
    assert links.urls == ["http://www.alpha.test/mt/page", "http://www.alpha.test/sub/page", "http://other.test/x",
                          "http://www.alpha.test/trimmed"]
    assert links.skipped == {"not_web": 2, "fragment": 1, "bad_url": 1}
    assert extract_links(None, "http://a.test/").urls == []


# -- scorer and strategies --------------------------------------------------------------------------
def test_rule_scorer() -> None:
    scorer = RuleScorer(PAIR)
    assert isinstance(scorer, UrlScorer)
    probs = scorer.lang_probs(["http://a.test/mt/x", "http://a.test/en/x", "http://a.test/x", "http://a.test/fr/x"],
                              "mlt")
    assert probs.tolist() == [1.0, 0.01, 0.5, 0.01]
    par = scorer.parallel_probs([("http://a.test/en/x", "http://a.test/mt/x"), ("http://a.test/mt/x", "http://a.test/en/x"),
                                 ("http://a.test/en/x", "http://a.test/mt/y"), ("http://a.test/x", "http://a.test/x")])
    assert par.tolist() == [1.0, 1.0, 0.01, 0.01]
    assert RuleScorer(PAIR, unknown_prob=0.3).lang_probs(["http://a.test/x"], "eng").tolist() == [0.3]
    with pytest.raises(ValueError):
        RuleScorer(["eng", "eng"])


class FixedScorer:
    """A scorer with fixed answers (a stand-in for a trained model with known outputs)."""

    def __init__(self, lang: list[float], par: list[float]) -> None:
        self.lang, self.par = lang, par

    def lang_probs(self, urls: list[str], lang: str) -> np.ndarray:
        return np.array(self.lang[: len(urls)])

    def parallel_probs(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        return np.array(self.par[: len(pairs)])


def _prios(result: list[LinkPriority | None]) -> list[int | None]:
    return [None if p is None else p.priority for p in result]


def test_bfs_and_cld2_strategies() -> None:
    links = ["http://a.test/1", "http://a.test/2"]
    eng, fra = ParentPage("http://a.test/", "eng"), ParentPage("http://a.test/fr", "fra")
    bfs = build_strategy(StrategyConfig(name="bfs"), PAIR)
    assert _prios(bfs.outlink_priorities(fra, links)) == [-1, -1] and bfs.seed_priority() == -1
    cld2 = build_strategy(StrategyConfig(name="cld2"), PAIR)
    assert _prios(cld2.outlink_priorities(eng, links)) == [-1, -1]
    assert _prios(cld2.outlink_priorities(fra, links)) == [-2, -2]
    drop = build_strategy(StrategyConfig(name="cld2", outside_pair="drop"), PAIR)
    assert _prios(drop.outlink_priorities(fra, links)) == [None, None]
    seed_fra = ParentPage("http://a.test/", "fra", is_seed=True)
    assert _prios(drop.outlink_priorities(seed_fra, links)) == [-2, -2]  # seed pages keep their outlinks, last
    unreliable = ParentPage("http://a.test/", "eng", reliable=False)
    strict = build_strategy(StrategyConfig(name="cld2", reliable_only=True), PAIR)
    assert _prios(strict.outlink_priorities(unreliable, links)) == [-2, -2]


def test_smart_strategy_levels() -> None:
    page = ParentPage("http://www.a.test/en/x", "eng")
    links = ["http://www.a.test/mt/x", "http://mt.a.test/y", "http://www.a.test/z", "http://other.test/q"]
    scorer = FixedScorer([1.0, 0.5, 0.1], [1.0, 0.98, 0.2])
    ranking = build_strategy(StrategyConfig(name="smart", mode="ranking"), PAIR, scorer)
    out = ranking.outlink_priorities(page, links)
    # scores 1.0, 0.49, 0.02 -> costs 1, 52, 99; the other domain: best cost (exploration)
    assert _prios(out) == [-1, -52, -99, -BEST_COST]
    assert out[0] is not None and out[0].score == pytest.approx(1.0) and out[3] is not None and out[3].score is None
    threshold = build_strategy(StrategyConfig(name="smart", mode="threshold", threshold=0.4), PAIR, scorer)
    assert _prios(threshold.outlink_priorities(page, links)) == [-1, -1, -2, -1]
    exploit = build_strategy(StrategyConfig(name="smart", prioritize_same_domain=True), PAIR, scorer)
    assert _prios(exploit.outlink_priorities(page, links))[3] == priority_of(RANKING_LEVELS + 1)
    outside = ParentPage("http://www.a.test/fr/x", "fra")
    assert _prios(ranking.outlink_priorities(outside, links)) == [-(RANKING_LEVELS + 1)] * 4
    assert _prios(threshold.outlink_priorities(outside, links)) == [-2] * 4
    assert ranking.outlink_priorities(page, []) == []
    short = build_strategy(StrategyConfig(name="smart"), PAIR, FixedScorer([1.0], [1.0]))
    with pytest.raises(ValueError, match="returned 1 values for 2"):
        short.outlink_priorities(page, links[:2])
    with pytest.raises(ValueError):
        build_strategy(StrategyConfig(name="smart"), PAIR, None)


def test_smart_skips_pairs_whose_language_probability_fixes_the_cost() -> None:
    class Counting:
        def __init__(self) -> None:
            self.pairs: list[tuple[str, str]] = []

        def lang_probs(self, urls: list[str], lang: str) -> np.ndarray:
            return np.array([0.9, 0.004, 0.0, 0.3][: len(urls)])

        def parallel_probs(self, pairs: list[tuple[str, str]]) -> np.ndarray:
            self.pairs.extend(pairs)
            return np.full(len(pairs), 0.5)

    page = ParentPage("http://a.test/en/x", "eng")
    links = ["http://a.test/1", "http://a.test/2", "http://a.test/3", "http://a.test/4"]
    scorer = Counting()
    strategy = build_strategy(StrategyConfig(name="smart", mode="ranking"), PAIR, scorer)
    out = strategy.outlink_priorities(page, links)
    assert [v for _, v in scorer.pairs] == [links[0], links[3]]
    # the skipped links get the cost of score 0, as the full product would have given them
    assert _prios(out) == [-56, -101, -101, -86]  # costs 101 - round(100 x score)
    assert strategy.pairs_scored == 2 and strategy.pairs_skipped == 2


def test_smart_uses_the_other_language() -> None:
    class Recorder(FixedScorer):
        def lang_probs(self, urls: list[str], lang: str) -> np.ndarray:
            self.asked = lang
            return super().lang_probs(urls, lang)

    scorer = Recorder([1.0], [1.0])
    build_strategy(StrategyConfig(name="smart"), PAIR, scorer).outlink_priorities(
        ParentPage("http://a.test/mt/", "mlt"), ["http://a.test/en/"])
    assert scorer.asked == "eng"


# -- configuration ----------------------------------------------------------------------------------
def test_settings_and_scrapy_translation() -> None:
    loopback, web = CrawlSettings(), CrawlSettings(delay_s=None)
    assert loopback.resolved_delay("http://127.0.0.1:1") == 0.0 and web.resolved_delay(None) == 1.0
    assert not loopback.resolved_autothrottle("http://127.0.0.1:1") and web.resolved_autothrottle(None)
    s = scrapy_settings(CrawlSettings(max_bytes=1000, concurrent_per_host=3), "http://127.0.0.1:9")
    assert s["DOWNLOAD_MAXSIZE"] == 1000 and s["CONCURRENT_REQUESTS_PER_DOMAIN"] == 3
    assert s["SCHEDULER"].endswith("FrontierScheduler") and s["SMARTCRAWL_PROXY"] == "http://127.0.0.1:9"
    assert not s["REDIRECT_ENABLED"] and s["ROBOTSTXT_OBEY"] and s["HTTPERROR_ALLOW_ALL"]
    assert crawl_settings_from_mapping({"max_hops": 3}).max_hops == 3
    with pytest.raises(ValueError):
        crawl_settings_from_mapping({"max_hopz": 3})
    with pytest.raises(ValueError):
        strategy_from_mapping({"name": "dfs"})
    with pytest.raises(ValueError):
        StrategyConfig(name="smart", mode="fuzzy")  # type: ignore[arg-type]


@pytest.mark.parametrize("strategy", ["bfs", "cld2", "smart"])
@pytest.mark.parametrize("pair", ["eng-isl", "eng-mlt", "eng-fin", "spa-eus"])
def test_hydra_configs_compose(repo_root: Path, strategy: str, pair: str, tmp_path: Path) -> None:
    from smartcrawl.crawl.cli import spec_from_config

    with initialize_config_dir(config_dir=str(repo_root / "conf"), version_base="1.3"):
        cfg = compose(config_name="crawl", overrides=[f"pair={pair}", f"strategy={strategy}",
                                                      f"job_dir={tmp_path}", "seeds=[http://www.alpha.test/]",
                                                      "crawl.max_pages_per_site=5"])
    spec = spec_from_config(cfg)
    assert spec.pair == tuple(pair.split("-")) and spec.strategy.name == strategy
    assert spec.settings.max_pages_per_site == 5 and spec.seeds == ["http://www.alpha.test/"]
    assert (spec.scorer is not None) == (strategy == "smart")
    if strategy == "smart":
        assert isinstance(spec.scorer, RuleScorer) and spec.scorer.langs == spec.pair


def test_neural_scorer_config(repo_root: Path) -> None:
    with initialize_config_dir(config_dir=str(repo_root / "conf"), version_base="1.3"):
        cfg = compose(config_name="crawl", overrides=["scorer=neural", "scorer.langid_dir=m/langid",
                                                      "scorer.parallel_dir=m/parallel"])
    assert cfg.scorer._target_ == "smartcrawl.models.scorer.NeuralScorer"
    assert cfg.scorer.langid_dir == "m/langid" and "langs" not in cfg.scorer


def test_failure_reasons() -> None:
    from scrapy import Request
    from scrapy.exceptions import DownloadCancelledError, DownloadTimeoutError, IgnoreRequest
    from twisted.python.failure import Failure

    from smartcrawl.crawl.spider import failure_reason

    request = Request("http://a.test/")
    cases = [
        (IgnoreRequest("Forbidden by robots.txt"), ("robots", False)),
        (IgnoreRequest("Ignored response because its body exceeded DOWNLOAD_MAXSIZE (10 B)"), ("size_cap", True)),
        (DownloadCancelledError(f"Expected to receive 9 bytes which is larger than download max size (1) in {request}"),
         ("size_cap", True)),
        (DownloadTimeoutError("took longer than 1 seconds"), ("timeout", True)),
        (ValueError("odd"), ("error:ValueError", True)),
    ]
    for exc, expected in cases:
        assert failure_reason(Failure(exc)) == expected
