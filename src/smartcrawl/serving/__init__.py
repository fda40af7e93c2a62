"""A scoring service shared by many crawler processes, and the client the crawler uses.

- :mod:`~smartcrawl.serving.batcher`: dynamic batching of many clients' requests into few scorer calls;
- :mod:`~smartcrawl.serving.schemas`: the JSON bodies;
- :mod:`~smartcrawl.serving.app`: the FastAPI app (``POST /lang_probs``, ``POST /parallel_probs``, ``GET /health``);
- :mod:`~smartcrawl.serving.background`: run the app in a thread on loopback (tests, benchmarks);
- :mod:`~smartcrawl.serving.cli`: ``python -m smartcrawl.serving --langid-dir D --parallel-dir D`` (or ``--rules``);
- :mod:`~smartcrawl.serving.client`: :class:`~smartcrawl.serving.client.RemoteScorer`, the crawler's
  :class:`~smartcrawl.crawl.scoring.UrlScorer` when ``scorer=remote scorer.url=http://host:port``.

The client needs only ``httpx``; importing it does not import FastAPI, uvicorn or torch.
"""
