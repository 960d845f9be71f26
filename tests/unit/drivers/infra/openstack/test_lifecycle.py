"""Instantiate, terminate and rollback of the OpenStack driver, on a Heat
stand-in, with the vm_simple sample's Heat input."""

from __future__ import annotations

import pytest

from vnfm.clients import openstack
from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack import lifecycle
from vnfm.drivers.infra.openstack.driver import OpenStackInfraDriver

from .fakeheat import FakeHeat
from .fakeheat import vm_simple
from .utils import context

TOP = ('vnf-inst-1', 'sid')


def test_instantiate_creates_one_stack_named_after_the_instance(
    heat: FakeHeat,
) -> None:
    heat.resource_list = vm_simple(TOP, members=2)

    result = OpenStackInfraDriver().instantiate(context())

    create = [c for c in heat.calls if c[0] == 'create']
    assert [c[1] for c in create] == ['vnf-inst-1']
    assert create[0][2]['nfv']['VDU']['VDU1']['desired_capacity'] == 1
    assert ('wait', 'vnf-inst-1/sid', 'CREATE') in heat.calls
    info = result.instantiated_vnf_info
    assert info['metadata'] == {
        'stack_id': 'sid',
        'stack_name': 'vnf-inst-1',
        'ext_cpds': {'ext1': ['VDU1_CP1', 'VDU2_CP1']},
    }
    assert result.work['stack'] == {'id': 'sid', 'name': 'vnf-inst-1'}
    assert result.work['requests'] == {'keystone': 1, 'heat': 3}
    vnfcs = info['vnfcResourceInfo']
    assert sorted(
        (v['vduId'], v['computeResource']['resourceId']) for v in vnfcs
    ) == [('VDU1', 'srv-1-0'), ('VDU1', 'srv-1-1'), ('VDU2', 'srv-2')]
    assert {v['computeResource']['vimLevelResourceType'] for v in vnfcs} == {
        'OS::Nova::Server'
    }
    assert {v['computeResource']['vimConnectionId'] for v in vnfcs} == {'vim1'}
    vdu2 = next(v for v in vnfcs if v['vduId'] == 'VDU2')
    assert [c['cpdId'] for c in vdu2['vnfcCpInfo']] == ['VDU2_CP1', 'VDU2_CP2']
    ip = vdu2['vnfcCpInfo'][0]['cpProtocolInfo'][0]['ipOverEthernet']
    assert ip['ipAddresses'][0]['addresses'] == ['198.18.0.21']
    assert ip['macAddress'] == 'fa:16:3e:00:00:01'
    assert 'storageResourceIds' not in vdu2
    vdu1 = [v for v in vnfcs if v['vduId'] == 'VDU1']
    storages = {s['id']: s for s in info['virtualStorageResourceInfo']}
    for vnfc, vol in zip(
        sorted(vdu1, key=lambda v: v['computeResource']['resourceId']),
        ['vol-0', 'vol-1'],
        strict=True,
    ):
        [sid] = vnfc['storageResourceIds']
        assert storages[sid]['storageResource']['resourceId'] == vol
        assert storages[sid]['virtualStorageDescId'] == 'VirtualStorage'
        assert vnfc['metadata']['parent_resource_name'].startswith('mem')
    assert [v['vnfcResourceInfoId'] for v in info['vnfcInfo']] == [
        v['id'] for v in vnfcs
    ]
    assert info['scaleStatus'] == [{'aspectId': 'VDU1_scale', 'scaleLevel': 0}]
    [ext] = info['extVirtualLinkInfo']
    assert ext['id'] == 'ext1'
    assert sorted(
        p['resourceHandle']['resourceId'] for p in ext['extLinkPorts']
    ) == [
        'p-10',
        'p-11',
        'p-21',
    ]
    changes = result.resource_changes
    assert {c['changeType'] for c in changes['affectedVnfcs']} == {'ADDED'}
    assert len(changes['affectedVnfcs']) == 3
    assert len(changes['affectedVirtualStorages']) == 2


def test_vnfc_ids_follow_the_place_in_the_stack_not_the_server(
    heat: FakeHeat,
) -> None:
    """A server Heat replaced (heal) keeps its VNFC id."""
    heat.resource_list = vm_simple(TOP)
    first = OpenStackInfraDriver().instantiate(context()).instantiated_vnf_info
    heat.resource_list = [
        dict(r, physical_resource_id='srv-1-0-new')
        if r['physical_resource_id'] == 'srv-1-0'
        else r
        for r in vm_simple(TOP)
    ]
    ctx = context(vnf_instance={'id': 'inst-1', 'instantiatedVnfInfo': first})
    again = OpenStackInfraDriver().instantiate(ctx).instantiated_vnf_info

    def ids(info: dict) -> dict[str, str]:
        return {
            v['id']: v['computeResource']['resourceId']
            for v in info['vnfcResourceInfo']
        }

    assert ids(first).keys() == ids(again).keys()
    assert 'srv-1-0-new' in ids(again).values()


def test_a_failed_stack_fails_with_heats_reason_and_rollback_deletes_it(
    heat: FakeHeat,
) -> None:
    heat.fail = openstack.StackFailed(
        'Heat stack vnf-inst-1 is CREATE_FAILED: resource VDU2 failed: '
        'image not found',
        'VDU2',
        'image not found',
    )

    with pytest.raises(base.PartialFailure) as caught:
        OpenStackInfraDriver().instantiate(context())

    assert 'resource VDU2 failed: image not found' in caught.value.detail
    assert caught.value.work['stack'] == {'id': 'sid', 'name': 'vnf-inst-1'}

    heat.fail = None
    ctx = context()
    ctx.work = caught.value.work
    OpenStackInfraDriver().rollback_instantiate(ctx)

    assert ('delete', 'vnf-inst-1/sid') in heat.calls
    assert ('wait', 'vnf-inst-1/sid', 'DELETE') in heat.calls
    assert heat.stacks == {}


def test_retry_updates_a_failed_stack_instead_of_creating_another(
    heat: FakeHeat,
) -> None:
    heat.stacks['sid'] = openstack.Stack(
        'sid', 'vnf-inst-1', 'CREATE_FAILED', 'boom', {}, {}
    )
    heat.resource_list = vm_simple(TOP)
    ctx = context()
    ctx.work = {'stack': {'id': 'sid', 'name': 'vnf-inst-1'}}

    OpenStackInfraDriver().instantiate(ctx)

    assert not [c for c in heat.calls if c[0] == 'create']
    assert [c[1] for c in heat.calls if c[0] == 'update'] == ['vnf-inst-1/sid']
    assert ('wait', 'vnf-inst-1/sid', 'UPDATE') in heat.calls


def test_rollback_without_a_stack_does_nothing(heat: FakeHeat) -> None:
    OpenStackInfraDriver().rollback_instantiate(context())

    assert [c[0] for c in heat.calls] == ['find']


@pytest.mark.parametrize(
    ('request_', 'slept'),
    [
        ({'terminationType': 'FORCEFUL'}, []),
        (
            {'terminationType': 'GRACEFUL', 'gracefulTerminationTimeout': 7},
            [7],
        ),
    ],
)
def test_terminate_deletes_the_stack_after_the_graceful_timeout(
    heat: FakeHeat,
    monkeypatch: pytest.MonkeyPatch,
    request_: dict,
    slept: list,
) -> None:
    heat.resource_list = vm_simple(TOP)
    info = OpenStackInfraDriver().instantiate(context()).instantiated_vnf_info
    pauses: list[float] = []
    monkeypatch.setattr(lifecycle.time, 'sleep', pauses.append)
    ctx = context(
        'TERMINATE',
        request=request_,
        vnf_instance={'id': 'inst-1', 'instantiatedVnfInfo': info},
    )

    result = OpenStackInfraDriver().terminate(ctx)

    assert pauses == slept
    assert ('delete', 'vnf-inst-1/sid') in heat.calls
    assert heat.calls[-1] == ('wait', 'vnf-inst-1/sid', 'DELETE')
    changes = result.resource_changes['affectedVnfcs']
    assert {c['changeType'] for c in changes} == {'REMOVED'}
    assert len(changes) == 2
