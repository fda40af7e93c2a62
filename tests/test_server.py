"""The test-bed server on loopback: proxy and Host-header requests, robots, redirects, 404/502, errors, latency, log."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from smartcrawl.web.server import Policy, ServerConfig, ServerHandle, TestbedServer, serve_webs
from smartcrawl.web.cli import build_parser
from smartcrawl.web.server.cli import build_config
from smartcrawl.web.store import SiteInfo, StoredPage, WebStore

A = "alpha.test"
B = "beta.test"
C = "gamma.test"


def _write_web(root: Path, sites: list[SiteInfo], pages: list[StoredPage]) -> Path:
    store = WebStore(root)
    store.create(root.name, ("eng", "fin"), sites)
    store.add_pages(pages)
    store.write_truth(pd.DataFrame(columns=["url", "host", "lang"]), pd.DataFrame(columns=["group", "url", "host", "lang"]))
    store.close()
    return root


@pytest.fixture(scope="module")
def webs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two webs: alpha + beta in one (beta has no robots.txt), gamma in the other."""
    base = tmp_path_factory.mktemp("webs")
    web1 = _write_web(
        base / "web1",
        [
            SiteInfo(host=A, seeds=[f"http://{A}/"], robots_txt="User-agent: *\nDisallow: /private/\n", langs=["eng", "fin"]),
            SiteInfo(host=B, seeds=[f"http://{B}/"], robots_txt=""),
        ],
        [
            StoredPage(url=f"http://{A}/", body=b"<html><body>home <a href='/en/a.html'>a</a></body></html>"),
            StoredPage(url=f"http://{A}/en/a.html", body=b"<html><body>English page</body></html>"),
            StoredPage(url=f"http://{A}/fi/a.html", body="<html><body>Suomenkielinen sivu</body></html>".encode()),
            StoredPage(url=f"http://{A}/old", status=301, location=f"http://{A}/en/a.html", body=b""),
            StoredPage(url=f"http://{A}/temp?x=1", status=302, location=f"http://{A}/fi/a.html", body=b""),
            StoredPage(url=f"http://{A}/~user/", body=b"tilde"),
            StoredPage(url=f"http://{A}/gone", status=410, body=b"gone"),
            StoredPage(url=f"http://{A}/style.css", content_type="text/css", body=b"body{}"),
            StoredPage(url=f"http://{B}/", body=b"beta home"),
        ],
    )
    web2 = _write_web(base / "web2", [SiteInfo(host=C, seeds=[f"http://{C}/"])], [StoredPage(url=f"http://{C}/", body=b"gamma")])
    return [web1, web2]


@pytest.fixture(scope="module")
def server(webs: list[Path]) -> Iterator[ServerHandle]:
    """One server over both webs for the whole module."""
    with serve_webs(webs) as handle:
        yield handle


def _get(port: int, target: str, headers: dict[str, str] | None = None, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, target, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def test_proxy_client_fetches_original_urls(server: ServerHandle) -> None:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": server.proxy_url}))
    with opener.open(f"http://{A}/fi/a.html", timeout=10) as resp:
        assert resp.status == 200
        assert "Suomenkielinen" in resp.read().decode()
        assert resp.headers["Content-Type"].startswith("text/html")
    with opener.open(f"http://{C}/", timeout=10) as resp:  # a host of the second web
        assert resp.read() == b"gamma"
    # urllib follows the stored redirect through the proxy
    with opener.open(f"http://{A}/old", timeout=10) as resp:
        assert resp.geturl() == f"http://{A}/en/a.html"
        assert resp.read() == b"<html><body>English page</body></html>"


def test_origin_form_with_host_header(server: ServerHandle) -> None:
    status, headers, body = _get(server.port, "/en/a.html", {"Host": A})
    assert status == 200 and body == b"<html><body>English page</body></html>"
    status, _, body = _get(server.port, "/", {"Host": f"{B}:80"})
    assert status == 200 and body == b"beta home"


def test_keep_alive_serves_many_requests_on_one_connection(server: ServerHandle) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        socks = set()
        for path in ("/", "/en/a.html", "/missing", "/style.css", "/robots.txt"):
            conn.request("GET", f"http://{A}{path}")
            resp = conn.getresponse()
            resp.read()
            assert resp.getheader("Connection") == "keep-alive"
            socks.add(id(conn.sock))
        assert len(socks) == 1
    finally:
        conn.close()


def test_robots_txt_from_site_info(server: ServerHandle) -> None:
    status, headers, body = _get(server.port, f"http://{A}/robots.txt")
    assert status == 200
    assert headers["content-type"].startswith("text/plain")
    assert body == b"User-agent: *\nDisallow: /private/\n"
    status, _, _ = _get(server.port, f"http://{B}/robots.txt")  # empty robots_txt: the site has none
    assert status == 404


def test_stored_redirects_and_statuses(server: ServerHandle) -> None:
    status, headers, _ = _get(server.port, f"http://{A}/old")
    assert status == 301 and headers["location"] == f"http://{A}/en/a.html"
    status, headers, _ = _get(server.port, f"http://{A}/temp?x=1")
    assert status == 302 and headers["location"] == f"http://{A}/fi/a.html"
    status, _, body = _get(server.port, f"http://{A}/gone")
    assert status == 410 and body == b"gone"
    status, headers, body = _get(server.port, f"http://{A}/style.css")
    assert status == 200 and headers["content-type"] == "text/css" and body == b"body{}"


def test_not_found_and_unknown_host(server: ServerHandle) -> None:
    assert _get(server.port, f"http://{A}/nothing.html")[0] == 404
    assert _get(server.port, f"http://{A}/old?x=2")[0] == 404  # the query is part of the URL
    status, _, body = _get(server.port, "http://unknown.test/")
    assert status == 502 and b"unknown.test" in body
    assert _get(server.port, "http://unknown.test/robots.txt")[0] == 502


def test_url_normalisation(server: ServerHandle) -> None:
    assert _get(server.port, f"http://{A.upper()}:80/en/a.html#frag")[0] == 200  # host case, default port
    assert _get(server.port, f"http://{A}/%7Euser/")[0] == 200  # percent-encoding of unreserved chars
    assert _get(server.port, f"http://{A}")[0] == 200  # empty path = /


def test_head_and_methods(server: ServerHandle) -> None:
    status, headers, body = _get(server.port, f"http://{A}/en/a.html", method="HEAD")
    assert status == 200 and body == b"" and int(headers["content-length"]) == len(b"<html><body>English page</body></html>")
    status, headers, _ = _get(server.port, f"http://{A}/", method="POST")
    assert status == 405 and headers["allow"] == "GET, HEAD"
    status, _, _ = _get(server.port, f"{A}:443", method="CONNECT")  # https tunnels: unreachable
    assert status == 502


def test_malformed_request_gets_400(server: ServerHandle) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"NONSENSE\r\n\r\n")
        data = sock.recv(4096)
    assert data.startswith(b"HTTP/1.1 400 ")
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"GET /no-host HTTP/1.1\r\n\r\n")
        assert sock.recv(4096).startswith(b"HTTP/1.1 400 ")


def test_request_log_is_jsonl(webs: list[Path], tmp_path: Path) -> None:
    log = tmp_path / "log" / "req.jsonl"
    with serve_webs(webs, log_path=log) as handle:
        _get(handle.port, f"http://{A}/en/a.html")
        _get(handle.port, f"http://{A}/missing")
        _get(handle.port, "/", {"Host": C})
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["method"], r["url"], r["status"]) for r in records] == [
        ("GET", f"http://{A}/en/a.html", 200),
        ("GET", f"http://{A}/missing", 404),
        ("GET", f"http://{C}/", 200),
    ]
    first = records[0]
    assert set(first) == {"time", "client", "method", "url", "status", "bytes", "latency_ms", "injected"}
    assert first["client"].startswith("127.0.0.1:") and first["bytes"] == len(b"<html><body>English page</body></html>")
    assert first["latency_ms"] >= 0 and first["injected"] is False
    assert handle.stats() == {200: 2, 404: 1}


def test_injected_errors_are_seeded_and_per_host(webs: list[Path]) -> None:
    def statuses(seed: int) -> list[int]:
        with serve_webs(webs, error_rate=0.5, seed=seed, host_policies={C: Policy(error_rate=0.0)}) as h:
            out = [_get(h.port, f"http://{A}/")[0] for _ in range(40)]
            assert all(_get(h.port, f"http://{C}/")[0] == 200 for _ in range(10))  # override: no errors
            assert all(_get(h.port, f"http://{A}/robots.txt")[0] == 200 for _ in range(10))  # robots spared
            return out

    first, again = statuses(7), statuses(7)
    assert first == again
    assert set(first) == {200, 500, 503}
    with serve_webs(webs, error_rate=1.0) as h:
        status, headers, _ = _get(h.port, f"http://{A}/en/a.html")
        assert status in (500, 503)
        if status == 503:
            assert headers["retry-after"] == "1"


def test_latency_with_per_host_override(webs: list[Path]) -> None:
    with serve_webs(webs, latency_ms=150, jitter_ms=20, host_policies={C: Policy()}) as h:
        _get(h.port, f"http://{C}/")  # warm the connection path
        t0 = time.perf_counter()
        assert _get(h.port, f"http://{A}/")[0] == 200
        slow = time.perf_counter() - t0
        t0 = time.perf_counter()
        assert _get(h.port, f"http://{C}/")[0] == 200
        fast = time.perf_counter() - t0
    assert slow >= 0.15
    assert fast < 0.1


def test_unknown_host_status_404_option(webs: list[Path]) -> None:
    with serve_webs(webs, unknown_host_status=404) as h:
        assert _get(h.port, "http://nowhere.test/")[0] == 404


def test_stop_frees_the_port(webs: list[Path]) -> None:
    with serve_webs(webs) as h:
        port = h.port
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", f"http://{A}/")  # an open keep-alive connection must not block the stop
        conn.getresponse().read()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    conn.close()


def test_duplicate_host_and_bad_dir_are_refused(webs: list[Path], tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="two webs"):
        TestbedServer([webs[0], webs[0]])
    with pytest.raises(FileNotFoundError):
        TestbedServer([tmp_path])


def test_cli_host_overrides() -> None:
    args = build_parser().parse_args([
        "serve", "w", "--latency-ms", "10", "--error-rate", "0.1", "--host-latency", "A.test=50+5",
        "--host-error-rate", "b.test=0.5",
    ])
    config = build_config(args)
    assert isinstance(config, ServerConfig)
    assert config.policy == Policy(10, 0, 0.1)
    assert config.policy_for("a.test") == Policy(50, 5, 0.1)
    assert config.policy_for("b.test") == Policy(10, 0, 0.5)


def test_cli_serves_until_sigterm(webs: list[Path], tmp_path: Path) -> None:
    port_file = tmp_path / "port"
    log = tmp_path / "req.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "smartcrawl.web", "serve", *map(str, webs), "--port", "0", "--port-file",
         str(port_file), "--log", str(log)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        deadline = time.time() + 60
        while not (port_file.exists() and port_file.read_text().strip()):
            assert proc.poll() is None and time.time() < deadline, "server did not start"
            time.sleep(0.05)
        port = int(port_file.read_text())
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": f"http://127.0.0.1:{port}"}))
        with opener.open(f"http://{C}/", timeout=10) as resp:
            assert resp.read() == b"gamma"
        with pytest.raises(urllib.error.HTTPError) as err:
            opener.open(f"http://{A}/missing", timeout=10)
        assert err.value.code == 404
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=20)
    assert proc.returncode == 0, out
    assert b"serving 3 hosts" in out
    assert len(log.read_text().splitlines()) == 2


def test_pipelined_requests_and_idle_timeout(webs: list[Path]) -> None:
    with ServerHandle(webs, ServerConfig(idle_timeout_s=0.3)).start() as h:
        with socket.create_connection(("127.0.0.1", h.port), timeout=5) as sock:
            sock.sendall(f"GET http://{C}/ HTTP/1.1\r\n\r\nGET http://{B}/ HTTP/1.1\r\nConnection: close\r\n\r\n".encode())
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        assert data.count(b"HTTP/1.1 200 OK") == 2 and data.endswith(b"beta home")
        with socket.create_connection(("127.0.0.1", h.port), timeout=5) as sock:
            time.sleep(0.6)
            assert sock.recv(100) == b""  # closed by the server after the idle timeout


def test_busy_port_is_reported(webs: list[Path]) -> None:
    with serve_webs(webs) as h:
        with pytest.raises(OSError):
            serve_webs(webs, port=h.port).__enter__()
