"""Tables and figures made from the files under ``results/`` (never typed numbers).

- :mod:`~smartcrawl.analysis.results_io`: run directories, metrics, configs, predictions, data cards;
- :mod:`~smartcrawl.analysis.selection`: which run is "ours" and which the baselines (``conf/report.yaml``);
- :mod:`~smartcrawl.analysis.views`: predictions of different runs on their common rows;
- :mod:`~smartcrawl.analysis.tables` / :mod:`~smartcrawl.analysis.figures`: each table and figure;
- :mod:`~smartcrawl.analysis.paper_numbers`: the paper's published numbers (typed, with their source);
- :mod:`~smartcrawl.analysis.items`, :mod:`~smartcrawl.analysis.notebooks`,
  :mod:`~smartcrawl.analysis.report`: the notebooks and the report page ``results/report/README.md``
  (``make figures``);
- :mod:`~smartcrawl.analysis.data_tables`, :mod:`~smartcrawl.analysis.crawl_figure`: data-card tables
  and the Figure-7 panels.
"""
