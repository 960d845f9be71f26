"""Change package of the OpenStack driver on a Heat stand-in: a stack
update with the target package's HOT, and back on rollback."""

from __future__ import annotations

import yaml

from vnfm.drivers.infra.openstack.driver import OpenStackInfraDriver

from .fakeheat import FakeHeat
from .fakeheat import vm_simple
from .utils import context

TOP = ('vnf-inst-1', 'sid')


def _ctx(info: dict) -> object:
    return context(
        'CHANGE_VNFPKG',
        request={'vnfdId': 'target', 'additionalParams': {}},
        vnf_instance={'id': 'inst-1', 'instantiatedVnfInfo': info},
        target='vm_simple',
    )


def test_change_updates_the_stack_with_the_target_template(
    heat: FakeHeat, monkeypatch
) -> None:
    heat.resource_list = vm_simple(TOP)
    info = OpenStackInfraDriver().instantiate(context()).instantiated_vnf_info
    updates: list = []
    monkeypatch.setattr(
        heat,
        'update',
        lambda ref, template, files, parameters: updates.append(
            (ref, template, files, parameters)
        ),
    )
    heat.resource_list = [
        dict(r, physical_resource_id='srv-2-new')
        if r['physical_resource_id'] == 'srv-2'
        else r
        for r in vm_simple(TOP)
    ]

    result = OpenStackInfraDriver().change_vnfpkg(_ctx(info))

    [(ref, template, files, parameters)] = updates
    assert ref == 'vnf-inst-1/sid'
    assert 'VDU1' in yaml.safe_load(template)['resources']
    assert list(files) == ['VDU1.yaml']
    assert parameters['nfv']['VDU']['VDU2']['vcImageId'] == 'cirros-0.6'
    [change] = result.resource_changes['affectedVnfcs']
    assert change['changeType'] == 'MODIFIED'
    assert change['computeResource']['resourceId'] == 'srv-2-new'

    OpenStackInfraDriver().rollback_change_vnfpkg(_ctx(info))

    assert len(updates) == 2 and updates[1][0] == 'vnf-inst-1/sid'


def _updates(heat: FakeHeat, monkeypatch) -> list:
    updates: list = []
    monkeypatch.setattr(
        heat,
        'update',
        lambda ref, template, files, parameters: updates.append(
            (template, parameters)
        ),
    )
    return updates


def _member(template: str) -> dict:
    return yaml.safe_load(template)['resources']['VDU1']['properties'][
        'resource'
    ]


def test_rollback_first_rolls_a_failed_group_back_by_a_marked_update(
    heat: FakeHeat, monkeypatch
) -> None:
    heat.resource_list = vm_simple(TOP)
    info = OpenStackInfraDriver().instantiate(context()).instantiated_vnf_info
    heat.resource_list = [
        dict(r, resource_status='UPDATE_FAILED')
        if r['resource_name'] == 'VDU1'
        else r
        for r in vm_simple(TOP)
    ]
    updates = _updates(heat, monkeypatch)

    OpenStackInfraDriver().rollback_change_vnfpkg(_ctx(info))

    # The group's members get the old definition (a marker makes Heat see
    # a change), then the old template as it is removes the marker.
    [(marked, params1), (plain, params2)] = updates
    assert set(_member(marked)['metadata']) == {'vnfm-restore'}
    assert 'metadata' not in _member(plain)
    assert params1 == params2
    assert params2['nfv']['VDU']['VDU1']['vcImageId'] == 'ubuntu-22.04'
    waits = [c[2] for c in heat.calls if c[0] == 'wait']
    assert waits == ['CREATE', 'UPDATE', 'UPDATE']


def test_rollback_without_a_failed_group_is_one_update(
    heat: FakeHeat, monkeypatch
) -> None:
    heat.resource_list = vm_simple(TOP)
    info = OpenStackInfraDriver().instantiate(context()).instantiated_vnf_info
    updates = _updates(heat, monkeypatch)

    OpenStackInfraDriver().rollback_change_vnfpkg(_ctx(info))

    [(template, _)] = updates
    assert 'metadata' not in _member(template)
