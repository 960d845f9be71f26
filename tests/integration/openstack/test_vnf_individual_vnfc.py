"""Individual VNFC management (Tacker v2's StandardUserData) through the
real client on the local cloud, with the vm_vnfc sample, on one instance
shared by the tests in file order: created with ``VDU_VNFc_mapping``,
instantiated with ``nfv.VDU.VDU1-0.name``, scaled out by 2 steps (two new
servers), VDU1-1 healed alone, scaled in by 1, terminated; its internal
VL, a network of the HOT, is the extManagedVirtualLink's network."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from vnfm.csar.build import build_csar
from vnfm_testbed.client import TackerClient
from vnfm_testbed.openstack import catalogue
from vnfm_testbed.openstack import vmsample
from vnfm_testbed.openstack.cloud import LocalCloud

from ..conftest import Api
from .test_vnf_lifecycle import _cp_address
from .test_vnf_lifecycle import _openstack
from .test_vnf_lifecycle import _run_op
from .test_vnf_lifecycle import _servers
from .test_vnf_lifecycle import _ssh_hostname
from .test_vnf_lifecycle import _stacks

pytestmark = pytest.mark.timeout(600)

SAMPLE = vmsample.SAMPLE.with_name('vm_vnfc')
UBUNTU = catalogue.IMAGES['ubuntu-22.04']
MAPPING = {'VDU1': ['a-001', 'a-010', 'a-011']}
FIRST_NAME = 'VDU1-a-001-instantiate'


@pytest.fixture(scope='module')
def instance(
    vim: dict,
    vm_client: TackerClient,
    vm_api: Api,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[str]:
    """A vm_vnfc instance made with VDU_VNFc_mapping, instantiated with
    the first VNFC's name; terminated (if a test did not) and deleted."""
    tmp = tmp_path_factory.mktemp('vm-vnfc')
    csar = tmp / 'vm_vnfc.zip'
    csar.write_bytes(build_csar(str(SAMPLE)))
    vnfd_id = vm_api.onboard(csar, timeout=60)['vnfdId']
    # The client's create has no option for metadata: the API's own call.
    body = {
        'vnfdId': vnfd_id,
        'vnfInstanceName': 'vm-vnfc',
        'metadata': {'VDU_VNFc_mapping': MAPPING},
    }
    inst_id = vm_api.ok('POST', '/vnf_instances', 201, json=body).json()['id']
    request = vmsample.instantiate_request(vim['id'])
    request['additionalParams'] = {
        'nfv': {'VDU': {'VDU1-0': {'name': FIRST_NAME}}}
    }
    path = tmp / 'inst.json'
    path.write_text(json.dumps(request))
    _run_op(
        vm_client, vm_api, tmp, inst_id, 'INSTANTIATE', 'instantiate',
        inst_id, str(path),
    )  # fmt: skip
    yield inst_id
    if vm_api.instance(inst_id)['instantiationState'] == 'INSTANTIATED':
        _run_op(
            vm_client, vm_api, tmp, inst_id, 'TERMINATE', 'terminate', inst_id
        )
    vm_client.lcm('delete', inst_id)


def _vdu1(api: Api, inst_id: str) -> dict[str, dict]:
    """VDU1's vnfcResourceInfo by id."""
    info = api.instance(inst_id)['instantiatedVnfInfo']
    return {
        v['id']: v for v in info['vnfcResourceInfo'] if v['vduId'] == 'VDU1'
    }


def _hostname(vnfc: dict) -> str:
    """The VM's host name, which Nova makes from its server name (lower
    case): compared with the server name vnfm gave it."""
    address = _cp_address(vnfc, 'VDU1_CP1')
    return _ssh_hostname(address, UBUNTU['user'], UBUNTU['password'])


def _stack_name(api: Api, inst_id: str) -> str:
    info = api.instance(inst_id)['instantiatedVnfInfo']
    return str(info['metadata']['stack_name'])


def _scale(
    client: TackerClient, api: Api, tmp: Path, inst_id: str, kind: str,
    steps: int,
) -> None:  # fmt: skip
    _run_op(
        client, api, tmp, inst_id, 'SCALE', 'scale', inst_id,
        '--type', kind, '--aspect-id', 'VDU1_scale',
        '--number-of-steps', str(steps),
    )  # fmt: skip


def test_instantiate_names_the_server_and_takes_the_vnfc_id(
    instance: str, vm_api: Api
) -> None:
    vdu1 = _vdu1(vm_api, instance)

    assert list(vdu1) == ['a-001']
    assert vdu1['a-001']['metadata']['vdu_idx'] == 0
    views = vm_api.instance(instance)['instantiatedVnfInfo']['vnfcInfo']
    [view] = [v for v in views if v['vnfcResourceInfoId'] == 'a-001']
    assert view['metadata'] == {'vdu_idx': 0}
    assert _hostname(vdu1['a-001']) == FIRST_NAME.lower()


def test_the_managed_link_network_is_used_not_made(
    instance: str, vm_api: Api, local_cloud: LocalCloud
) -> None:
    info = vm_api.instance(instance)['instantiatedVnfInfo']

    [link] = info['extManagedVirtualLinkInfo']
    assert link['vnfVirtualLinkDescId'] == 'internalVL1'
    assert link['networkResource']['resourceId'] == 'data-net-1'
    assert len(link['vnfLinkPorts']) == 1
    listed = _openstack(
        local_cloud, 'stack', 'resource', 'list', '-n', '3',
        _stack_name(vm_api, instance),
    )  # fmt: skip
    kinds = {r['resource_type'] for r in listed}
    assert 'OS::Neutron::Net' not in kinds
    assert 'OS::Neutron::Subnet' not in kinds
    cps = [cp for v in info['vnfcResourceInfo'] for cp in v['vnfcCpInfo']]
    ext_ids = {e['id'] for e in info['extCpInfo']}
    assert {c['cpdId'] for c in cps if c.get('vnfExtCpId') in ext_ids} == {
        'VDU1_CP1',
        'VDU2_CP1',
    }


def test_scale_out_by_two_steps_makes_two_new_servers(
    instance: str,
    vm_client: TackerClient,
    vm_api: Api,
    local_cloud: LocalCloud,
    tmp_path: Path,
) -> None:
    stack = _stack_name(vm_api, instance)
    before = _servers(local_cloud, stack)

    _scale(vm_client, vm_api, tmp_path, instance, 'SCALE_OUT', 2)

    vdu1 = _vdu1(vm_api, instance)
    assert sorted(vdu1) == MAPPING['VDU1']
    assert {v['metadata']['vdu_idx'] for v in vdu1.values()} == {0, 1, 2}
    new = _servers(local_cloud, stack) - before
    assert new == {
        vdu1[i]['computeResource']['resourceId'] for i in ('a-010', 'a-011')
    }
    assert _hostname(vdu1['a-010']) == 'vdu1-1'
    assert _hostname(vdu1['a-011']) == 'vdu1-2'
    assert _hostname(vdu1['a-001']) == FIRST_NAME.lower()


def test_heal_of_vdu1_1_replaces_its_server_alone(
    instance: str,
    vm_client: TackerClient,
    vm_api: Api,
    tmp_path: Path,
) -> None:
    before = _vdu1(vm_api, instance)
    views = vm_api.instance(instance)['instantiatedVnfInfo']['vnfcInfo']
    [healed] = [v['id'] for v in views if v['vnfcResourceInfoId'] == 'a-010']

    _run_op(
        vm_client, vm_api, tmp_path, instance, 'HEAL', 'heal', instance,
        '--vnfc-instance', healed,
    )  # fmt: skip

    after = _vdu1(vm_api, instance)
    assert sorted(after) == sorted(before)
    changed = {
        i
        for i in after
        if after[i]['computeResource'] != before[i]['computeResource']
    }
    assert changed == {'a-010'}
    assert after['a-010']['metadata']['vdu_idx'] == 1
    assert _hostname(after['a-010']) == 'vdu1-1'


def test_scale_in_removes_the_highest_index(
    instance: str,
    vm_client: TackerClient,
    vm_api: Api,
    local_cloud: LocalCloud,
    tmp_path: Path,
) -> None:
    stack = _stack_name(vm_api, instance)
    before = _vdu1(vm_api, instance)

    _scale(vm_client, vm_api, tmp_path, instance, 'SCALE_IN', 1)

    after = _vdu1(vm_api, instance)
    assert sorted(after) == ['a-001', 'a-010']
    gone = before['a-011']['computeResource']['resourceId']
    assert gone not in _servers(local_cloud, stack)


def test_terminate_deletes_the_stack(
    instance: str,
    vm_client: TackerClient,
    vm_api: Api,
    local_cloud: LocalCloud,
    tmp_path: Path,
) -> None:
    stack = _stack_name(vm_api, instance)

    _run_op(
        vm_client, vm_api, tmp_path, instance, 'TERMINATE', 'terminate',
        instance,
    )  # fmt: skip

    assert stack not in _stacks(local_cloud)
    assert vm_api.instance(instance)['instantiationState'] == (
        'NOT_INSTANTIATED'
    )
