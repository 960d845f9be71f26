"""The check made before a VIM is registered: the outbound policy holds
for VIM endpoints ([outbound] vim_allowed_networks opens clouds' private
networks) and a Keystone's answer is never echoed to the API user."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator

import pytest

from vnfm.common import crypto
from vnfm.conductor import vims
from vnfm_testbed import procs

_PAGE = 'INTERNAL-ADMIN-PAGE secret=hunter2-on-the-inside'
#: The page as text and as Keystone's JSON error (whose message
#: keystoneauth puts into its exception).
_BODIES = {
    'text/plain': _PAGE.encode(),
    'application/json': json.dumps(
        {'error': {'code': 403, 'message': _PAGE, 'title': 'Forbidden'}}
    ).encode(),
}


class _Keystone(http.server.BaseHTTPRequestHandler):
    """Answers every request 403 with an internal page."""

    seen: list[str] = []
    content_type = 'text/plain'

    def do_POST(self):  # noqa: N802 (http.server API)
        self.seen.append(self.path)
        body = _BODIES[self.content_type]
        self.send_response(403)
        self.send_header('Content-Type', self.content_type)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def keystone() -> Iterator[str]:
    """The URL of a Keystone on loopback that answers 403 and a page."""
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Keystone)
    _Keystone.seen = []
    thread = threading.Thread(
        target=server.serve_forever, args=(0.05,), daemon=True
    )
    thread.start()
    yield f'http://127.0.0.1:{server.server_address[1]}/v3'
    server.shutdown()
    server.server_close()


def _vim(auth_url: str) -> dict:
    return {
        'type': 'openstack',
        'auth_url': auth_url,
        'vim_project': {'name': 'demo'},
        'auth_cred': crypto.encrypt({'username': 'u', 'password': 'pw'}),
        'extra': {},
    }


def test_a_vim_in_a_denied_network_is_refused_by_policy(keystone, conf):
    detail = vims.check(_vim(keystone))
    assert detail == (
        f'POST {keystone} (Keystone) refused by policy: '
        '127.0.0.1 resolves to an address vnfm does not connect to.'
    )
    assert _Keystone.seen == []


@pytest.mark.parametrize('content_type', _BODIES)
def test_vim_allowed_networks_opens_a_network_to_vims(
    keystone, conf, content_type
):
    conf('vim_allowed_networks', ['127.0.0.0/8'], 'outbound')
    _Keystone.content_type = content_type
    detail = vims.check(_vim(keystone))
    assert detail is not None
    assert _Keystone.seen == ['/v3/auth/tokens']
    # What Keystone said is the operator's to read, not the API user's.
    assert 'INTERNAL' not in detail and 'secret' not in detail
    assert detail.startswith(f'Keystone at {keystone} answered HTTP 403')


def test_a_vim_that_does_not_answer_is_unreachable(conf):
    conf('vim_allowed_networks', ['127.0.0.0/8'], 'outbound')
    url = f'http://127.0.0.1:{procs.free_port()}/v3'
    detail = vims.check(_vim(url))
    assert detail == (
        f'POST {url} (Keystone) failed: unreachable (no '
        'connection, no answer, or no TLS session).'
    )
