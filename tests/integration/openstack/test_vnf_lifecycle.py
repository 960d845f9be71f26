"""VM-based VNFs through the real client: ``openstack vim register`` of the
local cloud as its non-admin user, ``openstack vnflcm`` instantiate and
terminate of the vm_simple sample (Tacker v2 package layout), checked with
``openstack stack list`` and over SSH; the failures a user meets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import paramiko
import pytest

from vnfm_testbed.client import ClientError
from vnfm_testbed.client import TackerClient
from vnfm_testbed.openstack import catalogue
from vnfm_testbed.openstack import vmsample
from vnfm_testbed.openstack.cloud import LocalCloud

from ..conftest import Api
from .conftest import vim_config

pytestmark = pytest.mark.timeout(600)


def _openstack(cloud: LocalCloud, *args: str) -> Any:
    """``openstack <args> -f json`` as the demo user of the local cloud."""
    creds = cloud.credentials('demo')
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    env.update(
        OS_AUTH_URL=creds['auth_url'],
        OS_USERNAME=creds['username'],
        OS_PASSWORD=creds['password'],
        OS_PROJECT_NAME=creds['project_name'],
        OS_USER_DOMAIN_NAME='Default',
        OS_PROJECT_DOMAIN_NAME='Default',
        OS_REGION_NAME=creds['region_name'],
        OS_IDENTITY_API_VERSION='3',
    )
    out = subprocess.run(
        [os.path.join(sys.prefix, 'bin', 'openstack'), *args, '-f', 'json'],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _stacks(cloud: LocalCloud) -> dict[str, str]:
    """Stack name -> status, as ``openstack stack list`` shows them."""
    return {
        s['Stack Name']: s['Stack Status']
        for s in _openstack(cloud, 'stack', 'list')
    }


def _run_op(
    client: TackerClient,
    api: Api,
    tmp_path: Path,
    inst_id: str,
    operation: str,
    *args: str,
    state: str = 'COMPLETED',
) -> dict:
    client.lcm(*args)
    op_id = api.latest_op(inst_id, operation)['id']
    return api.wait_op(op_id, state, timeout=300)


def _ssh_run(address: str, user: str, password: str, command: str) -> str:
    """``command`` on a VM over SSH; its stripped stdout."""
    ssh = paramiko.SSHClient()
    ssh.set_missing_host_key_policy(paramiko.AutoAddPolicy())  # noqa: S507 - a test VM
    ssh.connect(
        address,
        username=user,
        password=password,
        timeout=10,
        banner_timeout=10,
        auth_timeout=10,
        allow_agent=False,
        look_for_keys=False,
    )
    try:
        _, out, _ = ssh.exec_command(command, timeout=60)
        return out.read().decode().strip()
    finally:
        ssh.close()


def _ssh_hostname(address: str, user: str, password: str) -> str:
    return _ssh_run(address, user, password, 'hostname')


def _cp_address(vnfc: dict, cpd_id: str) -> str:
    cp = next(c for c in vnfc['vnfcCpInfo'] if c['cpdId'] == cpd_id)
    ip = cp['cpProtocolInfo'][0]['ipOverEthernet']['ipAddresses'][0]
    return str(ip['addresses'][0])


def failed_op(
    client: TackerClient,
    api: Api,
    tmp_path: Path,
    inst_id: str,
    operation: str,
    *args: str,
) -> dict:
    """Run an LCM command that must end FAILED_TEMP; the op."""
    return _run_op(
        client,
        api,
        tmp_path,
        inst_id,
        operation,
        *args,
        state='FAILED_TEMP',
    )


def roll_back(client: TackerClient, api: Api, op: dict) -> None:
    """``openstack vnflcm op rollback`` and wait for ROLLED_BACK."""
    client.lcm('op', 'rollback', op['id'])
    api.wait_op(op['id'], 'ROLLED_BACK', timeout=300)


def instantiated(
    client: TackerClient,
    api: Api,
    vim: dict,
    vnfd_id: str,
    tmp_path: Path,
    name: str,
) -> str:
    """An instance of ``vnfd_id`` instantiated on ``vim``; its id."""
    inst_id = client.lcm_json('create', vnfd_id, '--name', name)['ID']
    body = tmp_path / f'{name}.json'
    body.write_text(json.dumps(vmsample.instantiate_request(vim['id'])))
    _run_op(
        client,
        api,
        tmp_path,
        inst_id,
        'INSTANTIATE',
        'instantiate',
        inst_id,
        str(body),
    )
    return str(inst_id)


def failed_instantiate(
    client: TackerClient, api: Api, vim: dict, vnfd_id: str, tmp_path: Path
) -> tuple[str, dict]:
    """Create an instance of ``vnfd_id`` whose instantiate must end
    FAILED_TEMP; its id and the op."""
    inst_id = client.lcm_json('create', vnfd_id, '--name', 'vm-bad')['ID']
    body = tmp_path / 'inst.json'
    body.write_text(json.dumps(vmsample.instantiate_request(vim['id'])))
    op = failed_op(
        client,
        api,
        tmp_path,
        inst_id,
        'INSTANTIATE',
        'instantiate',
        inst_id,
        str(body),
    )
    return inst_id, op


def test_vim_register_checks_keystone(
    vim: dict,
    vm_client: TackerClient,
    local_cloud: LocalCloud,
    tmp_path: Path,
) -> None:
    assert vim['status'] == 'REACHABLE'
    assert vim['auth_cred']['password'] == '***'
    listed = vm_client.json('vim', 'list')
    assert [v['Status'] for v in listed if v['Name'] == 'local-os'] == [
        'REACHABLE'
    ]

    config = vim_config(
        local_cloud, tmp_path / 'bad.yaml', password='wrong-pw'
    )
    with pytest.raises(ClientError) as caught:
        vm_client.run('vim', 'register', '--config-file', config, 'bad-os')

    assert 'refused the credentials' in caught.value.output
    assert 'wrong-pw' not in vm_client.printed()
    assert 'bad-os' not in [v['Name'] for v in vm_client.json('vim', 'list')]


def _servers(cloud: LocalCloud, stack_name: str) -> set[str]:
    """Nova server ids of the stack, as ``openstack stack resource list``
    shows them."""
    listed = _openstack(
        cloud, 'stack', 'resource', 'list', '-n', '3', stack_name
    )
    return {
        r['physical_resource_id']
        for r in listed
        if r['resource_type'] == 'OS::Nova::Server'
    }


def _vdu1(api: Api, inst_id: str) -> dict[str, str]:
    info = api.instance(inst_id)['instantiatedVnfInfo']
    return {
        v['id']: v['computeResource']['resourceId']
        for v in info['vnfcResourceInfo']
        if v['vduId'] == 'VDU1'
    }


def _scale_out_and_in(
    client: TackerClient,
    api: Api,
    cloud: LocalCloud,
    tmp_path: Path,
    inst_id: str,
) -> None:
    stack_name = f'vnf-{inst_id}'
    before = _vdu1(api, inst_id)
    args = ('scale', inst_id, '--aspect-id', 'VDU1_scale')
    _run_op(
        client, api, tmp_path, inst_id, 'SCALE', *args, '--type', 'SCALE_OUT'
    )
    grown = _vdu1(api, inst_id)
    assert len(grown) == len(before) + 1
    assert before.items() <= grown.items()
    assert set(grown.values()) <= _servers(cloud, stack_name)

    _run_op(
        client, api, tmp_path, inst_id, 'SCALE', *args, '--type', 'SCALE_IN'
    )

    # The newest VNFC went; the others kept their ids and servers.
    assert _vdu1(api, inst_id) == before
    added = set(grown.values()) - set(before.values())
    assert not added & _servers(cloud, stack_name)


def test_instantiate_and_terminate_a_vm_vnf(
    vim: dict,
    packages: dict[str, dict],
    vm_client: TackerClient,
    vm_api: Api,
    local_cloud: LocalCloud,
    tmp_path: Path,
) -> None:
    inst_id = _instantiate_with_the_standard_user_data(
        vim, packages, vm_client, vm_api, tmp_path
    )

    stack_name = f'vnf-{inst_id}'
    assert _stacks(local_cloud)[stack_name] == 'CREATE_COMPLETE'
    info = vm_api.instance(inst_id)['instantiatedVnfInfo']
    nova = _servers(local_cloud, stack_name)
    vnfcs = info['vnfcResourceInfo']
    assert {v['computeResource']['resourceId'] for v in vnfcs} == nova
    assert sorted(v['vduId'] for v in vnfcs) == ['VDU1', 'VDU2']
    vdu1 = next(v for v in vnfcs if v['vduId'] == 'VDU1')
    vdu2 = next(v for v in vnfcs if v['vduId'] == 'VDU2')
    assert len(vdu1['storageResourceIds']) == 1
    assert info['metadata']['stack_name'] == stack_name
    assert info['metadata']['lcm-operation-user-data-class'] == (
        'StandardUserData'
    )
    _assert_both_vms_answer_over_ssh(vdu1, vdu2)

    _scale_out_and_in(vm_client, vm_api, local_cloud, tmp_path, inst_id)

    _run_op(
        vm_client, vm_api, tmp_path, inst_id, 'TERMINATE', 'terminate', inst_id
    )

    assert stack_name not in _stacks(local_cloud)
    vm_client.lcm('delete', inst_id)


def _instantiate_with_the_standard_user_data(
    vim: dict,
    packages: dict[str, dict],
    vm_client: TackerClient,
    vm_api: Api,
    tmp_path: Path,
) -> str:
    """The id of an instance of the simple package, instantiated."""
    vnfd_id = packages['simple']['vnfdId']
    inst_id = vm_client.lcm_json('create', vnfd_id, '--name', 'vm-it')['ID']
    body = tmp_path / 'inst.json'
    # As Tacker's v2 functional tests ask: the package's user-data file
    # naming Tacker's StandardUserData (which vnfm computes itself).
    request = vmsample.instantiate_request(vim['id'])
    request['additionalParams'] = {
        'lcm-operation-user-data': './UserData/userdata_standard.py',
        'lcm-operation-user-data-class': 'StandardUserData',
    }
    body.write_text(json.dumps(request))

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
    return inst_id


def _assert_both_vms_answer_over_ssh(vdu1: dict, vdu2: dict) -> None:
    cirros = catalogue.IMAGES['cirros-0.6']
    assert _ssh_hostname(
        _cp_address(vdu2, 'VDU2_CP1'), cirros['user'], cirros['password']
    )
    ubuntu = catalogue.IMAGES['ubuntu-22.04']
    assert _ssh_hostname(
        _cp_address(vdu1, 'VDU1_CP1'), ubuntu['user'], ubuntu['password']
    )
