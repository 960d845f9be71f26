"""Requests no enabled infra driver can carry out are refused before
anything is written: a vimType nobody serves is a 422, an operation no
driver of the instance runs a 409, each naming what is enabled."""

from __future__ import annotations

import pytest

from vnfm.common import exceptions
from vnfm.objects import states
from vnfm.server.controllers import capabilities

NOOP = 'VNFM.NOOP.V_1'
K8S = 'ETSINFV.KUBERNETES.V_1'
OPENSTACK = 'ETSINFV.OPENSTACK_KEYSTONE.V_3'


def vims(*types: str | None) -> dict:
    return {
        'vimConnectionInfo': {
            f'vim{n}': ({'vimType': t} if t else {'accessInfo': {}})
            for n, t in enumerate(types)
        }
    }


@pytest.fixture
def enabled(conf):
    def enable(*names: str) -> None:
        conf('enabled_infra_drivers', list(names), 'infra')

    return enable


def test_served_vim_types_pass(enabled):
    enabled('noop', 'kubernetes')

    capabilities.check_vim_types(vims(NOOP, K8S, None), '2')
    capabilities.check_vim_types({'flavourId': 'simple'}, '2')


def test_a_vim_type_nobody_serves_is_422_naming_what_is_served(enabled):
    enabled('noop')

    with pytest.raises(exceptions.UnprocessableEntity) as e:
        capabilities.check_vim_types(vims(NOOP, K8S), '2')

    assert str(e.value) == (
        f'vimConnectionInfo: vimType {K8S} is not served by any enabled '
        f'infra driver (served: {NOOP}; [infra] enabled_infra_drivers: '
        'noop).'
    )


def test_tackers_v1_names_are_taken_on_v1_only(enabled):
    enabled('noop', 'kubernetes')

    capabilities.check_vim_types(vims('kubernetes'), '1')
    with pytest.raises(exceptions.UnprocessableEntity) as e:
        capabilities.check_vim_types(vims('kubernetes'), '2')
    assert 'vimType kubernetes is not served' in str(e.value)


def test_on_v1_the_served_list_has_tackers_names_too(enabled):
    enabled('kubernetes')

    with pytest.raises(exceptions.UnprocessableEntity) as e:
        capabilities.check_vim_types(vims('openstack'), '1')

    assert f'(served: {K8S}, kubernetes;' in str(e.value)


def test_modify_info_needs_no_infra_driver(enabled):
    enabled('noop')
    row = {'id': 'inst-1', 'vim_connection_info': {'v': {'vimType': K8S}}}

    capabilities.require_operation(row, states.LcmOperation.MODIFY_INFO)


def test_an_operation_the_instances_driver_runs_passes(enabled):
    enabled('noop', 'kubernetes')
    row = {
        'id': 'inst-1',
        'vim_connection_info': vims(K8S)['vimConnectionInfo'],
    }

    capabilities.require_operation(row, states.LcmOperation.OPERATE)
    capabilities.require_operation(row, states.LcmOperation.SCALE)


def test_an_operation_no_driver_runs_is_409_and_changes_nothing(enabled):
    enabled('noop', 'kubernetes')
    row = {'id': 'inst-1', 'vim_connection_info': None}

    with pytest.raises(exceptions.Conflict) as e:
        capabilities.require_operation(
            row, states.LcmOperation.CHANGE_EXT_CONN, vims(K8S)
        )

    assert str(e.value) == (
        'CHANGE_EXT_CONN is not supported for VNF instance inst-1: no '
        f'enabled infra driver runs it on vimType {K8S} ([infra] '
        'enabled_infra_drivers: noop, kubernetes). Nothing was changed.'
    )


def test_the_instances_own_vim_decides(enabled):
    """Operate: the noop driver runs it, the OpenStack one does not; an
    instance on OpenStack cannot."""
    enabled('noop', 'openstack')
    row = {
        'id': 'inst-1',
        'vim_connection_info': vims(OPENSTACK)['vimConnectionInfo'],
    }

    with pytest.raises(exceptions.Conflict, match=f'on vimType {OPENSTACK}'):
        capabilities.require_operation(row, states.LcmOperation.OPERATE)
