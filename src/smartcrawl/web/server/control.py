"""Run the test-bed server in a background thread: :func:`serve_webs` for tests and the crawler."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

from smartcrawl.web.server.app import TestbedServer
from smartcrawl.web.server.config import Policy, ServerConfig


class ServerHandle:
    """A server running in a daemon thread with its own event loop.

    ``port`` is the bound port, ``proxy_url`` the value for ``http_proxy`` or Scrapy's
    ``request.meta["proxy"]``; :meth:`stop` shuts it down and waits for the thread.
    """

    def __init__(self, web_dirs: Iterable[str | Path], config: ServerConfig) -> None:
        self.config = config
        self._server = TestbedServer(web_dirs, config)
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="testbed-server", daemon=True)

    def start(self, timeout_s: float = 30.0) -> ServerHandle:
        """Start the thread and wait until the port is bound (re-raises a start-up error)."""
        self._thread.start()
        if not self._ready.wait(timeout_s):
            raise TimeoutError("test-bed server did not start")
        if self._error is not None:
            raise self._error
        return self

    def _run(self) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            try:
                await self._server.start()
            except BaseException as exc:
                self._error = exc
                await self._server.close()
                self._ready.set()
                return
            self._ready.set()
            await self._server.serve_until(self._stop)

        asyncio.run(main())

    @property
    def port(self) -> int:
        """The bound TCP port."""
        assert self._server.port is not None, "server not started"
        return self._server.port

    @property
    def host(self) -> str:
        """The bound address."""
        return self.config.host

    @property
    def proxy_url(self) -> str:
        """``http://<address>:<port>``: use it as an HTTP proxy."""
        return f"http://{self.host}:{self.port}"

    @property
    def hosts(self) -> list[str]:
        """The site host names served."""
        return self._server.hosts

    def stats(self) -> dict[int, int]:
        """Responses sent so far, by status."""
        return dict(self._server.stats)

    def stop(self, timeout_s: float = 10.0) -> None:
        """Shut the server down (idempotent) and wait for its thread."""
        if self._loop is not None and self._stop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread.is_alive():
            self._thread.join(timeout_s)

    def __enter__(self) -> ServerHandle:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


def start_server(
    web_dirs: Iterable[str | Path],
    host: str = "127.0.0.1",
    port: int = 0,
    latency_ms: float = 0.0,
    jitter_ms: float = 0.0,
    error_rate: float = 0.0,
    host_policies: Mapping[str, Policy] | None = None,
    seed: int = 0,
    log_path: str | Path | None = None,
    unknown_host_status: int = 502,
) -> ServerHandle:
    """Start a server over ``web_dirs`` in a background thread; the caller must :meth:`~ServerHandle.stop` it."""
    config = ServerConfig(
        host=host, port=port, policy=Policy(latency_ms, jitter_ms, error_rate),
        host_policies={k.lower(): v for k, v in (host_policies or {}).items()}, seed=seed,
        log_path=Path(log_path) if log_path is not None else None, unknown_host_status=unknown_host_status,
    )
    return ServerHandle(web_dirs, config).start()


@contextmanager
def serve_webs(
    web_dirs: Iterable[str | Path],
    host: str = "127.0.0.1",
    port: int = 0,
    latency_ms: float = 0.0,
    jitter_ms: float = 0.0,
    error_rate: float = 0.0,
    host_policies: Mapping[str, Policy] | None = None,
    seed: int = 0,
    log_path: str | Path | None = None,
    unknown_host_status: int = 502,
) -> Iterator[ServerHandle]:
    """Serve ``web_dirs`` on loopback for the ``with`` block; yields the :class:`ServerHandle`.

    ``port=0`` picks a free port. ``latency_ms`` + uniform(0, ``jitter_ms``) delays each response,
    ``error_rate`` injects 500/503 answers (seeded by ``seed``), ``host_policies`` overrides both per
    host, ``log_path`` appends a JSONL request log.
    """
    handle = start_server(web_dirs, host, port, latency_ms, jitter_ms, error_rate, host_policies, seed,
                          log_path, unknown_host_status)
    try:
        yield handle
    finally:
        handle.stop()
