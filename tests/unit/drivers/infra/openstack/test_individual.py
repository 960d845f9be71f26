"""vnfm.drivers.infra.openstack.individual: a VDU of its own in the top HOT
becomes one resource per VNFC (the vm_vnfc sample, Tacker's individual-VNFC
layout)."""

from __future__ import annotations

import json

import pytest

from vnfm.drivers.infra import vnfcs
from vnfm.drivers.infra.openstack import hot
from vnfm.drivers.infra.openstack import individual
from vnfm.drivers.infra.openstack import info
from vnfm.drivers.infra.openstack import scalable
from vnfm.drivers.infra.openstack import standard
from vnfm.drivers.infra.openstack import userdata

from .fakeheat import resource
from .utils import context
from .utils import instantiate_request

SAMPLE = 'vm_vnfc'
TOP = ('vnf-inst-1', 'sid')


def _instance(indices: list[int], level: int) -> dict:
    entries = [
        {'id': f'c{i}', 'vduId': 'VDU1', 'metadata': {'vdu_idx': i}}
        for i in indices
    ]
    return {
        'id': 'inst-1',
        'instantiatedVnfInfo': {
            'flavourId': 'simple',
            'vnfcResourceInfo': [*entries, {'id': 'd', 'vduId': 'VDU2'}],
            'vnfcInfo': vnfcs.vnfc_info(entries),
            'scaleStatus': [{'aspectId': 'VDU1_scale', 'scaleLevel': level}],
        },
    }


def _resources(stack: userdata.StackInput) -> dict:
    return json.loads(stack.template)['resources']


def test_instantiate_makes_one_resource_per_vnfc_with_the_request_values():
    request = instantiate_request(
        instantiationLevelId='instantiation_level_2',
        additionalParams={
            'nfv': {
                'VDU': {'VDU1-1': {'name': 'VDU1-a-010', 'vcImageId': 'x'}}
            }
        },
    )

    stack = userdata.stack_input(
        context(request=request, name=SAMPLE), 'instantiate'
    )

    resources = _resources(stack)
    assert 'VDU1' not in resources
    assert resources['VDU1-1']['properties']['name'] == {
        'get_param': ['nfv', 'VDU', 'VDU1-1', 'name']
    }
    values = stack.parameters['nfv']['VDU']
    assert 'VDU1' not in values
    assert values['VDU1-0'] == {
        'name': 'VDU1-0',
        'computeFlavourId': 'm1.tiny',
        'vcImageId': 'ubuntu-22.04',
    }
    assert values['VDU1-1']['name'] == 'VDU1-a-010'
    assert values['VDU1-1']['vcImageId'] == 'x'
    assert values['VDU1-2']['vcImageId'] == 'ubuntu-22.04'
    # VDU2, a plain server, is left as it is.
    assert 'VDU2' in resources and 'VDU2' in values


def _scale(instance: dict, kind: str, steps: int = 1, **params) -> dict:
    request = {
        'type': kind,
        'aspectId': 'VDU1_scale',
        'numberOfSteps': steps,
        'additionalParams': params,
    }
    ctx = context('SCALE', request=request, vnf_instance=instance, name=SAMPLE)
    current = userdata.stack_input(
        context(
            request=instantiate_request(
                additionalParams={'nfv': {'VDU': {'VDU1-0': {'name': 'kept'}}}}
            ),
            name=SAMPLE,
        ),
        'instantiate',
    ).parameters
    return _resources(userdata.stack_input(ctx, 'scale', current))


def test_scale_out_adds_the_next_indices_and_keeps_each_vnfc_values():
    resources = _scale(_instance([0], 0), 'SCALE_OUT', 2)

    assert sorted(r for r in resources if r.startswith('VDU1')) == [
        'VDU1-0',
        'VDU1-1',
        'VDU1-2',
    ]


def test_scale_in_removes_the_highest_index_or_the_vnfc_named():
    assert 'VDU1-2' not in _scale(_instance([0, 1, 2], 2), 'SCALE_IN')
    named = _scale(
        _instance([0, 1, 2], 2), 'SCALE_IN', vnfcInstanceIds=['VDU1-c1']
    )
    assert sorted(r for r in named if r.startswith('VDU1')) == [
        'VDU1-0',
        'VDU1-2',
    ]


def test_the_values_of_a_vnfc_are_kept_by_later_operations():
    ctx = context(
        'HEAL', request={}, vnf_instance=_instance([0], 0), name=SAMPLE
    )
    current = {'nfv': {'VDU': {'VDU1-0': {'name': 'kept'}}, 'CP': {}}}

    stack = userdata.stack_input(ctx, 'heal', current)

    assert stack.parameters['nfv']['VDU']['VDU1-0']['name'] == 'kept'


def test_a_vdu_in_a_group_or_a_plain_server_is_not_individual():
    ctx = context(name='vm_simple')
    stack = standard.templates(ctx.package, 'simple')
    doc = hot.load(stack.template, 'top')

    assert (
        individual.individual_vdus(doc, stack.files, {'VDU1', 'VDU2'}) == set()
    )


def test_individual_vdus_are_scalable():
    ctx = context(name=SAMPLE)
    stack = standard.templates(ctx.package, 'simple')

    assert 'VDU1' in scalable.scalable_vdus(stack.template, stack.files)


@pytest.mark.parametrize(
    ('mapping', 'expected'),
    [({'VDU1': ['a-001', 'a-010']}, 'a-010'), ({}, None)],
)
def test_a_vnfc_keeps_its_index_and_takes_its_id_from_the_mapping(
    mapping: dict, expected: str | None
) -> None:
    member = ('vnf-inst-1-VDU1-1', 'm1')
    resources = [
        resource('VDU1-1', 'VDU1.yaml', 'm1', TOP, nested=member),
        resource('VDU1', 'OS::Nova::Server', 'srv-1', member),
    ]
    builder = info.Builder('inst-1', 'vim1', resources, {'VDU1'}, mapping)

    [vnfc] = builder.vnfc_resource_info()

    assert vnfc['metadata']['vdu_idx'] == 1
    assert (vnfc['id'] == expected) if expected else len(vnfc['id']) == 36
    [view] = vnfcs.vnfc_info([vnfc])
    assert view['metadata'] == {'vdu_idx': 1}
