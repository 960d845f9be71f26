"""Request flags of the MgmtDriver contract."""

from __future__ import annotations

import pytest

from vnfm.common import exceptions
from vnfm.drivers.mgmt import base


@pytest.mark.parametrize(
    'request_body, allowed',
    [
        ({'metadata': {'vnfm_disruption_allowed': True}}, True),
        ({'metadata': {'vnfm_disruption_allowed': 'true'}}, True),
        ({'additionalParams': {'vnfm_disruption_allowed': True}}, True),
        ({'metadata': {'vnfm_disruption_allowed': False}}, False),
        ({'metadata': {'vnfm_disruption_allowed': 1}}, False),
        ({'metadata': None}, False),
        ({}, False),
    ],
)
def test_disruption_allowed(request_body: dict, allowed: bool) -> None:
    assert base.is_disruption_allowed(request_body) is allowed


def test_waiting_is_shown_through_the_context() -> None:
    shown: list[str | None] = []
    ctx = base.HookContext(
        hook='modify_information_end',
        operation='MODIFY_INFO',
        vnf_instance={},
        vnf_lcm_op_occ={},
        request={},
        vim_connection_info={},
        vnfd={},
        package=None,  # type: ignore
        definition={},
        deadline=0.0,
        progress=shown.append,
    )
    ctx.show_waiting('waiting for eviction of Pod ns/p')
    ctx.show_waiting(None)
    assert shown == ['waiting for eviction of Pod ns/p', None]


@pytest.mark.parametrize(
    'vims',
    [
        [],
        {'add': []},
        {'register': [{'name': 'k8s'}]},
        {'delete': [1]},
    ],
)
def test_malformed_vim_changes_fail_naming_the_hook(vims):
    with pytest.raises(
        exceptions.OperationFailed, match='x hook returned vims'
    ):
        base.check_changes('x hook', {'vims': vims})


def test_a_vim_change_is_accepted():
    vim = {
        'id': 'v1',
        'name': 'k8s',
        'type': 'kubernetes',
        'auth_url': 'https://198.18.0.1:6443',
        'auth_cred': {'bearer_token': 't'},
    }
    changes = {'vims': {'register': [vim], 'delete': ['v2']}}
    assert base.check_changes('x hook', changes) == changes
