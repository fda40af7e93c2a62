"""Priorities of outlinks: bfs, cld2 and smart (the paper), computed outside the queue.

Priorities follow the authors' Heritrix cost policies, written as costs (lower = fetched sooner)
and handed to Scrapy as ``priority = -cost`` (higher = sooner); the frontier breaks ties
first-in-first-out, so equal costs crawl breadth-first. Costs:

============================================  ==================  =================
link                                          threshold mode      ranking mode
============================================  ==================  =================
seed                                          1                   1
to another registered domain (exploration)    1 (2/102 with ``prioritize_same_domain``)
from a page outside the pair (or unknown)     2 (or dropped)      102 (or dropped)
same domain, scored s = P(L'') x P(parallel)  1 if s >= t else 2  101 - round(100 s)
============================================  ==================  =================

With ``link_hints`` (ours), a same-domain link that the page labels as being in L'' (an
``hreflang`` or a language-switcher anchor, :func:`smartcrawl.crawl.links.language_hint`) is taken
for the translation of the page: s = 1, without asking the models. The paper's URL-only score
cannot see that a link like ``index.php?id=8737`` is the switcher's; the page says so.

With ``counterparts`` (ours), the strategy remembers the pages downloaded in each language and the
links offered so far (:class:`~smartcrawl.crawl.counterparts.CounterpartIndex`): a same-domain link
whose URL matches a downloaded page of the other language once language tokens are removed
completes a pair, s = 1; and when a page is downloaded, the waiting links that match it are offered
again with s = 1 (:meth:`Strategy.rank`), which re-queues them at that priority.

With ``language_marks`` (ours, ranking mode), a same-domain link's language mark (its URL's code or
the page's label for it, :mod:`smartcrawl.crawl.url_marks`) moves it between costs 101 and 102. A
link not taken for a translation and marked as a language outside the pair gets 102, with the
outlinks of pages outside the pair: the models give such links small scores, but not always
smaller than those of same-language navigation (101), which leads to more pages of the pair,
whereas other languages' sections rarely do. On a page outside the pair (a multilingual "choose
your language" page, whose CLD2 language is unknown), a link marked as a language of the pair gets
101 instead of 102: it is the way into that language's section.

With ``min_score`` (ours, ranking mode), a score below it counts as 0. Small scores mostly rank a
site's sections against each other: the model gives an unmarked URL a higher chance of being in
L'' than a marked URL of L', so on a site where one language's URLs carry no mark, the paper's
ranking crawls that whole section before the other one, and its pairs wait for their second half.
Below ``min_score`` the links are crawled breadth-first, which interleaves the sections.

With ``balance_languages`` (ours), the links at the worst score cost (101 in ranking mode, 2 in
threshold mode: mostly navigation within the page's language) are numbered in *lanes*, one per site
and language of the page that found them: the k-th new link of the Finnish lane and the k-th of the
English lane get the same number, ``LinkPriority.seq``, and the frontier orders a priority level by
that number before first-in-first-out. The two languages' sections are then crawled in step, as two
queues popped in turn, rather than breadth-first over the whole site, where the section entered
first (the home page's language, one click nearer) is exhausted before the other. On a site whose
pages do not link to their translations and whose URLs do not reveal them (``index.php?id=7150``
and ``?id=3833``), translated sections that mirror each other's structure (the same menus, the same
listing order) are then downloaded at the same pace, and a page's translation tends to come soon
after it.

robots.txt is fetched by Scrapy before any page of its host, outside the frontier (the best cost
in Heritrix too). ``bfs`` gives every link cost 1; ``cld2`` gives cost 1 to links from pages in the
pair and 2 to the others. With ``outside_pair="drop"`` the outlinks of pages outside the pair are
not followed at all, except those of seed pages, which get the lowest cost.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter, OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from smartcrawl.crawl.config import StrategyConfig
from smartcrawl.crawl.counterparts import CounterpartIndex
from smartcrawl.crawl.frontier import url_hostname
from smartcrawl.crawl.scope import same_domain, site_domain
from smartcrawl.crawl.scoring import UrlScorer
from smartcrawl.crawl.url_marks import LanguageMarks

BEST_COST = 1
RANKING_LEVELS = 101


def priority_of(cost: int) -> int:
    """Scrapy priority (higher first) of a Heritrix-style cost (lower first)."""
    return -int(cost)


@dataclass(frozen=True)
class ParentPage:
    """The downloaded page whose outlinks are being ranked."""

    url: str
    lang: str
    reliable: bool = True
    is_seed: bool = False


@dataclass(frozen=True)
class LinkPriority:
    """Priority of one outlink (Scrapy convention) and its smart score, when it was scored."""

    priority: int
    score: float | None = None
    seq: int = 0  # order within the priority level before first-in-first-out (lanes; 0 = none)


@dataclass
class Ranking:
    """What a strategy makes of a downloaded page: its outlinks' priorities and links to offer again.

    ``priorities`` has one entry per outlink (``None`` = drop); ``again`` holds links found earlier
    that now deserve a better priority (the frontier re-queues those still waiting).
    """

    priorities: list[LinkPriority | None]
    again: list[tuple[str, LinkPriority]]


class Strategy(ABC):
    """Priorities of seeds and outlinks; ``None`` for an outlink means "do not follow"."""

    name: str = "base"

    def __init__(self, config: StrategyConfig, pair: Sequence[str]) -> None:
        self.config = config
        self.pair: tuple[str, str] = (str(pair[0]), str(pair[1]))

    def seed_priority(self) -> int:
        """Priority of a seed URL."""
        return priority_of(BEST_COST)

    def in_pair(self, page: ParentPage) -> bool:
        """Whether the page's CLD2 language is one of the pair (and reliable, if so configured)."""
        if self.config.reliable_only and not page.reliable:
            return False
        return page.lang in self.pair

    @abstractmethod
    def outlink_priorities(self, parent: ParentPage, links: Sequence[str],
                           hints: Mapping[str, str] | None = None) -> list[LinkPriority | None]:
        """One :class:`LinkPriority` (or ``None`` = drop) per link, in order.

        ``hints`` maps some links to the ISO 639-3 language the page declares for them; only the
        smart strategy with ``link_hints`` uses it.
        """

    @property
    def sees_every_page(self) -> bool:
        """Whether :meth:`rank` must see every stored page, even one without new outlinks."""
        return False

    def rank(self, parent: ParentPage, links: Sequence[str],
             hints: Mapping[str, str] | None = None) -> Ranking:
        """The outlinks' priorities, plus links to offer again (none, except with ``counterparts``)."""
        return Ranking(self.outlink_priorities(parent, links, hints), [])

    def _outside_pair(self, parent: ParentPage, n: int, lowest_cost: int) -> list[LinkPriority | None]:
        if self.config.outside_pair == "drop" and not parent.is_seed:
            return [None] * n
        return [LinkPriority(priority_of(lowest_cost))] * n


class BfsStrategy(Strategy):
    """Every link has the same priority: first in, first out (default Heritrix)."""

    name = "bfs"

    def outlink_priorities(self, parent: ParentPage, links: Sequence[str],
                           hints: Mapping[str, str] | None = None) -> list[LinkPriority | None]:
        """Cost 1 for every link."""
        return [LinkPriority(priority_of(BEST_COST))] * len(links)


class Cld2Strategy(Strategy):
    """Links from pages in the pair first, the rest after (the paper's Heritrix+CLD2)."""

    name = "cld2"

    def outlink_priorities(self, parent: ParentPage, links: Sequence[str],
                           hints: Mapping[str, str] | None = None) -> list[LinkPriority | None]:
        """Cost 1 from pages in the pair; cost 2 (or dropped) from the others."""
        if not self.in_pair(parent):
            return self._outside_pair(parent, len(links), BEST_COST + 1)
        return [LinkPriority(priority_of(BEST_COST))] * len(links)


class SmartStrategy(Strategy):
    """The paper's Heritrix+CLD2+smart: same-domain links scored by P(lang(v) = L'') x P(parallel(u, v))."""

    name = "smart"

    def __init__(self, config: StrategyConfig, pair: Sequence[str], scorer: UrlScorer) -> None:
        super().__init__(config, pair)
        self.scorer = scorer
        self.lowest_cost = BEST_COST + 1 if config.mode == "threshold" else RANKING_LEVELS + 1
        # A link waiting in the frontier is offered again by every page that links to it; its
        # language probability does not depend on the page, so it is computed once.
        self._lang_cache: OrderedDict[tuple[str, str], float] = OrderedDict()
        self.lang_cache_size = 200_000
        self.pairs_scored = 0   # outlinks sent to the pair model
        self.pairs_skipped = 0  # outlinks whose language probability alone fixed the worst cost
        self.counterparts = CounterpartIndex(self.pair) if config.counterparts else None
        self.counterparts_found = 0  # outlinks that complete a pair with a downloaded page
        self.counterparts_again = 0  # waiting links offered again when their counterpart was downloaded
        self.marks = LanguageMarks() if config.language_marks and config.mode == "ranking" else None
        self.marked_elsewhere = 0  # links marked as a language outside the pair: sent last
        self.marked_entries = 0  # links marked as a pair language on pages outside the pair: explored
        # with balance_languages: per (site, language) lane, the score-0 links numbered so far; url -> seq
        self._lanes: Counter[tuple[str, str]] = Counter()
        self._lane_of: OrderedDict[str, int] = OrderedDict()

    @property
    def sees_every_page(self) -> bool:
        """With ``counterparts``, every download counts, even of a page without new outlinks."""
        return self.counterparts is not None

    def rank(self, parent: ParentPage, links: Sequence[str],
             hints: Mapping[str, str] | None = None) -> Ranking:
        """Outlink priorities; with ``counterparts``, also the waiting links this download completes."""
        priorities, elsewhere = self._priorities(parent, links, hints)
        index = self.counterparts
        if index is None or not self.in_pair(parent):
            return Ranking(priorities, [])
        best = self._best()
        waiting = [v for i, (v, p) in enumerate(zip(links, priorities))
                   if p is not None and p.score is not None and p.score < 1.0 and i not in elsewhere]
        again = [v for v in index.download(parent.url, parent.lang) if same_domain(parent.url, v)]
        index.offer(waiting)
        self.counterparts_again += len(again)
        return Ranking(priorities, [(v, best) for v in again])

    def _best(self) -> LinkPriority:
        """The priority of a link our signals take for a translation: score 1."""
        return LinkPriority(priority_of(self.cost_of_score(1.0)), 1.0)

    def cost_of_score(self, score: float) -> int:
        """Cost of a scored link: 2 levels (threshold mode) or 101 levels (ranking mode)."""
        if self.config.mode == "threshold":
            return BEST_COST if score >= self.config.threshold else BEST_COST + 1
        return RANKING_LEVELS - int(score * 100.0 + 0.5) + BEST_COST - 1

    def outlink_priorities(self, parent: ParentPage, links: Sequence[str],
                           hints: Mapping[str, str] | None = None) -> list[LinkPriority | None]:
        """Score the same-domain links in one batch; fixed costs for the others (module table)."""
        return self._priorities(parent, links, hints)[0]

    def _priorities(self, parent: ParentPage, links: Sequence[str],
                    hints: Mapping[str, str] | None) -> tuple[list[LinkPriority | None], set[int]]:
        """:meth:`outlink_priorities`, and the indices of the links marked as a language outside the pair."""
        if not links:
            return [], set()
        if not self.in_pair(parent):
            outside = self._outside_pair(parent, len(links), self.lowest_cost)
            return self._entries(parent, links, hints, outside), set()
        other = self.pair[1] if parent.lang == self.pair[0] else self.pair[0]
        cross_cost = self.lowest_cost if self.config.prioritize_same_domain else BEST_COST
        out: list[LinkPriority | None] = [LinkPriority(priority_of(cross_cost))] * len(links)
        scored = [i for i, v in enumerate(links) if same_domain(parent.url, v)]
        elsewhere = {i for i in scored if self._elsewhere(links[i], hints)}
        # links our signals take for translations get score 1 without asking the models
        translations = {i for i in scored if self.config.link_hints and hints and hints.get(links[i]) == other}
        if self.counterparts is not None:
            # a link marked as another language (``?language=ger``) matches its page once the
            # language tokens are gone, but it is not the translation the pair needs
            completing = {i for i in scored if i not in translations and i not in elsewhere
                          and self.counterparts.completes(links[i])}
            self.counterparts_found += len(completing)
            translations |= completing
        for i in translations:
            out[i] = self._best()
        scored = [i for i in scored if i not in translations]
        if not scored:
            return out, elsewhere
        targets = [links[i] for i in scored]
        p_lang = self._lang_probs(targets, other)
        # score = p_lang x p_par <= p_lang: where p_lang alone already gives the worst cost (or falls
        # under min_score), or a language mark sends the link last, the pair model cannot change the
        # link's priority, so it is not asked (the same ranking, less compute; the score logged is 0).
        worst = self.cost_of_score(0.0)
        ask = [j for j, p in enumerate(p_lang.tolist())
               if p >= self.config.min_score and self.cost_of_score(p) != worst and scored[j] not in elsewhere]
        p_par = np.zeros(len(targets))
        if ask:
            asked = self.scorer.parallel_probs([(parent.url, targets[j]) for j in ask])
            p_par[ask] = _probabilities(asked, len(ask), "parallel_probs")
        self.pairs_scored += len(ask)
        self.pairs_skipped += len(targets) - len(ask)
        for i, score in zip(scored, (p_lang * p_par).tolist()):
            cost = self.cost_of_score(score if score >= self.config.min_score else 0.0)
            seq = 0
            if i in elsewhere:
                cost = self.lowest_cost
                self.marked_elsewhere += 1
            elif cost == worst and self.config.balance_languages:
                seq = self._lane_seq(parent, links[i])
            out[i] = LinkPriority(priority_of(cost), float(score), seq)
        return out, elsewhere

    def _lane_seq(self, parent: ParentPage, url: str) -> int:
        """With ``balance_languages``: the link's number in the lane of its site and its page's language."""
        seq = self._lane_of.get(url)
        if seq is None:
            lane = (site_domain(url_hostname(parent.url)), parent.lang)
            self._lanes[lane] += 1
            seq = self._lane_of[url] = self._lanes[lane]
            while len(self._lane_of) > self.lang_cache_size:
                self._lane_of.popitem(last=False)
        return seq

    def _mark(self, url: str, hints: Mapping[str, str] | None) -> str | None:
        """With ``language_marks``: the language the page's label or the URL's code names, if any."""
        if self.marks is None:
            return None
        return (hints or {}).get(url) or self.marks.language_of(url)

    def _elsewhere(self, url: str, hints: Mapping[str, str] | None) -> bool:
        """With ``language_marks``: whether the link is marked as a language outside the pair."""
        return self._mark(url, hints) not in (None, *self.pair)

    def _entries(self, parent: ParentPage, links: Sequence[str], hints: Mapping[str, str] | None,
                 out: list[LinkPriority | None]) -> list[LinkPriority | None]:
        """With ``language_marks``, on a page outside the pair: the site's links marked as a pair language get 101."""
        if self.marks is None:
            return out
        explore = LinkPriority(priority_of(self.cost_of_score(0.0)))
        for i, url in enumerate(links):
            if out[i] is not None and same_domain(parent.url, url) and self._mark(url, hints) in self.pair:
                out[i] = explore
                self.marked_entries += 1
        return out


    def _lang_probs(self, urls: list[str], lang: str) -> np.ndarray:
        """P(lang(url) == ``lang``) through a bounded cache (least recently used entries go first)."""
        cache = self._lang_cache
        missing = [u for u in dict.fromkeys(urls) if (u, lang) not in cache]
        if missing:
            values = _probabilities(self.scorer.lang_probs(missing, lang), len(missing), "lang_probs")
            for url, value in zip(missing, values.tolist()):
                cache[(url, lang)] = value
        out = np.empty(len(urls))
        for i, url in enumerate(urls):
            out[i] = cache[(url, lang)]
            cache.move_to_end((url, lang))
        while len(cache) > self.lang_cache_size:
            cache.popitem(last=False)
        return out


def _probabilities(values: np.ndarray, n: int, what: str) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64).reshape(-1)
    if arr.shape[0] != n:
        raise ValueError(f"scorer {what} returned {arr.shape[0]} values for {n} inputs")
    return np.clip(np.nan_to_num(arr, nan=0.0), 0.0, 1.0)


def build_strategy(config: StrategyConfig, pair: Sequence[str], scorer: UrlScorer | None = None) -> Strategy:
    """The strategy named by ``config.name``; ``smart`` needs a scorer."""
    if len(pair) != 2:
        raise ValueError(f"a language pair has two languages, got {list(pair)}")
    if config.name == "bfs":
        return BfsStrategy(config, pair)
    if config.name == "cld2":
        return Cld2Strategy(config, pair)
    if scorer is None:
        raise ValueError("the smart strategy needs a UrlScorer (e.g. smartcrawl.crawl.scoring.RuleScorer)")
    return SmartStrategy(config, pair, scorer)
