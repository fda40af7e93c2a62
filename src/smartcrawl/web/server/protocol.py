"""The small part of HTTP/1.1 the test-bed server speaks: request heads in, whole responses out.

Requests come in absolute form (``GET http://host/path HTTP/1.1``, as a forward proxy sees them) or
in origin form with a ``Host`` header (``GET /path``). Ports are dropped: every test-bed site is
``http`` on its default port.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from http import HTTPStatus
from urllib.parse import urlsplit

from smartcrawl.web.store import page_key


class BadRequest(ValueError):
    """A request the server cannot parse; ``status`` is the response to send before closing."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Request:
    """A parsed request head."""

    method: str
    target: str
    version: str
    headers: dict[str, str]

    @property
    def keep_alive(self) -> bool:
        """Whether the connection stays open after the response (HTTP/1.1 default, or 1.0 + keep-alive)."""
        conn = (self.headers.get("connection") or self.headers.get("proxy-connection") or "").lower()
        if self.version == "HTTP/1.1":
            return "close" not in conn
        return "keep-alive" in conn

    @property
    def content_length(self) -> int:
        """The declared body length (0 when none)."""
        raw = self.headers.get("content-length", "0").strip() or "0"
        if not raw.isdigit():
            raise BadRequest(400, "bad Content-Length")
        return int(raw)


def parse_head(head: bytes) -> Request:
    """Parse the request line and headers (``head`` ends with the blank line)."""
    try:
        text = head.decode("latin-1")
    except UnicodeDecodeError as exc:  # pragma: no cover - latin-1 decodes every byte
        raise BadRequest(400, "undecodable head") from exc
    lines = text.split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise BadRequest(400, f"bad request line {lines[0][:100]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise BadRequest(400, f"bad header line {line[:100]!r}")
        headers[name.strip().lower()] = value.strip()
    if "chunked" in headers.get("transfer-encoding", "").lower():
        raise BadRequest(501, "chunked request bodies are not supported")
    return Request(method=parts[0].upper(), target=parts[1], version=parts[2], headers=headers)


def request_url(req: Request) -> tuple[str, str]:
    """(host, normalised absolute URL) of a request; the host is lower-case, without port."""
    target = req.target
    if target.startswith("/"):
        host_header = req.headers.get("host", "")
        if not host_header:
            raise BadRequest(400, "origin-form request without a Host header")
        target = f"http://{host_header}{target}"
    elif "://" not in target:
        raise BadRequest(400, f"unsupported request target {target[:100]!r}")
    try:
        parts = urlsplit(target)
        host = (parts.hostname or "").lower()
    except ValueError as exc:
        raise BadRequest(400, f"bad URL {target[:100]!r}") from exc
    if not host:
        raise BadRequest(400, f"no host in {target[:100]!r}")
    url = page_key(parts._replace(netloc=host).geturl())
    return host, url


def response_head(status: int, headers: list[tuple[str, str]]) -> bytes:
    """Status line and headers of a response, with the closing blank line."""
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = "Unknown"
    lines = [f"HTTP/1.1 {status} {reason}"]
    lines.extend(f"{name}: {value}" for name, value in headers)
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def message_body(status: int, detail: str = "") -> bytes:
    """A short HTML body for a response the server makes itself (404, 502, injected errors)."""
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Error"
    text = escape(f"{status} {phrase}" + (f": {detail}" if detail else ""))
    return f"<!DOCTYPE html><html><head><title>{status} {phrase}</title></head><body><p>{text}</p></body></html>\n".encode(
        "utf-8", errors="replace"
    )
