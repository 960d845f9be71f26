"""A notification receiver on 127.0.0.1 for tests: records every POST to
its callbackUri, answers with the statuses a test queues (204 otherwise),
records the GETs that test the callbackUri (SOL003 5.4.20.3.2) and
serves an OAuth 2.0 client-credentials token endpoint at ``/token``.

With ``tls`` (see ``make_tls``) it serves HTTPS and records the subject of
the client certificate each request came with (mutual TLS, SOL013
TLS_CERT).

Also used by tests/integration/test_notifications.py.
"""

from __future__ import annotations

import base64
import datetime
import json
import ssl
import threading
import time
from collections.abc import Iterator
from http import server
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID
from cryptography.x509.oid import NameOID

from vnfm_testbed.k8s import certs


class TlsFiles(NamedTuple):
    """PEM files of a test CA, a receiver and a vnfm client certificate."""

    ca: str
    server_cert: str
    server_key: str
    client_cert: str
    client_key: str


def make_tls(directory: Path, client_cn: str = 'vnfm') -> TlsFiles:
    """A CA, a serving certificate for 127.0.0.1 and a client certificate
    (``client_cn``) signed by it, written to ``directory``."""
    ca = certs.make_ca('receiver-test-ca')
    serving = certs.make_serving_cert(ca, 'receiver', ['127.0.0.1'])
    client = _client_cert(ca, client_cn)
    files = {}
    for name, data in (
        ('ca', ca.cert_pem),
        ('server_cert', serving.cert_pem),
        ('server_key', serving.key_pem),
        ('client_cert', client.cert_pem),
        ('client_key', client.key_pem),
    ):
        path = directory / f'{name}.pem'
        certs.write_private(path, data)
        files[name] = str(path)
    return TlsFiles(**files)


def _client_cert(ca: certs.KeyPair, common_name: str) -> certs.KeyPair:
    """A certificate for TLS client authentication signed by ``ca``."""
    ca_cert = x509.load_pem_x509_certificate(ca.cert_pem)
    ca_key = serialization.load_pem_private_key(ca.key_pem, password=None)
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(
            x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
        )
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.BasicConstraints(ca=False, path_length=None), critical=True
        )
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())  # type: ignore[arg-type]
    )
    return certs.KeyPair(
        cert.public_bytes(serialization.Encoding.PEM),
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
    )


class Receiver:
    """Callback receiver and token endpoint; ``start()``/``stop()`` may be
    called again to bring it back on the same port."""

    def __init__(
        self,
        port: int = 0,
        tls: TlsFiles | None = None,
        host: str = '127.0.0.1',
    ) -> None:
        """``host``: the address to listen on (a bridge's, for services in
        network namespaces)."""
        self.host = host
        self.port = port
        self.tls = tls
        self.received: list[dict] = []
        # Statuses to answer the next POSTs with, in order; then 204.
        self.statuses: list[int] = []
        # The GETs that tested the callbackUri, and the statuses to answer
        # the next ones with, in order; then 204.
        self.tests: list[dict] = []
        self.test_statuses: list[int] = []
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
        return f'{self._scheme}://{self.host}:{self.port}/callback'

    @property
    def token_url(self) -> str:
        """The OAuth 2.0 token endpoint."""
        return f'{self._scheme}://{self.host}:{self.port}/token'

    @property
    def _scheme(self) -> str:
        return 'https' if self.tls else 'http'

    def start(self) -> Receiver:
        """Listen (on the same port as before, if started before)."""
        self._server = server.ThreadingHTTPServer(
            (self.host, self.port), _handler(self)
        )
        self._server.daemon_threads = True
        if self.tls:
            self._server.socket = self._tls_context().wrap_socket(
                self._server.socket, server_side=True
            )
        self.port = self._server.server_address[1]
        threading.Thread(
            target=self._server.serve_forever,
            kwargs={'poll_interval': 0.02},
            daemon=True,
        ).start()
        return self

    def _tls_context(self) -> ssl.SSLContext:
        """Client certificates of the test CA are asked for, not required:
        a request without one is recorded with ``client_cert`` None."""
        assert self.tls
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(self.tls.server_cert, self.tls.server_key)
        ctx.load_verify_locations(self.tls.ca)
        ctx.verify_mode = ssl.CERT_OPTIONAL
        return ctx

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
                        f'after {timeout}s: {self.bodies()}'
                    )
                self._cond.wait(left)
            return list(self.received[:count])

    def bodies(self) -> list[dict]:
        """The JSON bodies received so far."""
        with self._cond:
            return [r['body'] for r in self.received]

    def _record(
        self,
        path: str,
        headers: dict,
        body: Any,
        client_cert: str | None = None,
    ) -> int:
        with self._cond:
            if (
                self.required_auth is not None
                and headers.get('Authorization') != self.required_auth
            ):
                return 401
            status = self.statuses.pop(0) if self.statuses else 204
            if 200 <= status < 300:
                self.received.append(
                    {
                        'path': path,
                        'headers': headers,
                        'body': body,
                        'client_cert': client_cert,
                    }
                )
                self._cond.notify_all()
            return status

    def _test(self, path: str, headers: dict, client_cert: str | None) -> int:
        with self._cond:
            self.tests.append(
                {'path': path, 'headers': headers, 'client_cert': client_cert}
            )
            if (
                self.required_auth is not None
                and headers.get('Authorization') != self.required_auth
            ):
                return 401
            return self.test_statuses.pop(0) if self.test_statuses else 204

    def _token(self, headers: dict, form: str) -> tuple[int, dict]:
        with self._cond:
            self.token_requests += 1
        auth = headers.get('Authorization', '')
        try:
            client_id, secret = (
                base64.b64decode(auth.removeprefix('Basic '))
                .decode()
                .split(':', 1)
            )
        except ValueError:
            return 401, {'error': 'invalid_client'}
        if (
            'grant_type=client_credentials' not in form
            or self.clients.get(client_id) != secret
        ):
            return 401, {'error': 'invalid_client'}
        token = f'token-{client_id}-{self.token_requests}'
        self.required_auth = f'Bearer {token}'
        return 200, {
            'access_token': token,
            'token_type': 'Bearer',
            'expires_in': self.token_lifetime,
        }


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

        def _client_cert(self) -> str | None:
            """The CN of the client certificate, if one was presented."""
            if not isinstance(self.connection, ssl.SSLSocket):
                return None
            cert = self.connection.getpeercert()
            if not cert:
                return None
            return dict(pair[0] for pair in cert['subject'])['commonName']

        def do_POST(self) -> None:
            length = int(self.headers.get('Content-Length') or 0)
            raw = self.rfile.read(length).decode()
            headers = dict(self.headers.items())
            if self.path == '/token':
                self._answer(*receiver._token(headers, raw))
                return
            self._answer(
                receiver._record(
                    self.path,
                    headers,
                    json.loads(raw or 'null'),
                    self._client_cert(),
                )
            )

        def do_GET(self) -> None:  # the test of the callbackUri
            self._answer(
                receiver._test(
                    self.path, dict(self.headers.items()), self._client_cert()
                )
            )

    return Handler


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """A started Receiver, stopped after the test."""
    rcv = Receiver().start()
    yield rcv
    rcv.stop()
