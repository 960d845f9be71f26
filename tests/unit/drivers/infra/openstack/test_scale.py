"""Scale of the OpenStack driver on a Heat stand-in: desired_capacity by
stack update; scale-in marks the members to remove unhealthy first."""

from __future__ import annotations

import pytest

from vnfm.drivers import scaling
from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack import scale
from vnfm.drivers.infra.openstack.driver import OpenStackInfraDriver
from vnfm.objects import scale_level
from vnfm_testbed.openstack import vmsample

from .fakeheat import FakeHeat
from .fakeheat import vm_simple
from .utils import context

TOP = ('vnf-inst-1', 'sid')


def _instantiated(heat: FakeHeat, members: int) -> dict:
    heat.resource_list = vm_simple(TOP, members)
    return OpenStackInfraDriver().instantiate(context()).instantiated_vnf_info


def _scale(info: dict, kind: str, **extra: object) -> object:
    request = {'type': kind, 'aspectId': 'VDU1_scale', **extra}
    ctx = context(
        'SCALE',
        request=request,
        vnf_instance={'id': 'inst-1', 'instantiatedVnfInfo': info},
    )
    return OpenStackInfraDriver().scale(ctx)


def test_scale_out_updates_desired_capacity_and_adds_a_vnfc(
    heat: FakeHeat,
) -> None:
    info = _instantiated(heat, 1)
    heat.resource_list = vm_simple(TOP, 2)

    result = _scale(info, 'SCALE_OUT')

    [update] = [c for c in heat.calls if c[0] == 'update']
    assert update[1] == 'vnf-inst-1/sid'
    assert update[2]['nfv']['VDU']['VDU1']['desired_capacity'] == 2
    assert not [c for c in heat.calls if c[0] == 'mark_unhealthy']
    new = result.instantiated_vnf_info
    assert new['scaleStatus'] == [{'aspectId': 'VDU1_scale', 'scaleLevel': 1}]
    assert new['metadata']['ext_cpds'] == info['metadata']['ext_cpds']
    added = [
        c
        for c in result.resource_changes['affectedVnfcs']
        if c['changeType'] == 'ADDED'
    ]
    assert [c['computeResource']['resourceId'] for c in added] == ['srv-1-1']
    [ext] = new['extVirtualLinkInfo']
    assert 'p-11' in {
        p['resourceHandle']['resourceId'] for p in ext['extLinkPorts']
    }


def test_scale_in_removes_the_newest_member_by_default(heat: FakeHeat) -> None:
    info = _instantiated(heat, 1)
    heat.resource_list = vm_simple(TOP, 2)
    info = _scale(info, 'SCALE_OUT').instantiated_vnf_info
    heat.calls.clear()
    heat.resource_list = vm_simple(TOP, 1)

    result = _scale(info, 'SCALE_IN')

    assert ('mark_unhealthy', 'grp', 'mem1') in heat.calls
    removed = [
        c
        for c in result.resource_changes['affectedVnfcs']
        if c['changeType'] == 'REMOVED'
    ]
    assert [c['computeResource']['resourceId'] for c in removed] == ['srv-1-1']


def test_scale_in_removes_the_vnfc_the_request_names(heat: FakeHeat) -> None:
    info = _instantiated(heat, 1)
    heat.resource_list = vm_simple(TOP, 2)
    info = _scale(info, 'SCALE_OUT').instantiated_vnf_info
    oldest = next(
        v
        for v in info['vnfcResourceInfo']
        if v['computeResource']['resourceId'] == 'srv-1-0'
    )
    heat.calls.clear()
    heat.resource_list = vm_simple(TOP, 1)

    _scale(
        info,
        'SCALE_IN',
        additionalParams={scale.REMOVE: [oldest['id']]},
    )

    marks = [c for c in heat.calls if c[0] == 'mark_unhealthy']
    assert marks == [('mark_unhealthy', 'grp', 'mem0')]


def test_a_scale_the_stack_did_not_make_fails_naming_the_vdu(
    heat: FakeHeat,
) -> None:
    info = _instantiated(heat, 1)

    with pytest.raises(base.PartialFailure) as caught:
        _scale(info, 'SCALE_OUT')

    assert 'VDU VDU1 has 1 VNFCs, not 2' in caught.value.detail
    assert 'requests' in caught.value.work


def test_rollback_returns_to_the_recorded_count(heat: FakeHeat) -> None:
    info = _instantiated(heat, 1)
    ctx = context(
        'SCALE',
        request={'type': 'SCALE_OUT', 'aspectId': 'VDU1_scale'},
        vnf_instance={'id': 'inst-1', 'instantiatedVnfInfo': info},
    )

    OpenStackInfraDriver().rollback_scale(ctx)

    [update] = [c for c in heat.calls if c[0] == 'update']
    assert update[2]['nfv']['VDU']['VDU1']['desired_capacity'] == 1


def _top(layout) -> bytes:
    from ....csar.utils import SAMPLES

    text = (SAMPLES / 'vm_simple' / vmsample.TOP_HOT).read_text()
    return layout(text).encode()


def _scale_of(heat: FakeHeat, hot: bytes, kind: str) -> None:
    heat.resource_list = vm_simple(TOP, 1)
    info = OpenStackInfraDriver().instantiate(context()).instantiated_vnf_info
    heat.calls.clear()
    ctx = context(
        'SCALE',
        request={'type': kind, 'aspectId': 'VDU1_scale', 'numberOfSteps': 2},
        vnf_instance={'id': 'inst-1', 'instantiatedVnfInfo': info},
        **{vmsample.TOP_HOT: hot},
    )
    OpenStackInfraDriver().scale(ctx)


@pytest.mark.parametrize(
    'layout', [vmsample.server_layout, vmsample.policy_layout]
)
def test_a_scale_heat_cannot_do_is_refused_before_an_update(
    heat: FakeHeat, layout
) -> None:
    # VDU1 its own server (Tacker's StandardUserData layout), or its group
    # at a fixed desired_capacity with a ScalingPolicy (Tacker's cluster
    # package): a stack update would change nothing.
    with pytest.raises(scaling.ScaleNotPossible) as e:
        _scale_of(heat, _top(layout), 'SCALE_OUT')

    assert 'scales VDU VDU1' in e.value.detail
    assert 'desired_capacity' in e.value.detail
    assert 'Nothing was changed' in e.value.detail
    assert not [c for c in heat.calls if c[0] == 'update']


def test_instantiate_names_the_aspects_vnfm_cannot_scale(
    heat: FakeHeat,
) -> None:
    heat.resource_list = vm_simple(TOP, 1)
    ctx = context(**{vmsample.TOP_HOT: _top(vmsample.server_layout)})

    info = OpenStackInfraDriver().instantiate(ctx).instantiated_vnf_info

    why = info['metadata'][scale_level.UNSCALABLE]
    assert list(why) == ['VDU1_scale'] and 'VDU VDU1' in why['VDU1_scale']
    plain = _instantiated(heat, 1)
    assert scale_level.UNSCALABLE not in plain['metadata']
