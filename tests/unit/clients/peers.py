"""Slow and lying peers on 127.0.0.1: TCP servers that accept, then
trickle an answer one byte at a time for ever, or answer garbage.

``trickling_http``: an HTTP status line and headers that never end;
``trickling_body``: whole headers, then a body that never ends;
``trickling_banner``: an SSH banner that never ends; ``stalling_sshd``: an
SSH server that logs anyone in and never answers a command; ``garbage``:
bytes no protocol reads, then the connection is closed. Each peer counts the
connections it accepted and stops trickling when the test ends.
"""

from __future__ import annotations

import socket
import socketserver
import threading
from collections.abc import Iterator

import paramiko
import pytest

#: Seconds between two trickled bytes: well within any per-read timeout.
PACE = 0.1

TRICKLING_HTTP = (
    b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-',
    b'a',
)
TRICKLING_BODY = (
    b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n'
    b'Content-Length: 100000\r\n\r\n{"a": "',
    b'a',
)
TRICKLING_BANNER = (b'SSH-2.0-', b'a')
GARBAGE = (b'\x00\xff\x13\x37 not a protocol \x00\r\n\r\n\xfe' * 8, b'')


class Peer:
    """A misbehaving server: ``url`` and ``port`` to point a client at."""

    def __init__(self, prefix: bytes, filler: bytes) -> None:
        self.prefix, self.filler = prefix, filler
        self.accepted = 0
        self.stopped = threading.Event()
        self._lock = threading.Lock()
        peer = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                peer.serve(self.request)

        self.server = socketserver.ThreadingTCPServer(
            ('127.0.0.1', 0), Handler, bind_and_activate=True
        )
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f'http://127.0.0.1:{self.port}'
        self._thread = threading.Thread(
            target=self.server.serve_forever, args=(0.05,), daemon=True
        )
        self._thread.start()

    def serve(self, conn: socket.socket) -> None:
        """Answer one connection as this peer does."""
        with self._lock:
            self.accepted += 1
        conn.settimeout(PACE)
        try:
            # What the client says first does not matter: read and ignore.
            conn.recv(65536)
        except TimeoutError:
            pass  # an SSH client may wait for the server's banner first
        except OSError:
            return
        try:
            conn.sendall(self.prefix)
            while self.filler and not self.stopped.wait(PACE):
                conn.sendall(self.filler)
        except OSError:
            return  # the client gave up: what it should do

    def stop(self) -> None:
        """Stop trickling and serving."""
        self.stopped.set()
        self.server.shutdown()
        self.server.server_close()


def _peer(kind: tuple[bytes, bytes]) -> Iterator[Peer]:
    peer = Peer(*kind)
    try:
        yield peer
    finally:
        peer.stop()


@pytest.fixture
def trickling_http() -> Iterator[Peer]:
    """Headers that never end."""
    yield from _peer(TRICKLING_HTTP)


@pytest.fixture
def trickling_body() -> Iterator[Peer]:
    """Headers, then a body that never ends."""
    yield from _peer(TRICKLING_BODY)


@pytest.fixture
def trickling_banner() -> Iterator[Peer]:
    """An SSH banner that never ends."""
    yield from _peer(TRICKLING_BANNER)


@pytest.fixture
def garbage() -> Iterator[Peer]:
    """Bytes of no protocol, then the connection closes."""
    yield from _peer(GARBAGE)


@pytest.fixture(params=['trickling_http', 'trickling_body', 'garbage'])
def lying_http(request: pytest.FixtureRequest) -> Peer:
    """Each HTTP peer that lies or trickles, in turn."""
    return request.getfixturevalue(request.param)


class _StallingServer(paramiko.ServerInterface):
    """Lets anyone log in and open a session, then never answers a
    command (until the test ends)."""

    def __init__(self, stopped: threading.Event) -> None:
        self.stopped = stopped

    def get_allowed_auths(self, username: str) -> str:
        return 'password'

    def check_auth_password(self, username: str, password: str) -> int:
        return paramiko.AUTH_SUCCESSFUL

    def check_channel_request(self, kind: str, chanid: int) -> int:
        return paramiko.OPEN_SUCCEEDED

    def check_channel_exec_request(
        self, channel: object, command: bytes
    ) -> bool:
        self.stopped.wait()
        return False


class StallingSshd(Peer):
    """An SSH server (paramiko's) that logs anyone in, then stalls."""

    def __init__(self) -> None:
        self.host_key = paramiko.ECDSAKey.generate()
        self.transports: list[paramiko.Transport] = []
        super().__init__(b'', b'')

    def serve(self, conn: socket.socket) -> None:
        with self._lock:
            self.accepted += 1
        transport = paramiko.Transport(conn)
        self.transports.append(transport)
        transport.add_server_key(self.host_key)
        transport.start_server(server=_StallingServer(self.stopped))
        self.stopped.wait()

    def stop(self) -> None:
        super().stop()
        for transport in self.transports:
            transport.close()


@pytest.fixture
def stalling_sshd() -> Iterator[Peer]:
    """Logs in, then never answers a command."""
    peer = StallingSshd()
    try:
        yield peer
    finally:
        peer.stop()
