"""Calls of every kind of peer vnfm talks to (Keystone, Heat, the
Kubernetes API, SSH, callback receivers, download servers), each made the
way vnfm makes it, for the slow-and-lying-peers tests; a Keystone that
sends Heat's endpoint wherever a test wants; short deadlines."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Callable, Iterator

import pytest

from vnfm.clients import http as vnfm_http
from vnfm.clients import kubernetes as k8s
from vnfm.clients import openstack
from vnfm.clients import outbound
from vnfm.clients import ssh
from vnfm.common import exceptions

from .peers import Peer

#: The total deadline the tests configure, and how much later than it a
#: call may end (thread wake-ups on a loaded machine).
TOTAL, SLACK = 1.0, 2.0
OPEN = outbound.Policy()


class Keystone(http.server.BaseHTTPRequestHandler):
    """A Keystone whose catalog puts Heat at ``heat_url``."""

    heat_url = ''

    def do_POST(self) -> None:  # noqa: N802 (http.server API)
        self.rfile.read(int(self.headers['Content-Length']))
        endpoint = {
            'interface': 'public',
            'region': 'RegionOne',
            'url': self.heat_url,
        }
        names = {'id': 'p1', 'name': 'demo', 'domain': {'id': 'default'}}
        token = {
            'expires_at': '2999-01-01T00:00:00.000000Z',
            'project': names,
            'user': {**names, 'id': 'u1'},
            'catalog': [{'type': 'orchestration', 'endpoints': [endpoint]}],
        }
        data = json.dumps({'token': token}).encode()
        self.send_response(201)
        self.send_header('X-Subject-Token', 'tok')
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def keystone() -> Iterator[type[Keystone]]:
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Keystone)
    thread = threading.Thread(
        target=server.serve_forever, args=(0.05,), daemon=True
    )
    thread.start()
    Keystone.url = f'http://127.0.0.1:{server.server_address[1]}/v3'
    yield Keystone
    server.shutdown()
    server.server_close()


def _openstack_vim(endpoint: str) -> dict:
    return {
        'vimType': 'ETSINFV.OPENSTACK_KEYSTONE.V_3',
        'interfaceInfo': {'endpoint': endpoint},
        'accessInfo': {
            'username': 'demo',
            'password': 'pw',
            'project': 'demo',
            'region': 'RegionOne',
        },
    }


def _keystone_call(peer: Peer, keystone: type[Keystone]) -> None:
    with openstack.Connection(_openstack_vim(f'{peer.url}/v3')) as conn:
        conn.authenticate()


def _heat_call(peer: Peer, keystone: type[Keystone]) -> None:
    keystone.heat_url = f'{peer.url}/heat/v1/p1'
    with openstack.Connection(_openstack_vim(keystone.url)) as conn:
        openstack.Heat(conn).get('vnf-x/1')


def _kubernetes_call(peer: Peer, keystone: type[Keystone]) -> None:
    vim = {
        'interfaceInfo': {'endpoint': peer.url, 'skip_tls_verify': True},
        'accessInfo': {'bearer_token': 't'},
    }
    with k8s.KubeClient(vim, OPEN) as kube:
        kube.get('v1', 'Pod', 'p', 'default')


def _notification_call(peer: Peer, keystone: type[Keystone]) -> None:
    vnfm_http.post_notification(
        f'{peer.url}/cb',
        {'notificationType': 'VnfLcmOperationOccurrenceNotification'},
        version='2.0.0',
        authentication=None,
        timeout=TOTAL,
        policy=OPEN,
    )


def _callback_test_call(peer: Peer, keystone: type[Keystone]) -> None:
    vnfm_http.test_notification_endpoint(
        f'{peer.url}/cb',
        version='2.0.0',
        authentication=None,
        timeout=TOTAL,
        policy=OPEN,
    )


def _download_call(peer: Peer, keystone: type[Keystone]) -> None:
    vnfm_http.download(
        f'{peer.url}/pkg.zip',
        timeout=TOTAL,
        max_size=10**6,
        allowed_schemes=['http'],
        policy=OPEN,
    )


def _ssh_call(peer: Peer, keystone: type[Keystone]) -> None:
    timeouts = ssh.Timeouts(
        connect=TOTAL, banner=TOTAL, auth=TOTAL, boot=0, command=TOTAL
    )
    target = ssh.Target('127.0.0.1', 'u', port=peer.port, password='p')
    with ssh.connect(target, OPEN, timeouts) as session:
        session.run('true', 'check the VM')


CALLS: dict[str, Callable[[Peer, type[Keystone]], None]] = {
    'keystone': _keystone_call,
    'heat': _heat_call,
    'kubernetes': _kubernetes_call,
    'notification': _notification_call,
    'callback-test': _callback_test_call,
    'download': _download_call,
    'ssh': _ssh_call,
}
ERRORS = (
    exceptions.VnfmError,
    vnfm_http.DeliveryError,
    vnfm_http.DownloadError,
)


@pytest.fixture
def short_deadlines(conf):
    conf('request_timeout', TOTAL, group='openstack')
    conf('connect_timeout', TOTAL, group='openstack')
    conf('request_timeout', TOTAL, group='kubernetes')
    conf('connect_timeout', TOTAL, group='kubernetes')
