"""Change external connectivity of the OpenStack driver on a Heat
stand-in: the CPs of the links the request names move to the new
networks by a stack update; rollback restores the old parameters."""

from __future__ import annotations

import pytest

from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack.driver import OpenStackInfraDriver

from .fakeheat import FakeHeat
from .fakeheat import vm_simple
from .utils import EXT_NET
from .utils import context

TOP = ('vnf-inst-1', 'sid')


def _instantiated(heat: FakeHeat) -> dict:
    heat.resource_list = vm_simple(TOP)
    return OpenStackInfraDriver().instantiate(context()).instantiated_vnf_info


def _ctx(info: dict, links: list) -> base.InfraContext:
    return context(
        'CHANGE_EXT_CONN',
        request={'extVirtualLinks': links},
        vnf_instance={'id': 'inst-1', 'instantiatedVnfInfo': info},
    )


def _updates(heat: FakeHeat, monkeypatch: pytest.MonkeyPatch) -> list:
    updates: list = []
    monkeypatch.setattr(
        heat, 'update', lambda ref, t, f, params: updates.append(params)
    )
    return updates


def test_a_named_link_moves_all_its_cps_to_the_new_network(
    heat: FakeHeat, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = _instantiated(heat)
    before = heat.stacks['sid'].parameters['nfv']
    updates = _updates(heat, monkeypatch)
    link = {
        'id': 'ext1',
        'resourceId': 'net-new',
        'extCps': [{'cpdId': 'VDU2_CP1', 'cpConfig': {'a': {}}}],
    }

    result = OpenStackInfraDriver().change_ext_conn(_ctx(info, [link]))

    [params] = updates
    cps = params['nfv']['CP']
    # VDU1_CP1 is on ext1 too: a link is one network, it moves as well.
    assert cps['VDU1_CP1'] == {'network': 'net-new'}
    assert cps['VDU2_CP1'] == {'network': 'net-new'}
    assert cps['VDU2_CP2'] == before['CP']['VDU2_CP2']
    assert params['nfv']['VDU'] == before['VDU']
    new = result.instantiated_vnf_info
    [ext] = new['extVirtualLinkInfo']
    assert ext['id'] == 'ext1'
    assert ext['resourceHandle']['resourceId'] == 'net-new'
    assert sorted(new['metadata']['ext_cpds']['ext1']) == [
        'VDU1_CP1',
        'VDU2_CP1',
    ]

    ctx = _ctx(info, [link])
    ctx.work = result.work
    OpenStackInfraDriver().rollback_change_ext_conn(ctx)

    assert updates[1] == {'nfv': before}


def test_a_cp_put_on_a_new_link_leaves_its_old_one(
    heat: FakeHeat, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = _instantiated(heat)
    updates = _updates(heat, monkeypatch)
    link = {
        'id': 'ext2',
        'resourceId': 'net-2',
        'extCps': [{'cpdId': 'VDU2_CP1', 'cpConfig': {'a': {}}}],
    }

    result = OpenStackInfraDriver().change_ext_conn(_ctx(info, [link]))

    cps = updates[0]['nfv']['CP']
    assert cps['VDU2_CP1'] == {'network': 'net-2'}
    assert cps['VDU1_CP1'] == {'network': EXT_NET}
    meta = result.instantiated_vnf_info['metadata']
    assert meta['ext_cpds'] == {'ext2': ['VDU2_CP1'], 'ext1': ['VDU1_CP1']}
