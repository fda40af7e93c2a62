"""Dynamic batching: merge the requests of many clients into few calls of one :class:`UrlScorer`.

Requests are queued as :class:`Job` objects. A collector task (on the service's event loop) waits
for the first job, then keeps collecting until ``window`` seconds have passed *since that job
arrived* or ``max_batch`` items are queued (the paper authors' server used a 0.1 s window). The
collected jobs are grouped by what the scorer is asked (``lang_probs`` per language, or
``parallel_probs``); each group becomes one scorer call, run in a single worker thread so the event
loop keeps accepting requests while the model computes. The result is cut back into one slice per
job. Jobs that arrive while the model is busy wait in the queue and form the next batch, so under
load the batches grow by themselves, and ``window=0`` gives that behaviour without any added wait.

*Early flush* (on by default): every crawler process is a synchronous client, one request in flight
at a time, so once every client seen in the last ``active_horizon_s`` seconds has a request waiting,
nobody else can join the batch and waiting out the window would only add latency. The batch is then
flushed at once: a lone crawler is not slowed down by the window, and many crawlers still merge. The
window stays the upper bound on the wait. Clients are told apart by their connection (the service
passes ``host:port``; :class:`~smartcrawl.serving.client.RemoteScorer` keeps one connection open), and a
job without a client id turns early flush off for the batch it is in. A client becomes known with its
first scoring request, so brand-new clients may not merge on their very first request.

A request is never split across batches; one larger than ``max_batch`` forms a batch of its own.
When a merged call fails, each of its jobs is retried alone, so one bad request gets its own error
and the others still get their results.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from smartcrawl.crawl.scoring import UrlScorer

PARALLEL = "parallel"


class ScorerOutputError(RuntimeError):
    """The wrapped scorer returned something that is not one probability per input."""


@dataclass(frozen=True)
class JobKey:
    """What a job asks: ``("lang", "<iso 639-3>")`` or ``("parallel", "")``; jobs with the same key merge."""

    kind: str
    lang: str = ""


@dataclass
class Job:
    """One client request waiting for its probabilities."""

    key: JobKey
    items: Sequence[Any]  # URLs (lang) or (url, url) pairs (parallel)
    future: asyncio.Future[np.ndarray]
    arrival: float  # loop time when the job was queued
    client: str | None = None  # who sent it (for early flush)


@dataclass
class BatchStats:
    """Counters of the batcher, reported by the service's ``/health``."""

    requests: int = 0  # jobs submitted
    items: int = 0  # URLs + pairs submitted
    batches: int = 0  # flushes of the queue
    early_flushes: int = 0  # flushes before the window ended because every active client was waiting
    model_calls: int = 0  # scorer calls (merged groups + lone retries)
    merged_requests: int = 0  # jobs answered by a scorer call shared with another job
    max_call_items: int = 0  # largest scorer call
    failed_requests: int = 0
    busy_s: float = 0.0  # time spent inside scorer calls

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready counters plus derived means."""
        out = asdict(self)
        out["busy_s"] = round(self.busy_s, 4)
        out["mean_call_items"] = round(self.items / self.model_calls, 2) if self.model_calls else 0.0
        out["mean_requests_per_call"] = round(self.requests / self.model_calls, 2) if self.model_calls else 0.0
        return out


def call_scorer(scorer: UrlScorer, key: JobKey, items: Sequence[Any]) -> np.ndarray:
    """One scorer call for ``key``; checks that it returns one finite probability per item."""
    if key.kind == PARALLEL:
        out = scorer.parallel_probs(list(items))
    else:
        out = scorer.lang_probs(list(items), key.lang)
    arr = np.asarray(out, dtype=np.float64).reshape(-1)
    if arr.shape[0] != len(items):
        raise ScorerOutputError(f"scorer returned {arr.shape[0]} values for {len(items)} inputs")
    if not np.isfinite(arr).all():
        raise ScorerOutputError("scorer returned non-finite probabilities")
    return arr


class DynamicBatcher:
    """Queue of scoring jobs flushed by time window or size into merged scorer calls (module docstring).

    Create it inside the running event loop, :meth:`start` it, :meth:`submit` jobs from request
    handlers, and :meth:`stop` it on shutdown.
    """

    def __init__(self, scorer: UrlScorer, window: float = 0.1, max_batch: int = 512, *, early_flush: bool = True,
                 active_horizon_s: float = 2.0) -> None:
        if window < 0 or not math.isfinite(window):
            raise ValueError(f"window must be a finite number of seconds >= 0, got {window}")
        if max_batch < 1:
            raise ValueError(f"max_batch must be >= 1, got {max_batch}")
        if active_horizon_s <= 0:
            raise ValueError(f"active_horizon_s must be > 0, got {active_horizon_s}")
        self.scorer = scorer
        self.early_flush = bool(early_flush)
        self.active_horizon_s = float(active_horizon_s)
        self._last_seen: dict[str, float] = {}
        self.window = float(window)
        self.max_batch = int(max_batch)
        self.stats = BatchStats()
        self._pending: deque[Job] = deque()
        self._pending_items = 0
        self._running: list[Job] = []  # the batch being scored
        self._arrived = asyncio.Event()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="scorer")
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the collector task on the running loop."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._collect_forever(), name="batcher")

    async def stop(self) -> None:
        """Stop collecting, fail the jobs still queued, and shut the worker thread down."""
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
        for job in [*self._running, *self._pending]:
            if not job.future.done():
                job.future.set_exception(RuntimeError("scoring service is shutting down"))
        self._pending.clear()
        self._running = []
        self._executor.shutdown(wait=True)

    def touch(self, client: str | None) -> None:
        """Note that ``client`` is active now (called for every scoring request)."""
        if client is not None:
            self._last_seen[client] = asyncio.get_running_loop().time()

    async def submit(self, key: JobKey, items: Sequence[Any], client: str | None = None) -> np.ndarray:
        """Queue one request of ``client`` and wait for its probabilities (one per item)."""
        if self._task is None:
            raise RuntimeError("the batcher is not running")
        self.touch(client)
        self.stats.requests += 1
        self.stats.items += len(items)
        if not items:
            return np.zeros(0, dtype=np.float64)
        loop = asyncio.get_running_loop()
        job = Job(key, items, loop.create_future(), loop.time(), client)
        self._pending.append(job)
        self._pending_items += len(items)
        self._arrived.set()
        return await job.future

    async def _collect_forever(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            if not self._pending:
                self._arrived.clear()
                await self._arrived.wait()
                continue
            deadline = self._pending[0].arrival + self.window
            while self._pending_items < self.max_batch:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    break
                if self._everyone_waiting():
                    self.stats.early_flushes += 1
                    break
                self._arrived.clear()
                try:
                    await asyncio.wait_for(self._arrived.wait(), remaining)
                except asyncio.TimeoutError:  # the builtin TimeoutError from Python 3.11 on
                    break
            self._running = self._take()
            await self._run_batch(self._running)
            self._running = []

    def _everyone_waiting(self) -> bool:
        """Whether every client active within the horizon has a job queued (early flush, module docstring)."""
        if not self.early_flush:
            return False
        waiting: set[str] = set()
        for job in self._pending:
            if job.client is None:
                return False
            waiting.add(job.client)
        since = asyncio.get_running_loop().time() - self.active_horizon_s
        self._last_seen = {c: t for c, t in self._last_seen.items() if t >= since}
        return all(c in waiting for c in self._last_seen)

    def _take(self) -> list[Job]:
        """Jobs from the head of the queue up to ``max_batch`` items (at least one job)."""
        batch = [self._pending.popleft()]
        size = len(batch[0].items)
        while self._pending and size + len(self._pending[0].items) <= self.max_batch:
            job = self._pending.popleft()
            batch.append(job)
            size += len(job.items)
        self._pending_items -= size
        return batch

    async def _run_batch(self, batch: list[Job]) -> None:
        self.stats.batches += 1
        groups: dict[JobKey, list[Job]] = {}
        for job in batch:
            if not job.future.done():  # a client that went away needs no answer
                groups.setdefault(job.key, []).append(job)
        for key, jobs in groups.items():
            items = [x for job in jobs for x in job.items]
            try:
                probs = await self._call(key, items)
            except Exception as err:  # noqa: BLE001 - reported to the clients, never kills the loop
                if len(jobs) == 1:
                    self._fail(jobs[0], err)
                    continue
                await self._run_alone(key, jobs)
                continue
            if len(jobs) > 1:
                self.stats.merged_requests += len(jobs)
            start = 0
            for job in jobs:
                end = start + len(job.items)
                if not job.future.done():
                    job.future.set_result(probs[start:end])
                start = end

    async def _run_alone(self, key: JobKey, jobs: list[Job]) -> None:
        """After a merged call failed: one call per job, so only the faulty jobs fail."""
        for job in jobs:
            try:
                probs = await self._call(key, list(job.items))
            except Exception as err:  # noqa: BLE001
                self._fail(job, err)
                continue
            if not job.future.done():
                job.future.set_result(probs)

    async def _call(self, key: JobKey, items: list[Any]) -> np.ndarray:
        loop = asyncio.get_running_loop()
        self.stats.model_calls += 1
        self.stats.max_call_items = max(self.stats.max_call_items, len(items))
        t0 = time.perf_counter()
        try:
            return await loop.run_in_executor(self._executor, call_scorer, self.scorer, key, items)
        finally:
            self.stats.busy_s += time.perf_counter() - t0

    def _fail(self, job: Job, err: BaseException) -> None:
        self.stats.failed_requests += 1
        if not job.future.done():
            job.future.set_exception(err)
