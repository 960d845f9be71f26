"""A package that carries its software image (issue 19, items 4 and 8),
through the real client on the local cloud: instantiate uploads the image
file to the image service (``openstack image`` shows it with the file's
checksum), a second instance uses the same image, the terminate of the
last user deletes it; VDU1 is a server named with ``_`` (host name as
Nova makes it), VDU2 boots from a volume of a volume type made from the
image. Heat lets only admins make volume types: the VIM is the local
cloud's admin project."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from vnfm.csar.build import build_csar
from vnfm_testbed.client import TackerClient
from vnfm_testbed.openstack import vmsample
from vnfm_testbed.openstack.cloud import LocalCloud

from ..conftest import Api
from .conftest import openstack
from .test_vnf_lifecycle import _run_op

pytestmark = pytest.mark.timeout(600)
SAMPLE = vmsample.SAMPLE.with_name('vm_image')
IMAGE = 'vnfm-test-image'
FILE = SAMPLE / 'Files' / 'images' / 'vnfm-test.img'


@pytest.fixture
def admin_vim(
    vm_client: TackerClient, local_cloud: LocalCloud, tmp_path: Path
) -> dict:
    """The local cloud registered as a VIM of its admin."""
    creds = local_cloud.credentials('admin')
    config = tmp_path / 'admin-vim.yaml'
    config.write_text(
        yaml.safe_dump(
            {
                'auth_url': creds['auth_url'],
                'username': creds['username'],
                'password': creds['password'],
                'project_name': creds['project_name'],
                'project_domain_name': 'Default',
                'user_domain_name': 'Default',
                'cert_verify': 'True',
            }
        )
    )
    return dict(
        vm_client.json(
            'vim', 'register', '--config-file', str(config), 'local-admin'
        )
    )


def _request(vim_id: str) -> dict[str, Any]:
    return {
        'flavourId': 'simple',
        'vimConnectionInfo': {
            'vim1': {'vimId': vim_id, 'vimType': vmsample.VIM_TYPE}
        },
        'extVirtualLinks': [
            {
                'id': 'ext1',
                'resourceId': 'mgmt-net',
                'extCps': [
                    {'cpdId': 'VDU1_CP1', 'cpConfig': {'a': {}}},
                    {'cpdId': 'VDU2_CP1', 'cpConfig': {'a': {}}},
                ],
            }
        ],
    }


def _instantiate(
    client: TackerClient, api: Api, vim: dict, vnfd_id: str, tmp: Path
) -> str:
    inst = str(client.lcm_json('create', vnfd_id, '--name', 'vm-img')['ID'])
    body = tmp / f'{inst}.json'
    body.write_text(json.dumps(_request(vim['id'])))
    _run_op(
        client, api, tmp, inst, 'INSTANTIATE', 'instantiate', inst, str(body)
    )
    return inst


def _images(cloud: LocalCloud) -> list[dict[str, Any]]:
    """The images of the name, as ``openstack image list/show`` shows."""
    listed = json.loads(
        openstack(
            cloud, 'admin', 'image', 'list', '--name', IMAGE, '-f', 'json'
        )
    )
    return [
        json.loads(
            openstack(cloud, 'admin', 'image', 'show', i['ID'], '-f', 'json')
        )
        for i in listed
    ]


def _resource(api: Api, inst: str, vdu: str) -> str:
    info = api.instance(inst)['instantiatedVnfInfo']
    (vnfc,) = [v for v in info['vnfcResourceInfo'] if v['vduId'] == vdu]
    return str(vnfc['computeResource']['resourceId'])


def _spec(cloud: LocalCloud, server_id: str) -> dict[str, Any]:
    return dict(
        json.loads(
            (cloud.state_dir / 'vms' / server_id / 'spec.json').read_text()
        )
    )


def _volume_of(cloud: LocalCloud, server_id: str) -> dict[str, Any]:
    for path in (cloud.state_dir / 'volumes').glob('*.json'):
        volume = json.loads(path.read_text())
        if any(a['server_id'] == server_id for a in volume['attachments']):
            return dict(volume)
    raise AssertionError(f'no volume attached to {server_id}')


def _heat_status(cloud: LocalCloud, inst: str, vdu: str) -> str:
    """Nova's status of a VDU's server, as Heat shows it (and the
    periodic sync reads it)."""
    shown = json.loads(
        openstack(
            cloud,
            'admin',
            'stack',
            'resource',
            'show',
            f'vnf-{inst}',
            vdu,
            '-f',
            'json',
        )  # fmt: skip
    )
    return str(shown['attributes']['status'])


def check_uploaded(cloud: LocalCloud) -> dict[str, Any]:
    """One active image of the package's file, its checksum the file's."""
    (image,) = _images(cloud)
    data = FILE.read_bytes()
    assert image['status'] == 'active'
    assert image['checksum'] == hashlib.md5(data).hexdigest()  # noqa: S324
    assert image['size'] == len(data)
    assert image['disk_format'] == 'raw'
    return image


def check_servers(
    cloud: LocalCloud, api: Api, inst: str, image_id: str
) -> None:
    """VDU1 of the uploaded image, host name from ``VDU_1-img``; VDU2
    booted from a volume of the stack's volume type made from it."""
    vdu1 = _spec(cloud, _resource(api, inst, 'VDU1'))
    assert vdu1['hostname'] == 'vdu-1-img'
    assert vdu1['image'] == IMAGE
    vdu2 = _resource(api, inst, 'VDU2')
    assert _spec(cloud, vdu2)['image'] == IMAGE
    volume = _volume_of(cloud, vdu2)
    assert volume['bootable'] == 'true'
    assert volume['volume_image_metadata']['image_id'] == image_id
    assert volume['volume_type'] == f'vnf-{inst}-fast'
    assert _heat_status(cloud, inst, 'VDU1') == 'ACTIVE'
    assert _heat_status(cloud, inst, 'VDU2') == 'ACTIVE'


def test_a_packaged_image_is_uploaded_shared_and_removed_by_its_last_user(
    admin_vim: dict,
    vm_client: TackerClient,
    vm_api: Api,
    local_cloud: LocalCloud,
    tmp_path: Path,
) -> None:
    (tmp_path / 'pkg.zip').write_bytes(build_csar(str(SAMPLE)))
    vnfd_id = vm_api.onboard(tmp_path / 'pkg.zip', timeout=60)['vnfdId']
    assert _images(local_cloud) == []

    first = _instantiate(vm_client, vm_api, admin_vim, vnfd_id, tmp_path)
    image = check_uploaded(local_cloud)
    check_servers(local_cloud, vm_api, first, image['id'])

    second = _instantiate(vm_client, vm_api, admin_vim, vnfd_id, tmp_path)
    assert check_uploaded(local_cloud)['id'] == image['id']
    check_servers(local_cloud, vm_api, second, image['id'])

    _run_op(
        vm_client, vm_api, tmp_path, first, 'TERMINATE', 'terminate', first
    )
    assert [i['id'] for i in _images(local_cloud)] == [image['id']]
    _run_op(
        vm_client, vm_api, tmp_path, second, 'TERMINATE', 'terminate', second
    )
    assert _images(local_cloud) == []
