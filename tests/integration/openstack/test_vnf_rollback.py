"""Rollback of failed operations of VM-based VNFs through the real client:
an instantiate whose stack Heat created and then failed (a VM that cannot
boot) leaves no stack and no VM; a scale-out that fails (the host is full,
as Nova's "No valid host was found") returns to the earlier VNFCs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vnfm.testing import vmsample
from vnfm.testing.client import TackerClient
from vnfm.testing.openstack.cloud import LocalCloud

from ..conftest import Api
from ..conftest import wait_for
from .test_vnf_lifecycle import _run_op
from .test_vnf_lifecycle import _servers
from .test_vnf_lifecycle import _stacks
from .test_vnf_lifecycle import _vdu1

pytestmark = pytest.mark.timeout(600)


def _instance(
    client: TackerClient, vim: dict, vnfd_id: str, tmp_path: Path
) -> tuple[str, Path]:
    inst_id = client.lcm_json('create', vnfd_id, '--name', 'vm-rb')['ID']
    body = tmp_path / 'inst.json'
    body.write_text(json.dumps(vmsample.instantiate_request(vim['id'])))
    return inst_id, body


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
    inst_id, body = _instance(
        vm_client, vim, packages['broken']['vnfdId'], tmp_path
    )

    op = _run_op(
        vm_client,
        vm_api,
        tmp_path,
        inst_id,
        'INSTANTIATE',
        'instantiate',
        inst_id,
        str(body),
        state='FAILED_TEMP',
    )

    detail = op['error']['detail']
    assert 'VDU2' in detail and 'did not start' in detail, detail
    stack_name = f'vnf-{inst_id}'
    assert _stacks(local_cloud)[stack_name] == 'CREATE_FAILED'
    assert _vms(local_cloud) - vms_before  # the stack made VMs

    vm_client.lcm('op', 'rollback', op['id'])
    vm_api.wait_op(op['id'], 'ROLLED_BACK', timeout=300)

    assert stack_name not in _stacks(local_cloud)
    assert _vms(local_cloud) <= vms_before
    inst = vm_api.instance(inst_id)
    assert inst['instantiationState'] == 'NOT_INSTANTIATED'
    vm_client.lcm('delete', inst_id)


def test_a_failed_scale_out_rolls_back_to_the_earlier_vnfcs(
    vim: dict,
    packages: dict[str, dict],
    vm_client: TackerClient,
    vm_api: Api,
    local_cloud: LocalCloud,
    tmp_path: Path,
) -> None:
    inst_id, body = _instance(
        vm_client, vim, packages['simple']['vnfdId'], tmp_path
    )
    _run_op(
        vm_client,
        vm_api,
        tmp_path,
        inst_id,
        'INSTANTIATE',
        'instantiate',
        inst_id,
        str(body),
    )
    stack_name = f'vnf-{inst_id}'
    before = _vdu1(vm_api, inst_id)
    servers = _servers(local_cloud, stack_name)
    scale = vm_api.instance(inst_id)['instantiatedVnfInfo']['scaleStatus']

    local_cloud.set_host_capacity(len(local_cloud.vm_dirs()))
    try:
        op = _run_op(
            vm_client,
            vm_api,
            tmp_path,
            inst_id,
            'SCALE',
            'scale',
            inst_id,
            '--aspect-id',
            'VDU1_scale',
            '--type',
            'SCALE_OUT',
            state='FAILED_TEMP',
        )
    finally:
        local_cloud.set_host_capacity(None)

    assert 'No valid host was found' in op['error']['detail']
    assert _stacks(local_cloud)[stack_name] == 'UPDATE_FAILED'

    vm_client.lcm('op', 'rollback', op['id'])
    vm_api.wait_op(op['id'], 'ROLLED_BACK', timeout=300)

    assert _stacks(local_cloud)[stack_name] == 'UPDATE_COMPLETE'
    assert _vdu1(vm_api, inst_id) == before
    assert _servers(local_cloud, stack_name) == servers
    info = vm_api.instance(inst_id)['instantiatedVnfInfo']
    assert info['scaleStatus'] == scale
    # The group is usable again: the same scale-out now works.
    _run_op(
        vm_client,
        vm_api,
        tmp_path,
        inst_id,
        'SCALE',
        'scale',
        inst_id,
        '--aspect-id',
        'VDU1_scale',
        '--type',
        'SCALE_OUT',
    )
    assert len(_vdu1(vm_api, inst_id)) == len(before) + 1

    _run_op(
        vm_client, vm_api, tmp_path, inst_id, 'TERMINATE', 'terminate', inst_id
    )
    wait_for(
        lambda: stack_name not in _stacks(local_cloud), 60, 'stack deleted'
    )
    vm_client.lcm('delete', inst_id)
