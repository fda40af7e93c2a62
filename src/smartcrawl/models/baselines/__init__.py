"""The paper's baselines, each runnable from the command line on the prepared splits.

- :mod:`~smartcrawl.models.baselines.url_rules`: language from ISO 639 codes in the URL's query
  values, directories, public suffix and subdomain (``python -m smartcrawl.models.baselines.url_rules``).
- :mod:`~smartcrawl.models.baselines.fasttext_url`: fastText character n-gram classifier over
  pre-processed URLs (``python -m smartcrawl.models.baselines.fasttext_url``).
- :mod:`~smartcrawl.models.baselines.url_matching`: WMT16 URL matching for URL pairs, extended to every
  language (``python -m smartcrawl.models.baselines.url_matching``).

All of them report through :func:`smartcrawl.eval.metrics.classification_metrics`.
"""
