"""A notification receiver on 127.0.0.1 for tests: records every POST to
its callbackUri, answers with the statuses a test queues (204 otherwise),
and serves an OAuth 2.0 client-credentials token endpoint at ``/token``.

Also used by tests/integration/test_notifications.py.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from http import server
from typing import Any


class Receiver:
    """Callback receiver and token endpoint; ``start()``/``stop()`` may be
    called again to bring it back on the same port."""

    def __init__(self, port: int = 0) -> None:
        self.port = port
        self.received: list[dict] = []
        # Statuses to answer the next POSTs with, in order; then 204.
        self.statuses: list[int] = []
        # When set, a POST without this Authorization header gets 401.
        self.required_auth: str | None = None
        # client id -> secret the token endpoint accepts.
        self.clients: dict[str, str] = {}
        self.token_requests = 0
        self.token_lifetime = 3600
        self._cond = threading.Condition()
        self._server: server.ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        """The callbackUri."""
        return f'http://127.0.0.1:{self.port}/callback'

    @property
    def token_url(self) -> str:
        """The OAuth 2.0 token endpoint."""
        return f'http://127.0.0.1:{self.port}/token'

    def start(self) -> Receiver:
        """Listen (on the same port as before, if started before)."""
        self._server = server.ThreadingHTTPServer(
            ('127.0.0.1', self.port), _handler(self))
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever,
                         kwargs={'poll_interval': 0.02}, daemon=True).start()
        return self

    def stop(self) -> None:
        """Stop listening: connections are refused until ``start()``."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def wait(self, count: int, timeout: float = 10.0) -> list[dict]:
        """The first ``count`` notifications, once they have arrived."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self.received) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f'{len(self.received)} of {count} notifications '
                        f'after {timeout}s: {self.bodies()}')
                self._cond.wait(left)
            return list(self.received[:count])

    def bodies(self) -> list[dict]:
        """The JSON bodies received so far."""
        with self._cond:
            return [r['body'] for r in self.received]

    def _record(self, path: str, headers: dict, body: Any) -> int:
        with self._cond:
            if (self.required_auth is not None and
                    headers.get('Authorization') != self.required_auth):
                return 401
            status = self.statuses.pop(0) if self.statuses else 204
            if 200 <= status < 300:
                self.received.append(
                    {'path': path, 'headers': headers, 'body': body})
                self._cond.notify_all()
            return status

    def _token(self, headers: dict, form: str) -> tuple[int, dict]:
        with self._cond:
            self.token_requests += 1
        auth = headers.get('Authorization', '')
        try:
            client_id, secret = base64.b64decode(
                auth.removeprefix('Basic ')).decode().split(':', 1)
        except ValueError:
            return 401, {'error': 'invalid_client'}
        if ('grant_type=client_credentials' not in form or
                self.clients.get(client_id) != secret):
            return 401, {'error': 'invalid_client'}
        token = f'token-{client_id}-{self.token_requests}'
        self.required_auth = f'Bearer {token}'
        return 200, {'access_token': token, 'token_type': 'Bearer',
                     'expires_in': self.token_lifetime}


def _handler(receiver: Receiver) -> type:
    class Handler(server.BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _answer(self, status: int, body: dict | None = None) -> None:
            data = json.dumps(body).encode() if body is not None else b''
            self.send_response(status)
            if data:
                self.send_header('Content-Type', 'application/json')
            self.send_header('Content-Length', str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            length = int(self.headers.get('Content-Length') or 0)
            raw = self.rfile.read(length).decode()
            headers = dict(self.headers.items())
            if self.path == '/token':
                self._answer(*receiver._token(headers, raw))
                return
            self._answer(receiver._record(self.path, headers,
                                          json.loads(raw or 'null')))

        def do_GET(self) -> None:  # the SOL013 subscription test
            self._answer(204)

    return Handler
