"""The VM sample packages' Heat input, as vnfm computes it, passes real
Heat's template validation (nested templates included)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from heatclient import client as heat_client
from heatclient import exc as heat_exc

from vnfm.csar import CsarLimits
from vnfm.csar import read_csar
from vnfm.csar.build import build_csar
from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack import userdata
from vnfm.drivers.package_files import PackageFiles

from ..conftest import wait_for

SAMPLES = Path(__file__).resolve().parents[3] / 'samples' / 'packages'
REQUEST = {
    'flavourId': 'simple',
    'instantiationLevelId': 'instantiation_level_2',
    'extVirtualLinks': [
        {
            'id': 'ext1',
            'resourceId': 'mgmt-net',
            'extCps': [{'cpdId': 'VDU1_CP1'}, {'cpdId': 'VDU2_CP1'}],
        }
    ],
    'extManagedVirtualLinks': [
        {
            'id': 'int1',
            'vnfVirtualLinkDescId': 'internalVL1',
            'resourceId': 'data-net-1',
        }
    ],
}


def _context(name: str) -> base.InfraContext:
    data = build_csar(str(SAMPLES / name))
    csar = read_csar(data, CsarLimits())
    return base.InfraContext(
        operation='INSTANTIATE',
        vnf_instance={'id': 'inst-1'},
        request=REQUEST,
        vnfd=csar.vnfd.to_dict(),
        flavour_id='simple',
        vim_connection_info={},
        package=PackageFiles(name, csar.files),
        deadline=time.monotonic() + 60,
    )


def _validate(heat: heat_client.Client, stack: userdata.StackInput) -> Any:
    return heat.stacks.validate(
        template=stack.template,
        files=stack.files,
        environment={'parameters': stack.parameters},
        show_nested=True,
    )


@pytest.mark.parametrize('name', ['vm_simple', 'vm_simple_v2'])
def test_sample_heat_input_validates(
    heat_for: Callable[[str], heat_client.Client], name: str
) -> None:
    stack = userdata.stack_input(_context(name), 'instantiate')
    assert stack.parameters['nfv']['VDU']['VDU1']['desired_capacity'] == 3
    result = _validate(heat_for('demo'), stack)
    assert 'nfv' in result['Parameters']
    assert result['Parameters']['nfv']['Type'] == 'Json'


def test_heat_rejects_a_broken_nested_template(
    heat_for: Callable[[str], heat_client.Client],
) -> None:
    # The check above can fail: Heat really reads the nested templates.
    stack = userdata.stack_input(_context('vm_simple'), 'instantiate')
    stack.files['VDU1.yaml'] = stack.files['VDU1.yaml'].replace(
        'OS::Nova::Server', 'OS::Nova::NoServer'
    )
    with pytest.raises(heat_exc.HTTPBadRequest, match='OS::Nova::NoServer'):
        _validate(heat_for('demo'), stack)


def _settled(heat: heat_client.Client, stack_id: str, verb: str) -> Any:
    def settled() -> Any:
        stack = heat.stacks.get(stack_id)
        status = stack.stack_status
        if status.endswith('IN_PROGRESS') or not status.startswith(verb):
            return None
        assert status == f'{verb}_COMPLETE', stack.stack_status_reason
        return stack

    return wait_for(settled, 240, f'{verb} of stack {stack_id}')


def _servers(heat: heat_client.Client, stack_id: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for res in heat.resources.list(stack_id, nested_depth=3):
        if res.resource_type == 'OS::Nova::Server':
            out[res.resource_name] = out.get(res.resource_name, 0) + 1
    return out


def _instance(vdu1: int, level: int) -> dict[str, Any]:
    vnfcs = [{'id': f'c{i}', 'vduId': 'VDU1'} for i in range(vdu1)]
    return {
        'id': 'inst-1',
        'instantiatedVnfInfo': {
            'vnfcResourceInfo': [*vnfcs, {'id': 'd', 'vduId': 'VDU2'}],
            'scaleStatus': [{'aspectId': 'VDU1_scale', 'scaleLevel': level}],
        },
    }


def test_sample_stack_is_created_scaled_and_changed(
    demo_heat: heat_client.Client,
) -> None:
    ctx = _context('vm_simple')
    stack_id = _create_at_level_1(demo_heat, ctx)
    assert _servers(demo_heat, stack_id) == {'VDU1': 1, 'VDU2': 1}

    # Scale out from the parameters as Heat shows them.
    _scale_out_vdu1(demo_heat, ctx, stack_id)
    assert _servers(demo_heat, stack_id) == {'VDU1': 2, 'VDU2': 1}

    # Change to the second package: other images, the same counts. The
    # local cloud's servers cannot be rebuilt in place (no Nova), so Heat
    # previews the update rather than running it.
    target = _context('vm_simple_v2')
    ctx.target_vnfd, ctx.target_package = target.vnfd, target.package
    ctx.request = {'vnfdId': target.vnfd['vnfd_id']}
    ctx.vnf_instance = _instance(vdu1=2, level=1)
    current = demo_heat.stacks.get(stack_id).parameters
    changed = userdata.stack_input(ctx, 'change_vnfpkg', current)
    preview = demo_heat.stacks.preview_update(
        stack_id,
        existing=True,
        template=changed.template,
        files=changed.files,
        parameters=changed.parameters,
    )['resource_changes']
    touched = {r['resource_name'] for r in preview['updated']} | {
        r['resource_name'] for r in preview['replaced']
    }
    assert {'VDU1', 'VDU2'} <= touched
    assert changed.parameters['nfv']['VDU']['VDU2']['vcImageId'] == (
        'ubuntu-22.04'
    )
    assert changed.parameters['nfv']['VDU']['VDU1']['desired_capacity'] == 2


def _create_at_level_1(
    demo_heat: heat_client.Client, ctx: base.InfraContext
) -> str:
    """The id of the stack of ``ctx``'s package at instantiation_level_1,
    once created."""
    ctx.request = {**REQUEST, 'instantiationLevelId': 'instantiation_level_1'}
    stack = userdata.stack_input(ctx, 'instantiate')
    created = demo_heat.stacks.create(
        stack_name='vm-simple',
        template=stack.template,
        files=stack.files,
        parameters=stack.parameters,
    )
    stack_id = created['stack']['id']
    _settled(demo_heat, stack_id, 'CREATE')
    return stack_id


def _scale_out_vdu1(
    demo_heat: heat_client.Client, ctx: base.InfraContext, stack_id: str
) -> None:
    ctx.request = {'type': 'SCALE_OUT', 'aspectId': 'VDU1_scale'}
    ctx.vnf_instance = _instance(vdu1=1, level=0)
    current = demo_heat.stacks.get(stack_id).parameters
    scaled = userdata.stack_input(ctx, 'scale', current)
    demo_heat.stacks.update(
        stack_id,
        existing=True,
        template=scaled.template,
        files=scaled.files,
        parameters=scaled.parameters,
    )
    _settled(demo_heat, stack_id, 'UPDATE')
