"""vnfm.clients.openstack.connection: a Keystone session from a VIM, one
token per operation, requests counted, clear errors."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator

import pytest

from vnfm.clients import openstack
from vnfm.clients.openstack import connection
from vnfm_testbed import procs

PASSWORD = 's3cret-pw'


class _Cloud(http.server.BaseHTTPRequestHandler):
    """Keystone's token API and one Heat URL on one port."""

    seen: list[tuple[str, str, str | None]] = []

    def _reply(
        self, status: int, body: dict, headers: dict | None = None
    ) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        for k, v in {
            **(headers or {}),
            'Content-Type': 'application/json',
        }.items():
            self.send_header(k, v)
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:  # noqa: N802 (http.server API)
        length = int(self.headers['Content-Length'])
        body = json.loads(self.rfile.read(length))
        self.seen.append(('POST', self.path, None))
        user = body['auth']['identity']['password']['user']
        if user['password'] != PASSWORD:
            self._reply(401, {'error': {'code': 401, 'message': 'nope'}})
            return
        base = f'http://127.0.0.1:{self.server.server_address[1]}'
        token = {
            'token': {
                'expires_at': '2999-01-01T00:00:00.000000Z',
                'project': {
                    'id': 'p1',
                    'name': 'demo',
                    'domain': {'id': 'default'},
                },
                'user': {
                    'id': 'u1',
                    'name': 'demo',
                    'domain': {'id': 'default'},
                },
                'catalog': [
                    {
                        'type': 'orchestration',
                        'name': 'heat',
                        'endpoints': [
                            {
                                'interface': 'public',
                                'region': 'RegionOne',
                                'url': f'{base}/heat/v1/p1',
                            }
                        ],
                    }
                ],
            }
        }
        self._reply(201, token, {'X-Subject-Token': 'tok-1'})

    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        self.seen.append(('GET', self.path, self.headers.get('X-Auth-Token')))
        self._reply(200, {'stacks': []})

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def cloud() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Cloud)
    _Cloud.seen = []
    thread = threading.Thread(
        target=server.serve_forever, args=(0.05,), daemon=True
    )
    thread.start()
    yield f'http://127.0.0.1:{server.server_address[1]}'
    server.shutdown()
    server.server_close()


def _vim(endpoint: str, password: str = PASSWORD) -> dict:
    return {
        'vimType': 'ETSINFV.OPENSTACK_KEYSTONE.V_3',
        'interfaceInfo': {'endpoint': endpoint},
        'accessInfo': {
            'username': 'demo',
            'password': password,
            'project': 'demo',
            'region': 'RegionOne',
        },
    }


def test_one_token_serves_every_request_of_a_connection(cloud: str) -> None:
    with openstack.Connection(_vim(f'{cloud}/identity/v3')) as conn:
        assert conn.authenticate() == 'p1'
        heat = openstack.Heat(conn)
        heat.client.stacks.list()
        list(heat.client.stacks.list())
        counts = conn.counts
    posts = [s for s in _Cloud.seen if s[0] == 'POST']
    gets = [s for s in _Cloud.seen if s[0] == 'GET']
    assert [p[1] for p in posts] == ['/identity/v3/auth/tokens']
    assert gets and all(g[1].startswith('/heat/v1/p1/stacks') for g in gets)
    assert {g[2] for g in gets} == {'tok-1'}
    assert counts == {'keystone': 1, 'heat': len(gets)}


def test_a_wrong_password_is_a_clear_error(cloud: str) -> None:
    with (
        openstack.Connection(_vim(f'{cloud}/v3', 'wrong')) as conn,
        pytest.raises(openstack.OpenStackError) as caught,
    ):
        conn.authenticate()
    assert 'refused the credentials' in caught.value.detail
    assert 'wrong' not in caught.value.detail


def test_an_unreachable_keystone_is_a_clear_error() -> None:
    unused_port = procs.free_port()
    with (
        openstack.Connection(
            _vim(f'http://127.0.0.1:{unused_port}/v3')
        ) as conn,
        pytest.raises(openstack.OpenStackError) as caught,
    ):
        conn.authenticate()
    assert f'127.0.0.1:{unused_port}' in caught.value.detail


@pytest.mark.parametrize(
    ('vim', 'words'),
    [
        ({'interfaceInfo': {'endpoint': 'ftp://x'}}, 'http(s)://'),
        (
            {'interfaceInfo': {'endpoint': 'http://x/v3'}},
            'username and password',
        ),
        (
            {
                'interfaceInfo': {'endpoint': 'http://x/v3'},
                'accessInfo': {'username': 'u', 'password': 'p'},
            },
            'project',
        ),
    ],
)
def test_a_bad_vim_connection_is_refused(vim: dict, words: str) -> None:
    with pytest.raises(openstack.BadVimConnection) as caught:
        openstack.Connection(vim)
    assert words in caught.value.detail


def test_tls_is_verified_unless_the_vim_opts_out() -> None:
    pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'
    verify = connection._verify
    assert verify({}) is True
    assert verify({'skipCertificateVerification': True}) is False
    assert verify({'skipCertificateHostnameCheck': 'true'}) is False
    path = verify({'ssl_ca_cert': pem})
    assert isinstance(path, str)
    with open(path) as f:
        assert f.read() == pem
    assert verify({'trustedCertificates': [pem]}) == path
