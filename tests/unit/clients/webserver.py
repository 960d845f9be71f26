"""A small HTTP server on 127.0.0.1 for download tests: GET routes a test
sets, each request's path and Authorization header recorded."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from typing import NamedTuple

import pytest


class _Handler(http.server.BaseHTTPRequestHandler):
    routes: dict = {}
    seen: list = []

    def do_GET(self):  # noqa: N802 (http.server API)
        self.seen.append((self.path, self.headers.get('Authorization')))
        status, headers, body = self.routes.get(self.path, (404, {}, b''))
        self.send_response(status)
        for name, value in {
            **headers,
            'Content-Length': str(len(body)),
        }.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Web(NamedTuple):
    """``routes``: path -> (status, headers, body); ``seen``: (path,
    Authorization) of each request, in order."""

    base: str
    port: int
    routes: dict
    seen: list


@pytest.fixture
def web() -> Iterator[Web]:
    """A started server, stopped after the test."""
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Handler)
    _Handler.routes, _Handler.seen = {}, []
    thread = threading.Thread(
        target=server.serve_forever, args=(0.05,), daemon=True
    )
    thread.start()
    port = server.server_address[1]
    yield Web(f'http://127.0.0.1:{port}', port, _Handler.routes, _Handler.seen)
    server.shutdown()
    server.server_close()
