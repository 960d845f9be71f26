"""The OpenStack VIM from a Tacker v1 request (``/vnflcm/v1``,
vimConnectionInfo a list, vimType ``openstack``), and a VIM whose password
was changed in Keystone after registration, through the real client."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
import yaml

from vnfm_testbed.client import TackerClient
from vnfm_testbed.openstack import identity
from vnfm_testbed.openstack import vmsample
from vnfm_testbed.openstack.cloud import ADMIN
from vnfm_testbed.openstack.cloud import LocalCloud

from ..conftest import Api
from ..conftest import wait_for
from .test_vnf_lifecycle import _servers
from .test_vnf_lifecycle import _stacks

pytestmark = pytest.mark.timeout(600)


def _v1_request(vim_id: str) -> dict:
    """vm_simple's instantiate request in v1 form."""
    return vmsample.as_v1(vmsample.instantiate_request(vim_id))


def _config(cloud: LocalCloud, path: Path, user: str, password: str) -> Path:
    """A VIM config file of ``user`` in the demo project."""
    path.write_text(
        yaml.safe_dump(
            {
                'auth_url': f'{cloud.auth_url}/v3',
                'username': user,
                'password': password,
                'project_name': 'demo',
                'project_domain_name': 'Default',
                'user_domain_name': 'Default',
                'cert_verify': 'True',
            }
        )
    )
    return path


def _v1_run(
    client: TackerClient, api: Api, inst_id: str, *args: str, state: str
) -> dict:
    client.run('vnflcm', *args, api_version='1')
    op_id = api.latest_op(inst_id, args[0].upper())['id']
    return api.wait_op(op_id, state, timeout=300)


def test_a_v1_request_instantiates_on_the_openstack_vim(
    vim: dict,
    packages: dict[str, dict],
    vm_client: TackerClient,
    vm_api: Api,
    local_cloud: LocalCloud,
    tmp_path: Path,
) -> None:
    vnfd_id = packages['simple']['vnfdId']
    created = vm_client.json(
        'vnflcm', 'create', vnfd_id, '--name', 'vm-v1', api_version='1'
    )
    inst_id = created['ID']
    body = tmp_path / 'inst.json'
    body.write_text(json.dumps(_v1_request(vim['id'])))

    _v1_run(
        vm_client,
        vm_api,
        inst_id,
        'instantiate',
        inst_id,
        str(body),
        state='COMPLETED',
    )

    stack_name = f'vnf-{inst_id}'
    assert _stacks(local_cloud)[stack_name] == 'CREATE_COMPLETE'
    shown = vm_client.json('vnflcm', 'show', inst_id, api_version='1')
    info = shown['Instantiated Vnf Info']
    assert {
        v['computeResource']['resourceId'] for v in info['vnfcResourceInfo']
    } == _servers(local_cloud, stack_name)
    [conn] = shown['VIM Connection Info']
    assert (conn['vimId'], conn['vimType']) == (vim['id'], 'openstack')

    _v1_run(
        vm_client,
        vm_api,
        inst_id,
        'terminate',
        inst_id,
        state='COMPLETED',
    )
    assert stack_name not in _stacks(local_cloud)
    vm_client.run('vnflcm', 'delete', inst_id, api_version='1')


def test_a_password_changed_after_registration_fails_the_op_clearly(
    packages: dict[str, dict],
    vm_client: TackerClient,
    vm_api: Api,
    local_cloud: LocalCloud,
    tmp_path: Path,
) -> None:
    admin = identity.Admin(local_cloud.auth_url, local_cloud.account(ADMIN))
    name, password = f'vim-{uuid.uuid4().hex[:8]}', uuid.uuid4().hex
    user_id = admin.account(identity.Account(name, password, 'demo', 'member'))
    config = _config(local_cloud, tmp_path / 'vim.yaml', name, password)
    vim = vm_client.json(
        'vim', 'register', '--config-file', str(config), f'os-{name}'
    )
    assert vim['status'] == 'REACHABLE'
    changed = uuid.uuid4().hex
    admin.sess.patch(
        f'{admin.base}/users/{user_id}',
        json={'user': {'password': changed}},
        raise_exc=True,
    )
    vnfd_id = packages['simple']['vnfdId']
    inst_id = vm_client.lcm_json('create', vnfd_id, '--name', 'vm-pw')['ID']
    body = tmp_path / 'inst.json'
    body.write_text(json.dumps(vmsample.instantiate_request(vim['id'])))

    vm_client.lcm('instantiate', inst_id, str(body))
    op_id = vm_api.latest_op(inst_id, 'INSTANTIATE')['id']
    op = vm_api.wait_op(op_id, 'FAILED_TEMP', timeout=120)

    detail = op['error']['detail']
    assert 'Keystone refused the VIM credentials' in detail, detail
    assert 'update the VIM' in detail, detail
    assert password not in json.dumps(op) and changed not in json.dumps(op)
    # The operator updates the VIM; the rollback then reaches Heat.
    _config(local_cloud, config, name, changed)
    vm_client.run('vim', 'set', '--config-file', str(config), vim['id'])
    vm_client.lcm('op', 'rollback', op_id)
    vm_api.wait_op(op_id, 'ROLLED_BACK', timeout=120)
    wait_for(
        lambda: f'vnf-{inst_id}' not in _stacks(local_cloud),
        30,
        'no stack',
    )
    vm_client.lcm('delete', inst_id)
