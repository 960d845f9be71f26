"""The periodic sync of the OpenStack driver on a Heat stand-in."""

from __future__ import annotations

import time

from vnfm.clients import openstack
from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack.driver import OpenStackInfraDriver

from .fakeheat import FakeHeat
from .fakeheat import vm_simple
from .utils import context

TOP = ('vnf-inst-1', 'sid')


def _sync(info: dict) -> dict | None:
    ctx = base.SyncContext(
        vnf_instance={'id': 'inst-1', 'instantiatedVnfInfo': info},
        vim_connection_info={'vim1': {}},
        deadline=time.monotonic() + 10,
    )
    return OpenStackInfraDriver().sync(ctx)


def test_a_server_heat_replaced_is_followed_with_the_same_vnfc_id(
    heat: FakeHeat,
) -> None:
    heat.resource_list = vm_simple(TOP)
    info = OpenStackInfraDriver().instantiate(context()).instantiated_vnf_info

    assert _sync(info) is None

    heat.resource_list = [
        dict(r, physical_resource_id='srv-2-new')
        if r['physical_resource_id'] == 'srv-2'
        else r
        for r in vm_simple(TOP)
    ]
    synced = _sync(info)

    assert synced is not None
    before = {v['id']: v for v in info['vnfcResourceInfo']}
    after = {v['id']: v for v in synced['vnfcResourceInfo']}
    assert before.keys() == after.keys()
    changed = [i for i in after if after[i] != before[i]]
    assert [after[i]['computeResource']['resourceId'] for i in changed] == [
        'srv-2-new'
    ]
    assert synced['scaleStatus'] == info['scaleStatus']


def test_a_stack_being_updated_is_left_alone(heat: FakeHeat) -> None:
    heat.resource_list = vm_simple(TOP)
    info = OpenStackInfraDriver().instantiate(context()).instantiated_vnf_info
    heat.stacks['sid'] = openstack.Stack(
        'sid', 'vnf-inst-1', 'UPDATE_IN_PROGRESS', '', {}, {}
    )
    heat.resource_list = []

    assert _sync(info) is None


def _server(resources: list[dict], server_id: str, **attributes) -> list:
    return [
        dict(r, attributes=attributes)
        if r['physical_resource_id'] == server_id
        else r
        for r in resources
    ]


def test_a_server_deleted_behind_heats_back_is_marked_stopped(
    heat: FakeHeat,
) -> None:
    heat.resource_list = vm_simple(TOP)
    info = OpenStackInfraDriver().instantiate(context()).instantiated_vnf_info
    # Heat lists a server Nova no longer has without its status.
    heat.resource_list = _server(vm_simple(TOP), 'srv-2', addresses={})

    synced = _sync(info)

    assert synced is not None
    after = {
        v['computeResource']['resourceId']: v
        for v in synced['vnfcResourceInfo']
    }
    assert after['srv-2']['metadata']['server_status'] == 'NOT_FOUND'
    assert 'server_status' not in after['srv-1-0']['metadata']
    assert [v['id'] for v in synced['vnfcResourceInfo']] == [
        v['id'] for v in info['vnfcResourceInfo']
    ]
    states = {
        v['vnfcResourceInfoId']: v['vnfcState'] for v in synced['vnfcInfo']
    }
    assert states == {
        after['srv-2']['id']: 'STOPPED',
        after['srv-1-0']['id']: 'STARTED',
    }
    # Unchanged since: nothing to write.
    assert _sync(synced) is None


def test_a_server_in_error_is_marked_and_its_recovery_followed(
    heat: FakeHeat,
) -> None:
    heat.resource_list = vm_simple(TOP)
    info = OpenStackInfraDriver().instantiate(context()).instantiated_vnf_info
    heat.resource_list = _server(vm_simple(TOP), 'srv-1-0', status='ERROR')

    synced = _sync(info)

    assert synced is not None
    [vdu1] = [v for v in synced['vnfcResourceInfo'] if v['vduId'] == 'VDU1']
    assert vdu1['metadata']['server_status'] == 'ERROR'

    heat.resource_list = vm_simple(TOP)
    healed = _sync(synced)

    assert healed is not None
    assert all(
        'server_status' not in v['metadata']
        for v in healed['vnfcResourceInfo']
    )
    assert {v['vnfcState'] for v in healed['vnfcInfo']} == {'STARTED'}
