"""A Keystone that trickles its answer, end to end: ``openstack vim
register`` (the real client) gets a clear refusal within vnfm's deadline,
and nothing is registered."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.unit.clients import peers
from vnfm.testing import procs
from vnfm.testing.client import ClientError
from vnfm.testing.client import TackerClient

pytestmark = pytest.mark.timeout(180)

#: [openstack] request_timeout of the services under test.
DEADLINE = 2
trickling_http = peers.trickling_http  # the fixture


@pytest.fixture(scope='module')
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TackerClient]:
    """The real client on vnfm-api and one conductor whose Keystone
    requests may take ``DEADLINE`` seconds, and that may reach loopback."""
    svc = procs.VnfmServices(
        tmp_path_factory.mktemp('vnfm-slow-peers'),
        conf={
            'openstack': {'request_timeout': DEADLINE},
            'outbound': {'allowed_networks': '127.0.0.1/32'},
        },
    )
    try:
        svc.start(conductors=1)
        yield TackerClient(svc.api_url)
    finally:
        svc.stop()


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

    with pytest.raises(ClientError) as caught:
        client.run('vim', 'register', '--config-file', str(config), name)

    took = time.monotonic() - started
    assert took < DEADLINE + 10, f'the registration took {took:.0f} s'
    assert trickling_http.accepted >= 1
    assert f'Keystone at {keystone}' in caught.value.output
    assert f'no complete answer within {DEADLINE} s' in caught.value.output
    assert name not in client.run('vim', 'list')
