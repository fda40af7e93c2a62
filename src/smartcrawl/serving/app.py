"""The scoring service: a FastAPI app over any :class:`~smartcrawl.crawl.scoring.UrlScorer`.

Endpoints (JSON bodies in :mod:`~smartcrawl.serving.schemas`):

- ``POST /lang_probs`` ``{"urls": [...], "lang": "eng"}`` -> ``{"probs": [...]}``;
- ``POST /parallel_probs`` ``{"pairs": [[u, v], ...]}`` -> ``{"probs": [...]}``;
- ``GET /health`` -> the scorer's description, the batching settings and the batcher's counters.

Every scoring request goes through one :class:`~smartcrawl.serving.batcher.DynamicBatcher`. Status
codes: 422 for a malformed body (not a list, a pair that is not two strings, a URL over
``MAX_URL_CHARS``, an empty ``lang``); 413 for a request over ``max_request_items``; 400 when the
scorer rejects a request with ``ValueError``; 500 when it fails otherwise. Empty or unparsable URLs
inside a well-formed body are the scorer's business: its defined output (0 for the neural scorer,
the "no language mark" prior for the rule scorer), as when it runs in the crawler's process.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, HTTPException, Request

from smartcrawl.crawl.scoring import UrlScorer
from smartcrawl.serving.batcher import PARALLEL, DynamicBatcher, JobKey
from smartcrawl.serving.schemas import LangRequest, ParallelRequest, ProbsResponse


def describe_scorer(scorer: UrlScorer) -> dict[str, Any]:
    """What ``/health`` reports about the wrapped scorer: its class and the languages it can score."""
    info: dict[str, Any] = {"class": f"{type(scorer).__module__}.{type(scorer).__qualname__}"}
    langs = getattr(scorer, "langs", None)  # RuleScorer: its language pair
    if isinstance(langs, Sequence) and not isinstance(langs, str):
        info["langs"] = [str(x) for x in langs]
    langid = getattr(getattr(scorer, "langid", None), "model", None)  # NeuralScorer: its langid labels
    if langid is not None:
        info["langs"] = [x for x in langid.labels if x != "und"]
        info["device"] = str(langid.device)
    return info


def client_id(request: Request) -> str | None:
    """The client's connection as ``host:port`` (one per :class:`~smartcrawl.serving.client.RemoteScorer`)."""
    return f"{request.client.host}:{request.client.port}" if request.client is not None else None


def create_app(
    scorer: UrlScorer,
    *,
    window: float = 0.1,
    max_batch: int = 512,
    max_request_items: int = 10_000,
    early_flush: bool = True,
    info: dict[str, Any] | None = None,
) -> FastAPI:
    """The service app; the batcher starts and stops with the app's lifespan.

    ``window``: seconds a batch waits for more requests after its first one arrived; ``max_batch``:
    items (URLs or pairs) that flush a batch at once; ``max_request_items``: the largest request
    accepted; ``early_flush``: flush before the window ends once every active client is waiting
    (see :mod:`~smartcrawl.serving.batcher`); ``info``: extra facts for ``/health`` (e.g. the model directories).
    """
    if max_request_items < 1:
        raise ValueError(f"max_request_items must be >= 1, got {max_request_items}")
    scorer_info = {**describe_scorer(scorer), **(info or {})}
    started = time.time()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        batcher = DynamicBatcher(scorer, window=window, max_batch=max_batch, early_flush=early_flush)
        batcher.start()
        app.state.batcher = batcher
        try:
            yield
        finally:
            await batcher.stop()

    app = FastAPI(title="smartcrawl scoring service", version="1", lifespan=lifespan,
                  description="URL language and URL-pair parallelism probabilities, dynamically batched.")

    async def score(request: Request, key: JobKey, items: Sequence[Any]) -> ProbsResponse:
        if len(items) > max_request_items:
            raise HTTPException(413, f"{len(items)} items in one request; the service accepts at most "
                                     f"{max_request_items} (split the request)")
        batcher: DynamicBatcher = request.app.state.batcher
        try:
            probs = await batcher.submit(key, items, client_id(request))
        except ValueError as err:
            raise HTTPException(400, f"the scorer rejected the request: {err}") from err
        except Exception as err:  # noqa: BLE001 - one failed request must not take the service down
            raise HTTPException(500, f"scoring failed: {type(err).__name__}: {err}") from err
        return ProbsResponse(probs=probs.tolist())

    @app.post("/lang_probs", response_model=ProbsResponse)
    async def lang_probs(body: LangRequest, request: Request) -> ProbsResponse:
        """P(lang(url) == ``lang``) per URL."""
        return await score(request, JobKey("lang", body.lang), body.urls)

    @app.post("/parallel_probs", response_model=ProbsResponse)
    async def parallel_probs(body: ParallelRequest, request: Request) -> ProbsResponse:
        """P(parallel) per URL pair."""
        return await score(request, JobKey(PARALLEL), body.pairs)

    @app.get("/health")
    async def health(request: Request) -> dict[str, Any]:
        """The scorer, the batching settings and the batcher's counters."""
        batcher: DynamicBatcher = request.app.state.batcher
        return {"status": "ok", "scorer": scorer_info, "window_s": batcher.window, "max_batch": batcher.max_batch,
                "early_flush": batcher.early_flush, "max_request_items": max_request_items,
                "uptime_s": round(time.time() - started, 3), "stats": batcher.stats.to_dict()}

    return app
