"""Loopback server for the test bed: one HTTP proxy process that serves every test-bed site by host name.

Use it from Python with :func:`serve_webs` (a background thread) or from the shell with
``python -m smartcrawl.web serve WEB_DIR [WEB_DIR...] --port 8080``; point a client at it as an
HTTP proxy (``http_proxy=http://127.0.0.1:8080``) and fetch the sites' original ``http://`` URLs.
"""

from smartcrawl.web.server.app import TestbedServer
from smartcrawl.web.server.config import Policy, ServerConfig
from smartcrawl.web.server.control import ServerHandle, serve_webs, start_server

__all__ = ["Policy", "ServerConfig", "ServerHandle", "TestbedServer", "serve_webs", "start_server"]
