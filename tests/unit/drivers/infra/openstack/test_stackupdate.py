"""A stack update of a running instance on a Heat stand-in: waited on and
read back, a failed one handed to the rollback with its work, a stack gone
named, and the AutoScalingGroups a failed update left repaired by a marked
update before a restoring one."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from vnfm.clients import openstack
from vnfm.common import exceptions
from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack import stackupdate
from vnfm.drivers.infra.openstack.driver import OpenStackInfraDriver

from .fakeheat import FakeHeat
from .fakeheat import vm_simple
from .utils import context

TOP = ('vnf-inst-1', 'sid')


def _instantiated(heat: FakeHeat) -> dict:
    heat.resource_list = vm_simple(TOP)
    info = OpenStackInfraDriver().instantiate(context()).instantiated_vnf_info
    assert info is not None
    return info


def _rollback_ctx(info: dict, work: dict | None = None) -> base.InfraContext:
    ctx = context(
        'SCALE',
        request={'type': 'SCALE_OUT', 'aspectId': 'VDU1_scale'},
        vnf_instance={'id': 'inst-1', 'instantiatedVnfInfo': info},
    )
    ctx.work = dict(work or {})
    return ctx


def _levels(info: dict) -> dict[str, int]:
    return {s['aspectId']: s['scaleLevel'] for s in info['scaleStatus']}


def test_an_update_is_waited_on_and_the_instance_read_again(
    heat: FakeHeat,
) -> None:
    info = _instantiated(heat)
    heat.calls.clear()

    result = stackupdate.update(
        _rollback_ctx(info, {'kept': 1}), 'scale_rollback', _levels(info)
    )

    kinds = [c[0] for c in heat.calls]
    assert kinds.index('update') < kinds.index('wait')
    assert ('wait', 'vnf-inst-1/sid', 'UPDATE') in heat.calls
    assert result.instantiated_vnf_info is not None
    assert (
        result.instantiated_vnf_info['vnfcResourceInfo']
        == (info['vnfcResourceInfo'])
    )
    assert result.work == {'kept': 1, 'requests': {'keystone': 1, 'heat': 3}}


def test_a_failed_update_hands_its_work_to_the_rollback(
    heat: FakeHeat,
) -> None:
    info = _instantiated(heat)
    heat.fail = openstack.OpenStackError('Heat stack is UPDATE_FAILED: quota')

    with pytest.raises(base.PartialFailure, match='quota') as e:
        stackupdate.update(
            _rollback_ctx(info, {'kept': 1}),
            'scale_rollback',
            _levels(info),
            save_nfv='old_nfv',
        )

    assert e.value.work['kept'] == 1
    # The stack's nfv from before the first try, for the rollback.
    assert e.value.work['old_nfv'] == heat.stacks['sid'].parameters['nfv']


def test_a_stack_gone_is_named_and_nothing_updated(heat: FakeHeat) -> None:
    info = _instantiated(heat)
    heat.stacks.clear()
    heat.calls.clear()

    with pytest.raises(
        exceptions.OperationFailed,
        match='The stack of VNF instance inst-1 is gone.',
    ):
        stackupdate.update(_rollback_ctx(info), 'scale_rollback', {})
    assert not [c for c in heat.calls if c[0] == 'update']


def test_the_failed_groups_are_those_repaired(
    heat: FakeHeat,
) -> None:
    _instantiated(heat)
    stack = heat.stacks['sid']
    heat.resource_list = [
        dict(r, resource_status='UPDATE_FAILED')
        if r['resource_type'] in (stackupdate.GROUP, 'VDU1.yaml')
        else r
        for r in vm_simple(TOP)
    ]
    assert stackupdate.failed_groups(heat, stack) == ['VDU1']  # type: ignore[arg-type]
    heat.resource_list = vm_simple(TOP)
    assert stackupdate.failed_groups(heat, stack) == []  # type: ignore[arg-type]


def test_a_marked_template_changes_only_the_groups_members() -> None:
    template = yaml.safe_dump(
        {
            'heat_template_version': '2013-05-23',
            'resources': {
                'VDU1': {
                    'type': stackupdate.GROUP,
                    'properties': {
                        'resource': {
                            'type': 'VDU1.yaml',
                            'metadata': {'owner': 'vnf'},
                        }
                    },
                },
                'VDU2': {'type': 'OS::Nova::Server', 'properties': {}},
            },
        }
    )

    doc: dict[str, Any] = json.loads(
        stackupdate.marked(template, ['VDU1', 'VDU9'], 'm-1')
    )

    member = doc['resources']['VDU1']['properties']['resource']
    assert member == {
        'type': 'VDU1.yaml',
        'metadata': {'owner': 'vnf', stackupdate.MARKER: 'm-1'},
    }
    assert doc['resources']['VDU2'] == {
        'type': 'OS::Nova::Server',
        'properties': {},
    }
    assert 'VDU9' not in doc['resources']


def test_the_external_links_come_with_the_cpds_on_them() -> None:
    info = {
        'extVirtualLinkInfo': [
            {'id': 'ext-1', 'resourceHandle': {'resourceId': 'net-1'}},
            {'id': 'ext-2'},
        ],
        'metadata': {'ext_cpds': {'ext-1': ['VDU1_CP1', 'VDU2_CP1']}},
    }
    assert stackupdate.ext_links(info) == [
        {
            'id': 'ext-1',
            'resourceHandle': {'resourceId': 'net-1'},
            'extCps': [{'cpdId': 'VDU1_CP1'}, {'cpdId': 'VDU2_CP1'}],
        },
        {'id': 'ext-2', 'resourceHandle': None, 'extCps': []},
    ]
