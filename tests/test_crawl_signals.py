"""The smart strategy's signals beyond the paper: links' language hints and counterparts of downloaded pages."""

from __future__ import annotations

import numpy as np
import pytest
from test_crawl_units import FixedScorer, _prios

from smartcrawl.crawl.config import StrategyConfig
from smartcrawl.crawl.counterparts import CounterpartIndex
from smartcrawl.crawl.htmldoc import parse_html
from smartcrawl.crawl.links import extract_links
from smartcrawl.crawl.strategies import ParentPage, build_strategy
from smartcrawl.crawl.url_marks import LanguageMarks

PAIR = ("eng", "fin")


def test_language_hints_of_links() -> None:
    html = """<html><head>
      <link rel="alternate" hreflang="fi-FI" href="/fi/x"><link rel="alternate" hreflang="x-default" href="/">
    </head><body>
      <a href="/home">Home</a> <a href="/en/">EN</a> <a href="/s"> Suomi </a> <a href="/new">new</a>
      <a href="/e">ENG</a> <a hreflang="en-GB" href="/g">Britain</a> <a lang="fi" href="/l">Finnish pages</a>
      <a href="/long">Suomi is the endonym of Finnish, and this anchor says far more than that</a>
      <a href="/i"><span>Íslenska</span></a> <a href="/x-default">x-default</a>
    </body></html>"""
    links = extract_links(parse_html(html), "http://a.test/p")
    assert links.hints == {
        "http://a.test/fi/x": "fin", "http://a.test/en/": "eng", "http://a.test/s": "fin", "http://a.test/e": "eng",
        "http://a.test/g": "eng", "http://a.test/l": "fin", "http://a.test/i": "isl",
    }
    assert "http://a.test/home" in links.urls and "http://a.test/new" in links.urls  # followed, no hint


def test_link_hints_give_the_best_score_to_labelled_translations() -> None:
    page = ParentPage("http://a.test/index.php?id=7", "eng")
    links = ["http://a.test/index.php?id=9", "http://a.test/index.php?id=8", "http://a.test/index.php?id=5"]
    hints = {links[0]: "fin", links[2]: "eng"}  # a hint of the page's own language is no translation
    scorer = FixedScorer([0.5, 0.5, 0.5], [0.1, 0.1, 0.1])
    paper = build_strategy(StrategyConfig(name="smart"), PAIR, scorer)
    assert _prios(paper.outlink_priorities(page, links, hints)) == [-96, -96, -96]  # hints ignored
    hinted = build_strategy(StrategyConfig(name="smart", link_hints=True), PAIR, scorer)
    out = hinted.outlink_priorities(page, links, hints)
    assert _prios(out) == [-1, -96, -96] and out[0] is not None and out[0].score == 1.0


def test_counterpart_index_matches_in_both_directions() -> None:
    index = CounterpartIndex(PAIR)
    index.offer(["http://a.test/fi/news/1", "http://a.test/fi/news/2", "http://a.test/about"])
    # a download finds the waiting links it completes, once
    assert index.download("http://a.test/en/news/1", "eng") == ["http://a.test/fi/news/1"]
    assert index.download("http://a.test/en/news/1", "eng") == []
    # a new link completes a pair with a downloaded page of the other language
    assert index.completes("http://a.test/news/1?lang=fi")
    assert not index.completes("http://a.test/fi/news/3")
    assert not index.completes("http://a.test/en/news/1")  # the page itself
    # the default-language page without a token is the counterpart of a marked one
    assert index.download("http://a.test/about?lang=fi", "fin") == ["http://a.test/about"]
    assert index.download("http://a.test/page", "deu") == []  # outside the pair: nothing recorded


def test_counterpart_index_skips_fallback_pages() -> None:
    index = CounterpartIndex(PAIR)
    index.offer(["http://a.test/en/news/1"])
    # /fi/news/1 served English text: the site's untranslated page, its URL twin is no translation
    assert index.download("http://a.test/fi/news/1", "eng") == []
    assert not index.completes("http://a.test/news/1")
    # the same URL with Finnish text is the counterpart
    assert index.download("http://a.test/fi/news/1", "fin") == ["http://a.test/en/news/1"]


def test_counterpart_index_is_bounded() -> None:
    index = CounterpartIndex(PAIR, max_entries=10)
    index.offer([f"http://a.test/fi/p{i}" for i in range(100)])
    assert index.download("http://a.test/en/p0", "eng") == []  # forgotten: the oldest keys went first
    assert index.download("http://a.test/en/p99", "eng") == ["http://a.test/fi/p99"]


def test_counterparts_strategy_offers_waiting_links_again() -> None:
    class Scorer:
        def lang_probs(self, urls: list[str], lang: str) -> np.ndarray:
            return np.full(len(urls), 0.5)

        def parallel_probs(self, pairs: list[tuple[str, str]]) -> np.ndarray:
            return np.full(len(pairs), 0.1)

    strategy = build_strategy(StrategyConfig(name="smart", counterparts=True), PAIR, Scorer())
    assert strategy.sees_every_page
    home_en = ParentPage("http://a.test/en/", "eng")
    first = strategy.rank(home_en, ["http://a.test/en/a", "http://a.test/en/b"])
    assert _prios(first.priorities) == [-96, -96] and first.again == []
    # the Finnish version of /en/a is downloaded: /en/a, still waiting, is offered again at the best priority
    again = strategy.rank(ParentPage("http://a.test/fi/a", "fin"), ["http://a.test/fi/c"])
    assert [(url, p.priority, p.score) for url, p in again.again] == [("http://a.test/en/a", -1, 1.0)]
    # a new link whose counterpart was downloaded goes first at once
    later = strategy.rank(ParentPage("http://a.test/en/x", "eng"), ["http://a.test/a?lang=en", "http://a.test/en/d"])
    assert _prios(later.priorities) == [-1, -96]
    assert strategy.counterparts_found == 1 and strategy.counterparts_again == 1
    # pages outside the pair neither teach nor get anything
    outside = strategy.rank(ParentPage("http://a.test/de/b", "deu"), ["http://a.test/de/x"])
    assert outside.again == []
    paper = build_strategy(StrategyConfig(name="smart"), PAIR, Scorer())
    assert not paper.sees_every_page and paper.rank(home_en, ["http://a.test/en/a"]).again == []


def test_figure_labels_name_our_signals() -> None:
    from smartcrawl.analysis.crawl_figure import label_of

    summary = {"strategies": {"smart": {"strategy": {"name": "smart", "link_hints": False}},
                              "smart_plus": {"strategy": {"name": "smart", "link_hints": True, "counterparts": True}},
                              "hints": {"strategy": {"name": "smart", "link_hints": True}}}}
    assert label_of("smart", summary) == "+CLD2+smart"
    assert label_of("smart_plus", summary) == "+CLD2+smart +link hints +counterparts (ours)"
    assert label_of("hints", summary) == "+CLD2+smart +link hints (ours)"


def test_language_marks_of_urls() -> None:
    marks = LanguageMarks()
    assert marks.language_of("http://a.test/sv/x") == "swe"
    assert marks.language_of("http://a.test/x?lang=pl") == "pol"
    assert marks.language_of("http://de.example.com/x") == "deu"
    assert marks.language_of("http://a.is/museo/late-garden-church.gl.htm") == "glg"  # not the .is suffix
    assert marks.language_of("http://a.test/page_fi.php") == "fin"
    assert marks.language_of("http://a.test/casa-de-campo.html") is None  # a word, not a code
    assert marks.language_of("http://a.is/safn/") is None


def test_links_marked_as_other_languages_go_last() -> None:
    page = ParentPage("http://a.test/en/news", "eng")
    links = ["http://a.test/en/sports", "http://a.test/sv/nyheter", "http://a.test/x", "http://a.test/fi/uutiset",
             "http://a.test/p.gl.htm"]
    hints = {"http://a.test/x": "deu"}
    scorer = FixedScorer([0.0, 0.1, 0.0, 0.9, 0.1], [0.5] * 5)
    paper = build_strategy(StrategyConfig(name="smart"), PAIR, scorer)
    assert _prios(paper.outlink_priorities(page, links, hints)) == [-101, -96, -101, -56, -96]
    ours = build_strategy(StrategyConfig(name="smart", language_marks=True), PAIR, scorer)
    # same-language navigation stays at 101; Swedish, the German-labelled link and Galician go with
    # the outside-pair links (102) even where the models gave them a small score; Finnish keeps its score
    assert _prios(ours.outlink_priorities(page, links, hints)) == [-101, -102, -102, -56, -102]
    assert ours.marked_elsewhere == 3


def test_language_chooser_links_to_the_pair_are_explored() -> None:
    chooser = ParentPage("http://a.test/", "und")  # a multilingual page: outside the pair
    links = ["http://a.test/fi/index.html", "http://a.test/sv/index.html", "http://a.test/about", "http://b.test/fi/"]
    scorer = FixedScorer([0.0] * 4, [0.0] * 4)
    paper = build_strategy(StrategyConfig(name="smart"), PAIR, scorer)
    assert _prios(paper.outlink_priorities(chooser, links)) == [-102, -102, -102, -102]
    ours = build_strategy(StrategyConfig(name="smart", language_marks=True), PAIR, scorer)
    assert _prios(ours.outlink_priorities(chooser, links)) == [-101, -102, -102, -102]
    assert _prios(ours.outlink_priorities(chooser, ["http://a.test/x"], {"http://a.test/x": "eng"})) == [-101]
    assert ours.marked_entries == 2


def test_scores_below_min_score_count_as_zero() -> None:
    page = ParentPage("http://a.test/fi/uutiset", "fin")
    links = ["http://a.test/a", "http://a.test/b", "http://a.test/c"]
    scorer = FixedScorer([0.2, 0.1, 0.6], [0.5, 0.5, 0.5])
    paper = build_strategy(StrategyConfig(name="smart"), PAIR, scorer)
    assert _prios(paper.outlink_priorities(page, links)) == [-91, -96, -71]
    ours = build_strategy(StrategyConfig(name="smart", min_score=0.25), PAIR, scorer)
    out = ours.outlink_priorities(page, links)
    assert _prios(out) == [-101, -101, -71]  # breadth-first among the first two
    # their language probabilities alone put them under the floor: the pair model is not asked
    assert ours.pairs_scored == 1 and ours.pairs_skipped == 2
    assert out[2] is not None and out[2].score == pytest.approx(0.3)
    with pytest.raises(ValueError, match="min_score must lie in"):
        StrategyConfig(name="smart", min_score=1.5)


def test_counterparts_in_another_language_are_not_translations() -> None:
    # bepum.fi-like site: /peli/ in Finnish, its versions at ?language=eng and ?language=ger
    scorer = FixedScorer([0.0, 0.0], [0.0, 0.0])
    config = StrategyConfig(name="smart", counterparts=True, language_marks=True)
    strategy = build_strategy(config, PAIR, scorer)
    strategy.rank(ParentPage("http://a.test/peli/", "fin"), [])
    page = ParentPage("http://a.test/raha/", "fin")
    links = ["http://a.test/peli/?language=eng", "http://a.test/peli/?language=ger"]
    # both links match /peli/ once the language tokens are gone; only the English one is its translation
    assert _prios(strategy.rank(page, links).priorities) == [-1, -102]
    assert strategy.counterparts_found == 1
    # a waiting German link is not offered again when a page of the pair matching it is downloaded
    strategy.rank(ParentPage("http://a.test/en/", "eng"), ["http://a.test/kauppa/?language=ger"])
    assert strategy.rank(ParentPage("http://a.test/kauppa/", "fin"), []).again == []
    without_marks = build_strategy(StrategyConfig(name="smart", counterparts=True), PAIR, scorer)
    without_marks.rank(ParentPage("http://a.test/peli/", "fin"), [])
    assert _prios(without_marks.rank(page, links).priorities) == [-1, -1]


def test_balance_languages_numbers_navigation_in_lanes() -> None:
    scorer = FixedScorer([0.0] * 8, [0.0] * 8)
    config = StrategyConfig(name="smart", min_score=0.25, balance_languages=True)
    strategy = build_strategy(config, PAIR, scorer)
    en = strategy.outlink_priorities(ParentPage("http://a.test/", "eng"), ["http://a.test/a", "http://a.test/b"])
    fi = strategy.outlink_priorities(ParentPage("http://a.test/etusivu", "fin"),
                                     ["http://a.test/c", "http://a.test/a", "http://www.a.test/d", "http://b.test/"])
    assert [(p.priority, p.seq) for p in en if p] == [(-101, 1), (-101, 2)]
    # a link keeps its number when found again; another host of the site shares the lane; other sites: no lane
    assert [(p.priority, p.seq) for p in fi if p] == [(-101, 1), (-101, 1), (-101, 2), (-1, 0)]
    other = strategy.outlink_priorities(ParentPage("http://c.test/", "eng"), ["http://c.test/x"])
    assert other[0] is not None and other[0].seq == 1  # its own site's lane
    scored = build_strategy(config, PAIR, FixedScorer([0.9], [0.9])).outlink_priorities(
        ParentPage("http://a.test/", "eng"), ["http://a.test/fi"])
    assert scored[0] is not None and scored[0].seq == 0  # links with a score keep first-in-first-out
    paper = build_strategy(StrategyConfig(name="smart", min_score=0.25), PAIR, scorer)
    assert all(p is not None and p.seq == 0 for p in paper.outlink_priorities(ParentPage("http://a.test/", "eng"),
                                                                               ["http://a.test/a"]))
