"""Change flavour of the OpenStack driver on a Heat stand-in: a stack
update to the target flavour's HOT and values, back on rollback."""

from __future__ import annotations

import dataclasses

import pytest
import yaml

from vnfm.clients import openstack
from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack.driver import OpenStackInfraDriver
from vnfm.drivers.infra.openstack.standard import SAVED_NFV

from .fakeheat import FakeHeat
from .fakeheat import port
from .fakeheat import resource
from .fakeheat import vm_simple
from .utils import context

TOP = ('vnf-inst-1', 'sid')
SAMPLE = 'vm_flavours'


def _instantiated(heat: FakeHeat) -> dict:
    heat.resource_list = vm_simple(TOP)
    ctx = context(name=SAMPLE)
    return OpenStackInfraDriver().instantiate(ctx).instantiated_vnf_info


NEW_LINK = {
    'id': 'ext3',
    'resourceId': 'net-3',
    'extCps': [{'cpdId': 'VDU3_CP1', 'cpConfig': {'a': {}}}],
}


def _ctx(info: dict, **request: object) -> base.InfraContext:
    return context(
        'CHANGE_FLAVOUR',
        request={
            'newFlavourId': 'large',
            'extVirtualLinks': [NEW_LINK],
            **request,
        },
        vnf_instance={'id': 'inst-1', 'instantiatedVnfInfo': info},
        name=SAMPLE,
    )


def _updates(heat: FakeHeat, monkeypatch: pytest.MonkeyPatch) -> list:
    updates: list = []

    def update(ref: str, template: str, files: dict, params: dict) -> None:
        updates.append((ref, yaml.safe_load(template), files, params))

    monkeypatch.setattr(heat, 'update', update)
    return updates


def test_change_updates_the_stack_to_the_target_flavour(
    heat: FakeHeat, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = _instantiated(heat)
    before = heat.stacks['sid'].parameters['nfv']
    updates = _updates(heat, monkeypatch)
    heat.resource_list = vm_simple(TOP) + [
        resource('VDU3', 'OS::Nova::Server', 'srv-3', TOP),
        port('VDU3_CP1', 'p-31', TOP, 'srv-3', '198.18.0.31'),
    ]

    result = OpenStackInfraDriver().change_flavour(
        _ctx(info, instantiationLevelId='instantiation_level_2')
    )

    [(ref, template, files, params)] = updates
    assert ref == 'vnf-inst-1/sid'
    assert {'VDU1', 'VDU2', 'VDU3', 'VDU3_CP1'} <= set(template['resources'])
    assert list(files) == ['VDU1.yaml']
    nfv = params['nfv']
    assert nfv['VDU']['VDU3'] == {
        'computeFlavourId': 'm1.tiny',
        'vcImageId': 'cirros-0.6',
        'name': 'VDU3',
    }
    # The new CP goes on the request's link, the others stay where they are.
    assert nfv['CP']['VDU3_CP1'] == {'network': 'net-3'}
    assert nfv['CP']['VDU2_CP1'] == before['CP']['VDU2_CP1']
    assert nfv['VDU']['VDU1']['desired_capacity'] == 3
    new = result.instantiated_vnf_info
    assert new['flavourId'] == 'large'
    assert {'aspectId': 'VDU1_scale', 'scaleLevel': 2} in new['scaleStatus']
    assert 'VDU3' in {v['vduId'] for v in new['vnfcResourceInfo']}
    added = result.resource_changes['affectedVnfcs']
    assert [c['vduId'] for c in added] == ['VDU3']
    assert added[0]['changeType'] == 'ADDED'
    assert result.work[SAVED_NFV] == before
    links = {vl['id']: vl for vl in new['extVirtualLinkInfo']}
    assert [
        p['resourceHandle']['resourceId']
        for p in links['ext3']['extLinkPorts']
    ] == ['p-31']
    assert new['metadata']['ext_cpds']['ext3'] == ['VDU3_CP1']


def test_rollback_restores_the_source_template_and_parameters(
    heat: FakeHeat, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = _instantiated(heat)
    before = heat.stacks['sid'].parameters['nfv']
    updates = _updates(heat, monkeypatch)
    heat.fail = openstack.OpenStackError('VDU3: No valid host was found')
    with pytest.raises(base.PartialFailure) as failed:
        OpenStackInfraDriver().change_flavour(_ctx(info))
    # The stack now has the target's parameters, as after a failed update.
    heat.stacks['sid'] = dataclasses.replace(
        heat.stacks['sid'], parameters={'nfv': updates[0][3]['nfv']}
    )
    heat.fail = None
    ctx = _ctx(info)
    ctx.work = failed.value.work

    result = OpenStackInfraDriver().rollback_change_flavour(ctx)

    ref, template, _, params = updates[1]
    assert ref == 'vnf-inst-1/sid'
    assert 'VDU3' not in template['resources']
    assert params == {'nfv': before}
    assert result.instantiated_vnf_info['flavourId'] == 'simple'


def test_rollback_without_saved_parameters_computes_the_source_ones(
    heat: FakeHeat, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = _instantiated(heat)
    before = heat.stacks['sid'].parameters['nfv']
    updates = _updates(heat, monkeypatch)

    OpenStackInfraDriver().rollback_change_flavour(_ctx(info))

    [(_, template, _, params)] = updates
    assert 'VDU3' not in template['resources']
    assert params['nfv']['VDU'] == before['VDU']
    assert params['nfv']['CP']['VDU1_CP1'] == before['CP']['VDU1_CP1']


def test_unknown_level_of_the_target_flavour_fails_before_heat(
    heat: FakeHeat, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = _instantiated(heat)
    updates = _updates(heat, monkeypatch)

    with pytest.raises(Exception, match="'nope' is not in flavour large"):
        OpenStackInfraDriver().change_flavour(
            _ctx(info, instantiationLevelId='nope')
        )
    assert updates == []
