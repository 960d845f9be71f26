"""Heal of the OpenStack driver on a Heat stand-in: the servers of the
chosen VNFCs are marked unhealthy, one stack update replaces them."""

from __future__ import annotations

from vnfm.drivers.infra.openstack.driver import OpenStackInfraDriver

from .fakeheat import FakeHeat
from .fakeheat import vm_simple
from .utils import context

TOP = ('vnf-inst-1', 'sid')


def _heal(heat: FakeHeat, info: dict, **request: object) -> object:
    ctx = context(
        'HEAL',
        request=request,
        vnf_instance={'id': 'inst-1', 'instantiatedVnfInfo': info},
    )
    return OpenStackInfraDriver().heal(ctx)


def _replaced(resources: list[dict], old: str) -> list[dict]:
    return [
        dict(r, physical_resource_id=f'{old}-new')
        if r['physical_resource_id'] == old
        else r
        for r in resources
    ]


def test_heal_one_vnfc_replaces_its_server_keeping_id_and_volume(
    heat: FakeHeat,
) -> None:
    heat.resource_list = vm_simple(TOP)
    info = OpenStackInfraDriver().instantiate(context()).instantiated_vnf_info
    vnfc = next(v for v in info['vnfcResourceInfo'] if v['vduId'] == 'VDU1')
    named = next(
        i['id']
        for i in info['vnfcInfo']
        if i['vnfcResourceInfoId'] == vnfc['id']
    )
    heat.calls.clear()
    heat.resource_list = _replaced(vm_simple(TOP), 'srv-1-0')

    result = _heal(heat, info, vnfcInstanceId=[named])

    marks = [c for c in heat.calls if c[0] == 'mark_unhealthy']
    assert marks == [('mark_unhealthy', 'm0', 'VDU1')]
    assert [c[0] for c in heat.calls if c[0] in ('update', 'wait')] == [
        'update',
        'wait',
    ]
    new = result.instantiated_vnf_info
    healed = next(v for v in new['vnfcResourceInfo'] if v['id'] == vnfc['id'])
    assert healed['computeResource']['resourceId'] == 'srv-1-0-new'
    assert healed['storageResourceIds'] == vnfc['storageResourceIds']
    assert (
        new['virtualStorageResourceInfo'] == info['virtualStorageResourceInfo']
    )
    [change] = result.resource_changes['affectedVnfcs']
    assert (change['id'], change['changeType']) == (vnfc['id'], 'MODIFIED')


def test_heal_without_vnfcs_replaces_every_server(heat: FakeHeat) -> None:
    heat.resource_list = vm_simple(TOP)
    info = OpenStackInfraDriver().instantiate(context()).instantiated_vnf_info
    heat.calls.clear()

    result = _heal(heat, info)

    marks = sorted(c[1:] for c in heat.calls if c[0] == 'mark_unhealthy')
    assert marks == [('m0', 'VDU1'), ('sid', 'VDU2')]
    changes = result.resource_changes['affectedVnfcs']
    assert {c['changeType'] for c in changes} == {'MODIFIED'}
    assert len(changes) == 2
