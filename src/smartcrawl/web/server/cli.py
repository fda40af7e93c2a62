"""``python -m smartcrawl.web serve``: serve test-bed webs on loopback as an HTTP proxy, until Ctrl-C."""

from __future__ import annotations

import argparse
import asyncio
import signal
from pathlib import Path

from smartcrawl.web.server.app import TestbedServer
from smartcrawl.web.server.config import Policy, ServerConfig


def parse_host_values(items: list[str], option: str) -> dict[str, str]:
    """``["HOST=VALUE", ...]`` -> ``{host: value}`` (host lower-cased)."""
    out: dict[str, str] = {}
    for item in items:
        host, sep, value = item.partition("=")
        if not sep or not host or not value:
            raise SystemExit(f"{option} expects HOST=VALUE, got {item!r}")
        out[host.strip().lower()] = value.strip()
    return out


def build_config(args: argparse.Namespace) -> ServerConfig:
    """The server settings from the parsed command line."""
    default = Policy(args.latency_ms, args.jitter_ms, args.error_rate)
    latency = parse_host_values(args.host_latency, "--host-latency")
    errors = parse_host_values(args.host_error_rate, "--host-error-rate")
    policies: dict[str, Policy] = {}
    for host in sorted(set(latency) | set(errors)):
        lat, jit = default.latency_ms, default.jitter_ms
        if host in latency:
            fixed, _, jitter = latency[host].partition("+")
            lat, jit = float(fixed), float(jitter or 0.0)
        rate = float(errors[host]) if host in errors else default.error_rate
        policies[host] = Policy(lat, jit, rate)
    return ServerConfig(
        host=args.host, port=args.port, policy=default, host_policies=policies, seed=args.seed,
        log_path=args.log, unknown_host_status=args.unknown_host_status,
    )


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register the ``serve`` sub-command."""
    p = subparsers.add_parser(
        "serve", help="serve test-bed webs as an HTTP proxy on loopback", description=__doc__,
        epilog="Fetch through it: curl -x http://127.0.0.1:8080 http://help.libreoffice.test/ "
               "or curl -H 'Host: help.libreoffice.test' http://127.0.0.1:8080/",
    )
    p.add_argument("web_dirs", nargs="+", type=Path, metavar="WEB_DIR", help="web directories to serve")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1; keep it on loopback)")
    p.add_argument("--port", type=int, default=8080, help="port (0 = any free port; default 8080)")
    p.add_argument("--port-file", type=Path, help="write the bound port to this file once listening")
    p.add_argument("--latency-ms", type=float, default=0.0, help="fixed delay of every response")
    p.add_argument("--jitter-ms", type=float, default=0.0, help="extra uniform random delay, 0..JITTER ms")
    p.add_argument("--error-rate", type=float, default=0.0, help="share of requests answered 500/503")
    p.add_argument("--host-latency", action="append", default=[], metavar="HOST=MS[+JITTER]",
                   help="per-host latency override (repeatable)")
    p.add_argument("--host-error-rate", action="append", default=[], metavar="HOST=RATE",
                   help="per-host error-rate override (repeatable)")
    p.add_argument("--seed", type=int, default=0, help="seed of the jitter and error draws")
    p.add_argument("--unknown-host-status", type=int, default=502, choices=(404, 502),
                   help="answer for hosts no web serves (default 502, as a proxy that cannot reach them)")
    p.add_argument("--log", type=Path, help="append a JSONL request log here")
    p.add_argument("--read-threads", type=int, default=0,
                   help="read pages in a thread pool of this size (default 0: inline, fastest on local disks)")
    p.set_defaults(func=run)


async def _serve(server: TestbedServer, port_file: Path | None) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    port = await server.start()
    if port_file is not None:
        port_file.write_text(f"{port}\n")
    print(f"serving {len(server.hosts)} hosts on http://{server.config.host}:{port} "
          f"(proxy; Ctrl-C stops): {' '.join(server.hosts)}", flush=True)
    await server.serve_until(stop)


def run(args: argparse.Namespace) -> int:
    """Serve until SIGINT or SIGTERM."""
    server = TestbedServer(args.web_dirs, build_config(args), read_threads=args.read_threads)
    asyncio.run(_serve(server, args.port_file))
    return 0
