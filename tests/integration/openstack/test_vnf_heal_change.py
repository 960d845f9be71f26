"""Heal and change_vnfpkg of a VM-based VNF through the real client, on one
vm_simple instance shared by the tests in file order: heal of one VNFC
(new server, same VNFC id, its volume and data kept, the others
untouched), heal of the whole instance, a change-vnfpkg whose image is not
in the catalogue and its rollback, change-vnfpkg to vm_simple_v2."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

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
from .test_vnf_lifecycle import _ssh_run
from .test_vnf_lifecycle import _stacks

pytestmark = pytest.mark.timeout(600)

UBUNTU = catalogue.IMAGES['ubuntu-22.04']
CIRROS = catalogue.IMAGES['cirros-0.6']
MOUNT = 'sudo -n mkdir -p /mnt/d && sudo -n mount /dev/vdb /mnt/d'


@pytest.fixture(scope='module')
def instance(
    vim: dict,
    packages: dict[str, dict],
    vm_client: TackerClient,
    vm_api: Api,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[str]:
    """An instantiated vm_simple; terminated and deleted afterwards."""
    tmp = tmp_path_factory.mktemp('vm-heal')
    vnfd_id = packages['simple']['vnfdId']
    inst_id = vm_client.lcm_json('create', vnfd_id, '--name', 'vm-heal')['ID']
    body = tmp / 'inst.json'
    body.write_text(json.dumps(vmsample.instantiate_request(vim['id'])))
    _run_op(
        vm_client,
        vm_api,
        tmp,
        inst_id,
        'INSTANTIATE',
        'instantiate',
        inst_id,
        str(body),
    )
    yield inst_id
    _run_op(vm_client, vm_api, tmp, inst_id, 'TERMINATE', 'terminate', inst_id)
    vm_client.lcm('delete', inst_id)


def _vnfcs(api: Api, inst_id: str) -> dict[str, dict]:
    info = api.instance(inst_id)['instantiatedVnfInfo']
    return {v['id']: v for v in info['vnfcResourceInfo']}


def _server_ids(vnfcs: dict[str, dict]) -> dict[str, str]:
    return {k: v['computeResource']['resourceId'] for k, v in vnfcs.items()}


def _volumes(api: Api, inst_id: str) -> dict[str, str]:
    """virtualStorageResourceInfo id -> Cinder volume id."""
    info = api.instance(inst_id)['instantiatedVnfInfo']
    return {
        s['id']: s['storageResource']['resourceId']
        for s in info.get('virtualStorageResourceInfo') or []
    }


def _attached_to(cloud: LocalCloud, stack_name: str, volume_id: str) -> set:
    """Servers the volume's Heat resource says it is attached to (the
    local cloud has no Cinder API: its volumes are Heat's)."""
    listed = _openstack(
        cloud, 'stack', 'resource', 'list', '-n', '3', stack_name
    )
    [vol] = [r for r in listed if r['physical_resource_id'] == volume_id]
    shown = _openstack(
        cloud,
        'stack',
        'resource',
        'show',
        vol['stack_name'],
        vol['resource_name'],
    )
    attrs = shown['attributes']
    if isinstance(attrs, str):
        attrs = json.loads(attrs)
    return {a['server_id'] for a in attrs['attachments']}


def _vnfc_info_id(api: Api, inst_id: str, resource_id: str) -> str:
    """The vnfcInfo id (what a v2 heal names) of a vnfcResourceInfo."""
    info = api.instance(inst_id)['instantiatedVnfInfo']
    [vnfc] = [
        v['id']
        for v in info['vnfcInfo']
        if v['vnfcResourceInfoId'] == resource_id
    ]
    return str(vnfc)


def _vdu(vnfcs: dict[str, dict], vdu_id: str) -> dict:
    [vnfc] = [v for v in vnfcs.values() if v['vduId'] == vdu_id]
    return vnfc


def test_heal_of_one_vnfc_replaces_its_server_and_keeps_its_volume(
    instance: str,
    vm_client: TackerClient,
    vm_api: Api,
    local_cloud: LocalCloud,
    tmp_path: Path,
) -> None:
    before = _vnfcs(vm_api, instance)
    vdu1 = _vdu(before, 'VDU1')
    address = _cp_address(vdu1, 'VDU1_CP1')
    user, password = UBUNTU['user'], UBUNTU['password']
    _write_kept_on_the_volume(address, user, password)
    volumes = _volumes(vm_api, instance)
    [storage] = vdu1['storageResourceIds']

    _heal_one_vnfc(vm_client, vm_api, tmp_path, instance, vdu1['id'])

    after = _vnfcs(vm_api, instance)
    assert after.keys() == before.keys()
    new_server = after[vdu1['id']]['computeResource']['resourceId']
    assert new_server != vdu1['computeResource']['resourceId']
    others = set(before) - {vdu1['id']}
    assert {k: _server_ids(after)[k] for k in others} == {
        k: _server_ids(before)[k] for k in others
    }
    assert set(_server_ids(after).values()) == _servers(
        local_cloud, f'vnf-{instance}'
    )
    assert after[vdu1['id']]['storageResourceIds'] == [storage]
    assert _volumes(vm_api, instance) == volumes
    assert _attached_to(local_cloud, f'vnf-{instance}', volumes[storage]) == {
        new_server
    }
    assert _ssh_run(address, user, password, f'{MOUNT} && cat /mnt/d/f') == (
        'kept'
    )


def _write_kept_on_the_volume(address: str, user: str, password: str) -> None:
    """A file system on /dev/vdb with file f saying kept."""
    _ssh_run(
        address,
        user,
        password,
        f'sudo -n mkfs.ext4 -q /dev/vdb && {MOUNT}'
        ' && echo kept | sudo -n tee /mnt/d/f && sync',
    )


def _heal_one_vnfc(
    vm_client: TackerClient,
    vm_api: Api,
    tmp_path: Path,
    instance: str,
    vnfc_id: str,
) -> None:
    _run_op(
        vm_client,
        vm_api,
        tmp_path,
        instance,
        'HEAL',
        'heal',
        instance,
        '--vnfc-instance',
        _vnfc_info_id(vm_api, instance, vnfc_id),
    )


def test_heal_of_the_whole_instance_replaces_every_server(
    instance: str,
    vm_client: TackerClient,
    vm_api: Api,
    local_cloud: LocalCloud,
    tmp_path: Path,
) -> None:
    before = _server_ids(_vnfcs(vm_api, instance))
    volumes = _volumes(vm_api, instance)

    _run_op(vm_client, vm_api, tmp_path, instance, 'HEAL', 'heal', instance)

    after = _server_ids(_vnfcs(vm_api, instance))
    assert after.keys() == before.keys()
    assert not set(after.values()) & set(before.values())
    assert set(after.values()) == _servers(local_cloud, f'vnf-{instance}')
    assert _volumes(vm_api, instance) == volumes
    vdu2 = _vdu(_vnfcs(vm_api, instance), 'VDU2')
    assert _ssh_hostname(
        _cp_address(vdu2, 'VDU2_CP1'), CIRROS['user'], CIRROS['password']
    )


def _nfv(cloud: LocalCloud, stack_name: str) -> dict:
    shown = _openstack(cloud, 'stack', 'show', stack_name)
    value = shown['parameters']['nfv']
    return json.loads(value) if isinstance(value, str) else value


def _change_request(tmp_path: Path, vnfd_id: str) -> Path:
    body = tmp_path / 'change.json'
    body.write_text(
        json.dumps(
            {
                'vnfdId': vnfd_id,
                'additionalParams': {
                    'upgrade_type': 'RollingUpdate',
                    'vdu_params': [{'vdu_id': 'VDU1'}, {'vdu_id': 'VDU2'}],
                },
            }
        )
    )
    return body


def test_a_failed_change_vnfpkg_rolls_back_to_the_old_servers(
    instance: str,
    packages: dict[str, dict],
    vm_client: TackerClient,
    vm_api: Api,
    local_cloud: LocalCloud,
    tmp_path: Path,
) -> None:
    stack_name = f'vnf-{instance}'
    before = _server_ids(_vnfcs(vm_api, instance))
    body = _change_request(tmp_path, packages['v2noimage']['vnfdId'])

    op = _run_op(
        vm_client,
        vm_api,
        tmp_path,
        instance,
        'CHANGE_VNFPKG',
        'change-vnfpkg',
        instance,
        str(body),
        state='FAILED_TEMP',
    )

    detail = op['error']['detail']
    assert 'VDU1' in detail and 'no-such-image' in detail, detail
    assert _stacks(local_cloud)[stack_name] == 'UPDATE_FAILED'

    vm_client.lcm('op', 'rollback', op['id'])
    vm_api.wait_op(op['id'], 'ROLLED_BACK', timeout=300)

    assert vm_api.instance(instance)['vnfdId'] == packages['simple']['vnfdId']
    assert _stacks(local_cloud)[stack_name] == 'UPDATE_COMPLETE'
    vdus = _nfv(local_cloud, stack_name)['VDU']
    assert vdus['VDU1']['vcImageId'] == 'ubuntu-22.04'
    assert vdus['VDU2']['vcImageId'] == 'cirros-0.6'
    # The same VNFCs on the same servers (rebuilt in place where Heat had
    # started on the new image), each VM with its old image's login.
    after = _vnfcs(vm_api, instance)
    assert _server_ids(after) == before
    assert set(before.values()) == _servers(local_cloud, stack_name)
    vdu1, vdu2 = _vdu(after, 'VDU1'), _vdu(after, 'VDU2')
    assert _ssh_hostname(
        _cp_address(vdu1, 'VDU1_CP1'), UBUNTU['user'], UBUNTU['password']
    )
    assert _ssh_hostname(
        _cp_address(vdu2, 'VDU2_CP1'), CIRROS['user'], CIRROS['password']
    )


def test_change_vnfpkg_to_v2_changes_the_images(
    instance: str,
    packages: dict[str, dict],
    vm_client: TackerClient,
    vm_api: Api,
    local_cloud: LocalCloud,
    tmp_path: Path,
) -> None:
    stack_name = f'vnf-{instance}'
    before = _vnfcs(vm_api, instance)
    body = _change_request(tmp_path, packages['v2']['vnfdId'])

    _run_op(
        vm_client,
        vm_api,
        tmp_path,
        instance,
        'CHANGE_VNFPKG',
        'change-vnfpkg',
        instance,
        str(body),
    )

    assert vm_api.instance(instance)['vnfdId'] == packages['v2']['vnfdId']
    assert _stacks(local_cloud)[stack_name] == 'UPDATE_COMPLETE'
    vdus = _nfv(local_cloud, stack_name)['VDU']
    assert vdus['VDU1']['vcImageId'] == 'cirros-0.6'
    assert vdus['VDU2']['vcImageId'] == 'ubuntu-22.04'
    after = _vnfcs(vm_api, instance)
    assert after.keys() == before.keys()
    assert set(_server_ids(after).values()) == _servers(
        local_cloud, stack_name
    )
    # Each VM answers with its new image's login.
    vdu1, vdu2 = _vdu(after, 'VDU1'), _vdu(after, 'VDU2')
    assert _ssh_hostname(
        _cp_address(vdu1, 'VDU1_CP1'), CIRROS['user'], CIRROS['password']
    )
    assert _ssh_hostname(
        _cp_address(vdu2, 'VDU2_CP1'), UBUNTU['user'], UBUNTU['password']
    )
