"""VIMs that trickle their answers, end to end with the real client:
``openstack vim register`` of a VIM whose Keystone trickles gets a clear
refusal within vnfm's deadline and registers nothing; an instantiation
waiting on a Kubernetes API server that trickles ends at once on
``openstack vnflcm op cancel --cancel-mode FORCEFUL``."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.integration.conftest import SAMPLES
from tests.integration.conftest import Api
from tests.integration.test_cancel import _cancel
from tests.unit.clients import peers
from vnfm.csar.build import build_csar
from vnfm_testbed import procs
from vnfm_testbed.client import ClientError
from vnfm_testbed.client import TackerClient

pytestmark = pytest.mark.timeout(180)

#: [openstack] request_timeout of the services under test.
DEADLINE = 2
#: [kubernetes] request_timeout: what a cancel must not wait for.
LONG = 120
CNF_VNFD_ID = '7c2a4d1e-3b5f-4e8a-9c61-2f0d8e4b5a10'
trickling_http = peers.trickling_http  # the fixture


@pytest.fixture(scope='module')
def services(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[procs.VnfmServices]:
    """vnfm-api and one conductor whose Keystone requests may take
    ``DEADLINE`` seconds and Kubernetes requests ``LONG``; loopback is
    reachable."""
    svc = procs.VnfmServices(
        tmp_path_factory.mktemp('vnfm-slow-peers'),
        conf={
            'openstack': {'request_timeout': DEADLINE},
            'kubernetes': {'request_timeout': LONG},
            'infra': {'enabled_infra_drivers': 'kubernetes'},
            'outbound': {'allowed_networks': '127.0.0.1/32'},
        },
    )
    try:
        svc.start(conductors=1)
        yield svc
    finally:
        svc.stop()


@pytest.fixture(scope='module')
def client(services: procs.VnfmServices) -> TackerClient:
    """The real ``openstack`` client pointed at vnfm-api."""
    return TackerClient(services.api_url)


@pytest.fixture(scope='module')
def api(
    services: procs.VnfmServices, tmp_path_factory: pytest.TempPathFactory
) -> Api:
    return Api(services.api_url, tmp_path_factory.mktemp('hooks') / 'h')


def test_registering_a_vim_whose_keystone_trickles_fails_in_time(
    client: TackerClient, trickling_http: peers.Peer, tmp_path: Path
) -> None:
    keystone = f'{trickling_http.url}/v3'
    config = tmp_path / 'vim.yaml'
    config.write_text(
        yaml.safe_dump(
            {
                'auth_url': keystone,
                'username': 'demo',
                'password': 'pw',
                'project_name': 'demo',
                'project_domain_name': 'Default',
                'user_domain_name': 'Default',
            }
        )
    )
    name = f'slow-{uuid.uuid4().hex[:8]}'
    started = time.monotonic()
    client.run('vim', 'list')  # what the client itself takes, for scale
    client_alone = time.monotonic() - started
    started = time.monotonic()

    with pytest.raises(ClientError) as caught:
        client.run('vim', 'register', '--config-file', str(config), name)

    took = time.monotonic() - started - client_alone
    assert took < DEADLINE + 5, f'the registration took {took:.0f} s more'
    assert trickling_http.accepted >= 1
    assert f'Keystone at {keystone}' in caught.value.output
    assert f'no complete answer within {DEADLINE} s' in caught.value.output
    assert name not in client.run('vim', 'list')


def test_forceful_cancel_ends_an_op_waiting_on_a_trickling_kubernetes(
    api: Api, client: TackerClient, trickling_http: peers.Peer, tmp_path: Path
) -> None:
    csar = tmp_path / 'cnf.zip'
    csar.write_bytes(build_csar(str(SAMPLES / 'cnf_simple')))
    api.onboard(csar)
    inst_id = api.create_instance(CNF_VNFD_ID, 'slow-k8s')
    vim = {
        'vimType': 'ETSINFV.KUBERNETES.V_1',
        'interfaceInfo': {
            'endpoint': trickling_http.url,
            'skip_tls_verify': True,
        },
        'accessInfo': {'bearer_token': 'token-1'},
    }
    files = [f'Files/kubernetes/{n}.yaml' for n in ('configmap', 'pod')]
    op_id = api.start(
        inst_id,
        'instantiate',
        {
            'flavourId': 'simple',
            'vimConnectionInfo': {'vim1': vim},
            'additionalParams': {'lcm-kubernetes-def-files': files},
        },
    )
    api.wait_for(
        lambda: trickling_http.accepted, 30, 'the op asking the API server'
    )

    _cancel(client, op_id, '--cancel-mode', 'FORCEFUL')
    started = time.monotonic()
    op = api.wait_op(op_id, 'FAILED_TEMP', timeout=15)

    assert time.monotonic() - started < LONG / 8
    assert op['error']['title'] == 'Cancelled', op['error']
    assert 'Cancelled (FORCEFUL)' in op['error']['detail']
    assert 'interrupted by a FORCEFUL cancel' in op['error']['detail']
    assert trickling_http.url in op['error']['detail']
