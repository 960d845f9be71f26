"""Rollback of failed operations of VM-based VNFs through the real client:
an instantiate whose template Heat rejects fails naming the resource and
Heat's reason; one whose stack Heat created and then failed (a VM that
cannot boot) leaves no stack and no VM; a scale-out that fails (the host
is full, as Nova's "No valid host was found") returns to the earlier
VNFCs."""

from __future__ import annotations

from pathlib import Path

import pytest

from vnfm_testbed.client import TackerClient
from vnfm_testbed.openstack.cloud import LocalCloud

from ..conftest import Api
from ..conftest import wait_for
from .test_vnf_lifecycle import _run_op
from .test_vnf_lifecycle import _servers
from .test_vnf_lifecycle import _stacks
from .test_vnf_lifecycle import _vdu1
from .test_vnf_lifecycle import failed_instantiate
from .test_vnf_lifecycle import failed_op
from .test_vnf_lifecycle import instantiated
from .test_vnf_lifecycle import roll_back

pytestmark = pytest.mark.timeout(600)


def _scale_out(inst_id: str) -> tuple[str, ...]:
    """``openstack vnflcm scale`` arguments: VDU1 out by one step."""
    return (
        'scale',
        inst_id,
        '--aspect-id',
        'VDU1_scale',
        '--type',
        'SCALE_OUT',
    )


def _vms(cloud: LocalCloud) -> set[str]:
    return {d.name for d in cloud.vm_dirs()}


def test_a_stack_that_failed_to_create_is_deleted_by_rollback(
    vim: dict,
    packages: dict[str, dict],
    vm_client: TackerClient,
    vm_api: Api,
    local_cloud: LocalCloud,
    tmp_path: Path,
) -> None:
    vms_before = _vms(local_cloud)

    inst_id, op = failed_instantiate(
        vm_client, vm_api, vim, packages['broken']['vnfdId'], tmp_path
    )

    detail = op['error']['detail']
    assert 'VDU2' in detail and 'did not start' in detail, detail
    stack_name = f'vnf-{inst_id}'
    assert _stacks(local_cloud)[stack_name] == 'CREATE_FAILED'
    assert _vms(local_cloud) - vms_before  # the stack made VMs

    roll_back(vm_client, vm_api, op)

    assert stack_name not in _stacks(local_cloud)
    assert _vms(local_cloud) <= vms_before
    inst = vm_api.instance(inst_id)
    assert inst['instantiationState'] == 'NOT_INSTANTIATED'
    vm_client.lcm('delete', inst_id)


@pytest.mark.parametrize(
    ('package', 'reason'),
    [
        # An image not in the catalogue (Glance): Heat refuses the stack.
        ('noimage', ('VDU2', 'no-such-image')),
        # A resource type Heat does not know.
        ('badhot', ('VDU1', 'OS::Nova::NoServer')),
    ],
)
def test_a_stack_heat_refuses_fails_with_heats_reason(
    vim: dict,
    packages: dict[str, dict],
    vm_client: TackerClient,
    vm_api: Api,
    local_cloud: LocalCloud,
    tmp_path: Path,
    package: str,
    reason: tuple[str, str],
) -> None:
    inst_id, op = failed_instantiate(
        vm_client, vm_api, vim, packages[package]['vnfdId'], tmp_path
    )

    detail = op['error']['detail']
    assert all(word in detail for word in reason), detail
    roll_back(vm_client, vm_api, op)
    assert f'vnf-{inst_id}' not in _stacks(local_cloud)
    vm_client.lcm('delete', inst_id)


def test_a_failed_scale_out_rolls_back_to_the_earlier_vnfcs(
    vim: dict,
    packages: dict[str, dict],
    vm_client: TackerClient,
    vm_api: Api,
    local_cloud: LocalCloud,
    tmp_path: Path,
) -> None:
    inst_id = instantiated(
        vm_client, vm_api, vim, packages['simple']['vnfdId'], tmp_path, 'rb'
    )
    stack_name = f'vnf-{inst_id}'
    before = _vdu1(vm_api, inst_id)
    servers = _servers(local_cloud, stack_name)
    scale = vm_api.instance(inst_id)['instantiatedVnfInfo']['scaleStatus']

    local_cloud.set_host_capacity(len(local_cloud.vm_dirs()))
    try:
        op = failed_op(
            vm_client, vm_api, tmp_path, inst_id, 'SCALE', *_scale_out(inst_id)
        )
    finally:
        local_cloud.set_host_capacity(None)

    assert 'No valid host was found' in op['error']['detail']
    assert _stacks(local_cloud)[stack_name] == 'UPDATE_FAILED'

    roll_back(vm_client, vm_api, op)

    assert _stacks(local_cloud)[stack_name] == 'UPDATE_COMPLETE'
    assert _vdu1(vm_api, inst_id) == before
    assert _servers(local_cloud, stack_name) == servers
    info = vm_api.instance(inst_id)['instantiatedVnfInfo']
    assert info['scaleStatus'] == scale
    # The group is usable again: the same scale-out now works.
    _run_op(
        vm_client, vm_api, tmp_path, inst_id, 'SCALE', *_scale_out(inst_id)
    )
    assert len(_vdu1(vm_api, inst_id)) == len(before) + 1

    _run_op(
        vm_client, vm_api, tmp_path, inst_id, 'TERMINATE', 'terminate', inst_id
    )
    wait_for(
        lambda: stack_name not in _stacks(local_cloud), 60, 'stack deleted'
    )
    vm_client.lcm('delete', inst_id)
