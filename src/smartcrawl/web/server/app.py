"""The test-bed server: an asyncio HTTP/1.1 forward proxy that answers from test-bed webs.

Each request is routed by its host name (absolute-form target, or ``Host`` header) to the web that
serves that host; nothing leaves the machine. Answers, in order:

1. CONNECT (an ``https`` tunnel) -> ``config.unknown_host_status`` (the test bed is plain ``http``),
   other methods than GET/HEAD -> 405;
2. unknown host -> ``config.unknown_host_status`` (502 by default);
3. the host's latency (fixed + uniform jitter) is waited out;
4. ``/robots.txt`` -> the site's ``SiteInfo.robots_txt`` as ``text/plain`` (404 when it is empty);
5. an injected error with the host's ``error_rate`` (500 or 503, seeded RNG; never on robots.txt);
6. the stored response (status, content type, body, ``Location`` for redirects), else 404.

Connections are kept alive (HTTP/1.1 default, HTTP/1.0 with ``Connection: keep-alive``) and closed
after ``idle_timeout_s`` without a request.

Pages are read from SQLite inline on the event loop by default: a primary-key read takes about
25 us, less than the hop to a thread pool. Measured on the 2-core dev machine (8 keep-alive clients,
8 KB pages, ``benchmarks/server_bench.py``): inline 7,200-7,400 req/s, 4 read threads 5,900-6,600
req/s. ``read_threads > 0`` (``serve --read-threads N``) moves reads to a pool for webs on slow disks;
the threads share each store's connection, which SQLite serialises (``sqlite3.threadsafety == 3``).
"""

from __future__ import annotations

import asyncio
import logging
import random
import sqlite3
import time
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

from smartcrawl.web.server.config import ServerConfig
from smartcrawl.web.server.protocol import BadRequest, Request, message_body, parse_head, request_url, response_head
from smartcrawl.web.server.reqlog import RequestLog
from smartcrawl.web.server.routing import SiteTable
from smartcrawl.web.store import StoredPage

log = logging.getLogger(__name__)

SERVER_NAME = "smartcrawl-testbed"
_LOG_FLUSH_S = 1.0


class _Answer:
    """A response being made: status, headers, body and whether it was an injected error."""

    __slots__ = ("status", "content_type", "body", "location", "injected", "extra")

    def __init__(self, status: int, body: bytes, content_type: str = "text/html; charset=utf-8",
                 location: str | None = None, injected: bool = False) -> None:
        self.status = status
        self.body = body
        self.content_type = content_type
        self.location = location
        self.injected = injected
        self.extra: list[tuple[str, str]] = []


class TestbedServer:
    """Serve several web directories on one loopback port (see the module docstring for the rules)."""

    __test__ = False  # not a pytest test class

    def __init__(self, web_dirs: Iterable[str | Path], config: ServerConfig | None = None,
                 read_threads: int = 0) -> None:
        if read_threads and sqlite3.threadsafety != 3:
            raise RuntimeError("read_threads needs an SQLite built thread-safe (sqlite3.threadsafety == 3)")
        self.config = config or ServerConfig()
        self.table = SiteTable(web_dirs)
        self.rng = random.Random(self.config.seed)
        self.stats: Counter[int] = Counter()
        self.port: int | None = None
        self._log = RequestLog(self.config.log_path)
        self._server: asyncio.base_events.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._flusher: asyncio.Task[None] | None = None
        self._pool = ThreadPoolExecutor(read_threads, thread_name_prefix="testbed-read") if read_threads else None

    @property
    def hosts(self) -> list[str]:
        """The host names served."""
        return sorted(self.table.sites)

    async def start(self) -> int:
        """Bind and start accepting; returns the bound port."""
        self._server = await asyncio.start_server(
            self._handle, self.config.host, self.config.port, limit=self.config.max_head_bytes, backlog=1024
        )
        self.port = int(self._server.sockets[0].getsockname()[1])
        self._flusher = asyncio.get_running_loop().create_task(self._flush_log())
        log.info("serving %d hosts on http://%s:%d", len(self.table.sites), self.config.host, self.port)
        return self.port

    async def serve_until(self, stop: asyncio.Event) -> None:
        """Serve until ``stop`` is set, then shut down cleanly."""
        if self._server is None:
            await self.start()
        try:
            await stop.wait()
        finally:
            await self.close()

    async def close(self) -> None:
        """Stop accepting, close open connections, flush the log and close the stores."""
        if self._server is not None:
            self._server.close()
        for writer in list(self._writers):
            writer.close()
        if self._server is not None:
            try:
                await asyncio.wait_for(self._server.wait_closed(), 5.0)
            except asyncio.TimeoutError:  # pragma: no cover - a client that never lets go
                log.warning("connections still open at shutdown")
            self._server = None
        if self._flusher is not None:
            self._flusher.cancel()
            self._flusher = None
        self._log.close()
        if self._pool is not None:
            self._pool.shutdown(wait=True)
        self.table.close()

    async def _flush_log(self) -> None:
        while True:
            await asyncio.sleep(_LOG_FLUSH_S)
            self._log.flush()

    # -- one connection ----------------------------------------------------------------------
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        client = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        loop = asyncio.get_running_loop()
        self._writers.add(writer)
        timer = loop.call_later(self.config.idle_timeout_s, writer.close)
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    break
                except asyncio.LimitOverrunError:
                    await self._send_error(writer, 431, client)
                    break
                timer.cancel()
                start = time.perf_counter()
                keep_alive = await self._serve_one(reader, writer, head, client, start)
                if not keep_alive:
                    break
                timer = loop.call_later(self.config.idle_timeout_s, writer.close)
        except ConnectionError:
            pass
        finally:
            timer.cancel()
            self._writers.discard(writer)
            writer.close()

    async def _serve_one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: bytes,
                         client: str, start: float) -> bool:
        """Answer one request; returns whether the connection stays open."""
        method, url = "-", "-"
        try:
            req = parse_head(head)
            method = req.method
            if req.content_length:
                await reader.readexactly(req.content_length)
            if req.method == "CONNECT":
                status = self.config.unknown_host_status
                answer = _Answer(status, message_body(status, "the test bed serves plain http only"))
            elif req.method not in ("GET", "HEAD"):
                answer = _Answer(405, message_body(405, req.method))
                answer.extra.append(("Allow", "GET, HEAD"))
            else:
                host, url = request_url(req)
                answer = await self._answer(req, host, url)
            keep_alive = req.keep_alive and req.method in ("GET", "HEAD")
        except BadRequest as exc:
            answer = _Answer(exc.status, message_body(exc.status, str(exc)))
            keep_alive = False
        except asyncio.IncompleteReadError:
            return False
        headers = [
            ("Server", SERVER_NAME),
            ("Content-Type", answer.content_type),
            ("Content-Length", str(len(answer.body))),
            ("Connection", "keep-alive" if keep_alive else "close"),
        ]
        if answer.location:
            headers.append(("Location", answer.location))
        headers.extend(answer.extra)
        body = b"" if method == "HEAD" else answer.body
        writer.write(response_head(answer.status, headers) + body)
        await writer.drain()
        self.stats[answer.status] += 1
        self._log.write(time.time(), client, method, url, answer.status, len(body),
                        (time.perf_counter() - start) * 1000.0, answer.injected)
        return keep_alive

    async def _answer(self, req: Request, host: str, url: str) -> _Answer:
        site = self.table.site(host)
        if site is None:
            status = self.config.unknown_host_status
            return _Answer(status, message_body(status, f"no test-bed site is called {host}"))
        policy = self.config.policy_for(host)
        delay = policy.delay_s(self.rng)
        if delay > 0:
            await asyncio.sleep(delay)
        if urlsplit(url).path == "/robots.txt":
            if not site.robots_txt:
                return _Answer(404, message_body(404, url))
            return _Answer(200, site.robots_txt.encode("utf-8"), "text/plain; charset=utf-8")
        if policy.error_rate and self.rng.random() < policy.error_rate:
            status = self.rng.choice(self.config.error_statuses)
            answer = _Answer(status, message_body(status, "injected error"), injected=True)
            if status == 503:
                answer.extra.append(("Retry-After", "1"))
            return answer
        page = await self._lookup(host, url)
        if page is None:
            return _Answer(404, message_body(404, url))
        return _Answer(page.status, page.body or b"", page.content_type or "application/octet-stream", page.location)

    async def _lookup(self, host: str, url: str) -> StoredPage | None:
        if self._pool is None:
            return self.table.lookup(host, url)
        return await asyncio.get_running_loop().run_in_executor(self._pool, self.table.lookup, host, url)

    async def _send_error(self, writer: asyncio.StreamWriter, status: int, client: str) -> None:
        body = message_body(status)
        head = response_head(status, [("Server", SERVER_NAME), ("Content-Type", "text/html; charset=utf-8"),
                                      ("Content-Length", str(len(body))), ("Connection", "close")])
        try:
            writer.write(head + body)
            await writer.drain()
        except ConnectionError:
            return
        self.stats[status] += 1
        self._log.write(time.time(), client, "-", "-", status, len(body), 0.0, False)
