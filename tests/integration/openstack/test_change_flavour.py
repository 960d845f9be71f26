"""Change VNF flavour on the local cloud: the vm_flavours sample from
flavour simple to large (one VDU more) by a real Heat stack update, seen
with ``openstack stack resource list``, and back to simple."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vnfm.csar.build import build_csar
from vnfm_testbed.client import TackerClient
from vnfm_testbed.openstack import vmsample
from vnfm_testbed.openstack.cloud import LocalCloud

from ..conftest import Api
from .test_vnf_lifecycle import _run_op
from .test_vnf_lifecycle import _servers

pytestmark = pytest.mark.timeout(900)
SAMPLE = vmsample.SAMPLE.parent / 'vm_flavours'


def _change(api: Api, inst_id: str, body: dict) -> dict:
    api.ok('POST', f'/vnf_instances/{inst_id}/change_flavour', 202, json=body)
    op = api.latest_op(inst_id, 'CHANGE_FLAVOUR')
    return api.wait_op(op['id'], 'COMPLETED', timeout=300)


def _vdus(api: Api, inst_id: str) -> tuple[str, list[str]]:
    info = api.instance(inst_id)['instantiatedVnfInfo']
    return info['flavourId'], sorted(
        v['vduId'] for v in info['vnfcResourceInfo']
    )


def test_change_to_large_and_back_by_stack_updates(
    vim: dict,  # noqa: F811
    vm_client: TackerClient,  # noqa: F811
    vm_api: Api,  # noqa: F811
    local_cloud: LocalCloud,
    tmp_path: Path,
) -> None:
    inst_id = _instantiate_simple(vim, vm_client, vm_api, tmp_path)
    stack = f'vnf-{inst_id}'
    before = _servers(local_cloud, stack)
    assert len(before) == 2

    op = _change_to_large_with_vdu3_on_mgmt_net(vm_api, inst_id)

    assert _vdus(vm_api, inst_id) == ('large', ['VDU1', 'VDU2', 'VDU3'])
    after = _servers(local_cloud, stack)
    # The servers both flavours have stay; VDU3's is new.
    assert before < after and len(after) == 3
    added = op['resourceChanges']['affectedVnfcs']
    assert [(c['vduId'], c['changeType']) for c in added] == [
        ('VDU3', 'ADDED')
    ]

    _change(vm_api, inst_id, {'newFlavourId': 'simple'})

    assert _vdus(vm_api, inst_id) == ('simple', ['VDU1', 'VDU2'])
    assert _servers(local_cloud, stack) == before
    _run_op(
        vm_client, vm_api, tmp_path, inst_id, 'TERMINATE', 'terminate',
        inst_id,
    )  # fmt: skip
    vm_client.lcm('delete', inst_id)


def _instantiate_simple(
    vim: dict, vm_client: TackerClient, vm_api: Api, tmp_path: Path
) -> str:
    """The id of a VNF instance of the vm_flavours sample, instantiated."""
    zipped = tmp_path / 'vm_flavours.zip'
    zipped.write_bytes(build_csar(str(SAMPLE)))
    vnfd_id = vm_api.onboard(zipped, timeout=60)['vnfdId']
    inst_id = vm_client.lcm_json('create', vnfd_id, '--name', 'vm-fl')['ID']
    body = tmp_path / 'inst.json'
    body.write_text(json.dumps(vmsample.instantiate_request(vim['id'])))
    _run_op(
        vm_client, vm_api, tmp_path, inst_id, 'INSTANTIATE', 'instantiate',
        inst_id, str(body),
    )  # fmt: skip
    return inst_id


def _change_to_large_with_vdu3_on_mgmt_net(vm_api: Api, inst_id: str) -> dict:
    return _change(
        vm_api,
        inst_id,
        {
            'newFlavourId': 'large',
            'extVirtualLinks': [
                {
                    'id': 'ext1',
                    'resourceId': 'mgmt-net',
                    'extCps': [{'cpdId': 'VDU3_CP1', 'cpConfig': {'a': {}}}],
                }
            ],
        },
    )
