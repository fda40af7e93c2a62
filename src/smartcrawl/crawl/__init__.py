"""The focused crawler: Scrapy plus a persistent SQLite frontier, for one language pair and a list of sites.

Modules, one job each (Scrapy's own split: priority computed outside the queue, de-duplication and
politeness kept apart):

- :mod:`~smartcrawl.crawl.config`: the typed settings (:class:`CrawlSettings`, :class:`StrategyConfig`)
  and their translation to Scrapy settings;
- :mod:`~smartcrawl.crawl.scoring`: the :class:`UrlScorer` protocol and the model-free :class:`RuleScorer`;
- :mod:`~smartcrawl.crawl.strategies`: bfs / cld2 / smart priorities of outlinks;
- :mod:`~smartcrawl.crawl.content_lang`: CLD2 on the visible text of a page;
- :mod:`~smartcrawl.crawl.links`, :mod:`~smartcrawl.crawl.urlnorm`, :mod:`~smartcrawl.crawl.scope`:
  outlinks, canonical URLs and fingerprints, which URLs may be followed;
- :mod:`~smartcrawl.crawl.statedb`, :mod:`~smartcrawl.crawl.frontier`, :mod:`~smartcrawl.crawl.budgets`:
  the job's SQLite state (frontier, seen-set, per-site budgets) that survives ``kill -9``;
- :mod:`~smartcrawl.crawl.records`, :mod:`~smartcrawl.crawl.warcstore`, :mod:`~smartcrawl.crawl.crawllog`,
  :mod:`~smartcrawl.crawl.job`: what one download leaves behind (download log, WARC, JSONL crawl log)
  and the recovery on resume;
- :mod:`~smartcrawl.crawl.scheduler`, :mod:`~smartcrawl.crawl.spider`, :mod:`~smartcrawl.crawl.pipelines`,
  :mod:`~smartcrawl.crawl.middlewares`, :mod:`~smartcrawl.crawl.progress`: the Scrapy components;
- :mod:`~smartcrawl.crawl.runner` (:func:`run_crawl`, :func:`run_crawls`) and :mod:`~smartcrawl.crawl.cli`
  (``python -m smartcrawl.crawl.cli pair=eng-mlt strategy=smart job_dir=... seeds=[...]``).

Import the heavy parts from their modules (``from smartcrawl.crawl.runner import run_crawl``); this
package file stays light so that scoring and strategies load without Scrapy.
"""
