"""The crawler's side of the scoring service: :class:`RemoteScorer`, a :class:`UrlScorer` over HTTP.

    python crawl.py scorer=remote scorer.url=http://127.0.0.1:8900 pair=eng-mlt strategy=smart ...

One ``httpx.Client`` per scorer keeps its connection alive between calls. Network errors and 5xx
answers are retried ``retries`` times with exponential back-off; a service that cannot be reached
raises :class:`ScoringServiceUnavailable` saying how to start it; a request the service rejects
(4xx) raises ``ValueError`` with the service's reason. Inputs longer than the service's
``max_request_items`` (read from ``/health``) are sent in several requests, so a page with a huge
number of links does not stop the crawl.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from types import TracebackType
from typing import Any

import httpx
import numpy as np

DEFAULT_MAX_REQUEST_ITEMS = 10_000  # the service's default; /health tells the real value
START_HINT = ("start it with: python -m smartcrawl.serving --langid-dir DIR --parallel-dir DIR --port {port} "
              "(or, model-free: python -m smartcrawl.serving --rules --langs L1 L2 --port {port})")


class ScoringServiceError(RuntimeError):
    """The scoring service failed or answered something unusable."""


class ScoringServiceUnavailable(ScoringServiceError):
    """The scoring service cannot be reached (not started, wrong URL, or down)."""


class RemoteScorer:
    """:class:`~smartcrawl.crawl.scoring.UrlScorer` that asks a scoring service (``python -m smartcrawl.serving``).

    ``url``: the service's base URL; ``timeout_s``: per HTTP request; ``retries``: extra attempts after
    a network error or a 5xx answer; ``backoff_s``: first wait between attempts (doubled each time);
    ``langs``: the crawl's language pair, checked against the languages the service reports (a
    neural service without a language would silently score 0); ``check``: ask ``/health`` at once,
    so that a crawl fails at start-up rather than on its first page.
    """

    def __init__(self, url: str, timeout_s: float = 30.0, retries: int = 2, backoff_s: float = 0.2,
                 langs: Iterable[str] | None = None, check: bool = True) -> None:
        if retries < 0:
            raise ValueError(f"retries must be >= 0, got {retries}")
        self.url = str(url).rstrip("/")
        if not self.url.startswith(("http://", "https://")):
            raise ValueError(f"scorer.url must be an http(s) URL such as http://127.0.0.1:8900, got {url!r}")
        self.timeout_s, self.retries, self.backoff_s = float(timeout_s), int(retries), float(backoff_s)
        self.langs = tuple(str(x) for x in langs) if langs is not None else None
        self.max_request_items = DEFAULT_MAX_REQUEST_ITEMS
        self._client = httpx.Client(base_url=self.url, timeout=self.timeout_s,
                                    headers={"user-agent": "smartcrawl-remote-scorer"})
        if check:
            self.check()

    def lang_probs(self, urls: Sequence[str], lang: str) -> np.ndarray:
        """P(lang(url) == ``lang``) per URL, from ``POST /lang_probs``."""
        if len(urls) == 0:
            return np.zeros(0, dtype=np.float64)
        items = [str(u) for u in urls]
        return self._chunked("/lang_probs", items, lambda chunk: {"urls": chunk, "lang": str(lang)})

    def parallel_probs(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """P(parallel) per URL pair, from ``POST /parallel_probs``."""
        if len(pairs) == 0:
            return np.zeros(0, dtype=np.float64)
        items = [[str(a), str(b)] for a, b in pairs]
        return self._chunked("/parallel_probs", items, lambda chunk: {"pairs": chunk})

    def health(self) -> dict[str, Any]:
        """The service's ``/health`` answer (scorer, batching settings, counters)."""
        result: dict[str, Any] = self._request("GET", "/health").json()
        return result

    def check(self) -> dict[str, Any]:
        """``/health``, and that the service scores the crawl's languages (``langs``) when it says which it scores."""
        info = self.health()
        limit = info.get("max_request_items")
        if isinstance(limit, int) and limit > 0:
            self.max_request_items = limit
        served = info.get("scorer", {}).get("langs")
        if self.langs is not None and served is not None:
            missing = [x for x in self.langs if x not in served]
            if missing:
                raise ScoringServiceError(f"the scoring service at {self.url} does not score {missing} "
                                          f"(it scores {served}); start one for this language pair")
        return info

    def close(self) -> None:
        """Close the HTTP connection."""
        self._client.close()

    def __enter__(self) -> RemoteScorer:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"RemoteScorer({self.url!r})"

    def _chunked(self, path: str, items: list[Any], body: Callable[[list[Any]], dict[str, Any]]) -> np.ndarray:
        step = self.max_request_items
        parts = [self._probs(path, body(items[i : i + step]), len(items[i : i + step]))
                 for i in range(0, len(items), step)]
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def _probs(self, path: str, body: dict[str, Any], n: int) -> np.ndarray:
        answer = self._request("POST", path, body).json()
        probs = answer.get("probs") if isinstance(answer, dict) else None
        if not isinstance(probs, list) or len(probs) != n:
            got = len(probs) if isinstance(probs, list) else type(probs).__name__
            raise ScoringServiceError(f"{self.url}{path} answered {got} probabilities for {n} inputs")
        return np.asarray(probs, dtype=np.float64)

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        last: Exception | None = None
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff_s * 2 ** (attempt - 1))
            try:
                resp = self._client.request(method, path, json=body)
            except httpx.TransportError as err:
                last = err
                continue
            if resp.status_code >= 500:
                last = ScoringServiceError(f"{self.url}{path} answered {resp.status_code}: {_detail(resp)}")
                continue
            if resp.status_code >= 400:
                raise ValueError(f"the scoring service at {self.url} rejected {method} {path} "
                                 f"({resp.status_code}): {_detail(resp)}")
            return resp
        attempts = f"{self.retries + 1} attempt{'s' if self.retries else ''}"
        if isinstance(last, (httpx.ConnectError, httpx.ConnectTimeout)):
            port = httpx.URL(self.url).port or 8900
            raise ScoringServiceUnavailable(
                f"the scoring service at {self.url} is unreachable after {attempts} ({last}); "
                + START_HINT.format(port=port)) from last
        if isinstance(last, httpx.TimeoutException):
            raise ScoringServiceError(f"the scoring service at {self.url} did not answer {path} within "
                                      f"{self.timeout_s} s ({attempts}); raise scorer.timeout_s or check its load"
                                      ) from last
        raise ScoringServiceError(f"{method} {path} failed after {attempts}: {last}") from last


def _detail(resp: httpx.Response) -> str:
    """The ``detail`` of a FastAPI error answer, else the start of the body."""
    try:
        detail = resp.json().get("detail")
    except (ValueError, AttributeError):
        detail = None
    return str(detail if detail is not None else resp.text[:500])
