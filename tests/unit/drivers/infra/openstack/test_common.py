"""The Heat session of a step obeys the outbound policy for VIMs."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.lcm.fixtures import conf  # noqa: F401 (a fixture)
from vnfm.clients import openstack
from vnfm.drivers.infra.openstack import common
from vnfm_testbed import procs


class _Ctx:
    def __init__(self, endpoint: str) -> None:
        self.vim = {
            'vimType': 'ETSINFV.OPENSTACK_KEYSTONE.V_3',
            'interfaceInfo': {'endpoint': endpoint},
            'accessInfo': {
                'username': 'u',
                'password': 'pw',
                'project': 'p',
            },
        }

    def vim_connection(self) -> tuple[str, dict[str, Any]]:
        return 'vim-1', self.vim


def test_a_vim_in_a_denied_network_is_refused_by_policy(conf):  # noqa: F811
    # A vimConnectionInfo of a request names its endpoint itself: without
    # the policy, an operation could reach vnfm's own network.
    url = f'http://127.0.0.1:{procs.free_port()}/v3'
    with (
        common.heat_for(_Ctx(url)) as (_, heat),  # type: ignore[arg-type]
        pytest.raises(openstack.OpenStackError) as e,
    ):
        heat.find('stack')
    assert e.value.detail == (
        'Could not show stack stack: refused by policy: 127.0.0.1 resolves '
        'to an address vnfm does not connect to ([outbound] '
        'vim_allowed_networks).'
    )


def test_vim_allowed_networks_lets_the_session_connect(conf):  # noqa: F811
    conf('vim_allowed_networks', ['127.0.0.0/8'], 'outbound')
    url = f'http://127.0.0.1:{procs.free_port()}/v3'
    with (
        common.heat_for(_Ctx(url)) as (_, heat),  # type: ignore[arg-type]
        pytest.raises(openstack.OpenStackError) as e,
    ):
        heat.find('stack')
    assert 'policy' not in e.value.detail
    assert 'Unable to establish connection' in e.value.detail
