"""OS::Nova::Server of the local cloud: VMs that users reach over SSH."""

from __future__ import annotations

import base64
import hashlib
import io
import ipaddress
import subprocess
import uuid
from pathlib import Path
from typing import Any

import paramiko
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519
from heatclient import client as heat_client
from heatclient import exc as heat_exc

from vnfm_testbed.openstack import vmhost
from vnfm_testbed.openstack.cloud import LocalCloud

from ..conftest import wait_for

SERVER = """
  {name}:
    type: OS::Nova::Server
    properties:
      name: {name}
      image: {image}
      flavor: m1.small
      networks: {networks}
      {extra}
"""
CLOUD_CONFIG = """#cloud-config
ssh_pwauth: true
users:
  - default
  - name: ops
    sudo: ALL=(ALL) NOPASSWD:ALL
chpasswd:
  users:
    - {name: ops, password: opspw1, type: text}
"""


def _template(*servers: str) -> str:
    outputs = ''.join(
        f'  {n}_ip: {{value: {{get_attr: [{n}, first_address]}}}}\n'
        for n in _names(servers)
    )
    return (
        'heat_template_version: 2021-04-16\nparameters:\n'
        "  user_data: {type: string, default: ''}\nresources:\n"
        + ''.join(servers)
        + 'outputs:\n'
        + outputs
    )


def _names(resources: tuple[str, ...]) -> list[str]:
    """Names of the servers among ``resources``."""
    return [
        r.split(':')[0].strip() for r in resources if 'OS::Nova::Server' in r
    ]


def _port(name: str, network: str, ip: str) -> str:
    return (
        f'  {name}:\n    type: OS::Neutron::Port\n    properties:\n'
        f'      network: {network}\n'
        f"      fixed_ips: [{{ip_address: '{ip}'}}]\n"
    )


def _server(
    name: str,
    image: str = 'ubuntu-22.04',
    nets: str = '[{network: mgmt-net}]',
    extra: str = '',
) -> str:
    return SERVER.format(name=name, image=image, networks=nets, extra=extra)


def _address(cloud: LocalCloud, network: str, last: int) -> str:
    """Address ``last`` of the first subnet of catalogue ``network``."""
    subnet = cloud.catalogue()['networks'][network]['subnets'][0]
    return str(subnet['cidr'].rsplit('.', 1)[0] + f'.{last}')


def _settle(heat: heat_client.Client, stack_id: str, verb: str) -> Any:
    def settled() -> Any:
        stack = heat.stacks.get(stack_id)
        done = stack.stack_status.startswith(verb) and not (
            stack.stack_status.endswith('IN_PROGRESS')
        )
        return stack if done else None

    return wait_for(settled, 120, f'{verb} of stack {stack_id}')


def _outputs(stack: Any) -> dict[str, Any]:
    return {o['output_key']: o['output_value'] for o in stack.outputs}


def _ssh(host: str, user: str, **auth: Any) -> paramiko.SSHClient:
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    client.connect(
        host,
        username=user,
        timeout=10,
        allow_agent=False,
        look_for_keys=False,
        **auth,
    )
    return client


def _run(client: paramiko.SSHClient, command: str) -> str:
    _, out, err = client.exec_command(command, timeout=30)
    status = out.channel.recv_exit_status()
    assert status == 0, f'{command}: {err.read().decode()}'
    return out.read().decode().strip()


@pytest.fixture
def keypair(local_cloud: LocalCloud) -> tuple[str, paramiko.PKey]:
    """A keypair registered in the cloud: (name, private key)."""
    key = ed25519.Ed25519PrivateKey.generate()
    public = (
        key.public_key()
        .public_bytes(
            serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
        )
        .decode()
    )
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.OpenSSH,
        serialization.NoEncryption(),
    ).decode()
    name = f'key-{uuid.uuid4().hex[:6]}'
    local_cloud.add_keypair(name, public + ' test@host')
    return name, paramiko.Ed25519Key.from_private_key(io.StringIO(pem))


def _fingerprints(vm_dir: Path) -> set[str]:
    return {line.split()[1] for line in vmhost.host_keys(vm_dir)}


def _sha256(client: paramiko.SSHClient) -> str:
    key = client.get_transport().get_remote_server_key()
    digest = hashlib.sha256(key.asbytes()).digest()
    return 'SHA256:' + base64.b64encode(digest).decode().rstrip('=')


def _netns() -> set[str]:
    out = subprocess.run(
        ['ip', 'netns', 'list'],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout
    return {line.split()[0] for line in out.splitlines() if line}


def test_two_servers_by_a_non_admin_user_over_ssh(
    local_cloud: LocalCloud,
    demo_heat: heat_client.Client,
    keypair: tuple[str, paramiko.PKey],
) -> None:
    key_name, key = keypair
    before = _netns()

    stack = _create_vm_a_and_vm_b(demo_heat, key_name)

    assert stack.stack_status == 'CREATE_COMPLETE', stack.stack_status_reason
    ips = _outputs(stack)
    for ip in (ips['vm-a_ip'], ips['vm-b_ip']):
        assert ipaddress.ip_address(ip) in vmhost.TEST_RANGE
    server = demo_heat.resources.get(stack.id, 'vm-a').attributes
    assert set(server['addresses']) == {'mgmt-net', 'data-net-1'}
    assert server['addresses']['mgmt-net'][0]['addr'] == ips['vm-a_ip']

    # Password login with the image's default user; key login on vm-b.
    a = _ssh(ips['vm-a_ip'], 'ubuntu', password='ubuntu')
    b = _ssh(ips['vm-b_ip'], 'debian', pkey=key)
    with pytest.raises(paramiko.AuthenticationException):
        _ssh(ips['vm-b_ip'], 'debian', password='debian')
    try:
        assert _run(a, 'hostname') == 'vm-a'
        assert _run(b, 'hostname') == 'vm-b'
        assert _run(a, 'ps -o comm= -p 1') == 'sshd'
        # The VMs reach each other.
        probe = f'exec 3<>/dev/tcp/{ips["vm-b_ip"]}/22; head -c 4 <&3'
        assert _run(a, f"timeout 5 bash -c '{probe}'") == 'SSH-'
        _assert_the_vm_is_isolated_from_the_host(local_cloud, a)
    finally:
        a.close()
        b.close()
    assert len(_netns() - before) == 2

    # Update adds a server; delete leaves no VM behind.
    updated = _add_vm_c(demo_heat, stack.id, key_name)
    assert updated.stack_status == 'UPDATE_COMPLETE'
    assert _outputs(updated)['vm-a_ip'] == ips['vm-a_ip']
    assert len(_netns() - before) == 3

    demo_heat.stacks.delete(stack.id)
    deleted = _settle(demo_heat, stack.id, 'DELETE')
    assert deleted.stack_status == 'DELETE_COMPLETE'
    assert _netns() - before == set()
    assert local_cloud.vm_dirs() == []


def _create_vm_a_and_vm_b(demo_heat: heat_client.Client, key_name: str) -> Any:
    """Stack two: vm-a on mgmt-net and data-net-1, vm-b (debian-12) with
    keypair ``key_name``, once settled."""
    template = _template(
        _server('vm-a', nets='[{network: mgmt-net}, {network: data-net-1}]'),
        _server('vm-b', image='debian-12', extra=f'key_name: {key_name}'),
    )
    created = demo_heat.stacks.create(stack_name='two', template=template)
    return _settle(demo_heat, created['stack']['id'], 'CREATE')


def _assert_the_vm_is_isolated_from_the_host(
    local_cloud: LocalCloud, a: paramiko.SSHClient
) -> None:
    # Nothing a VM writes reaches the host.
    marker = f'/etc/vm-wrote-{uuid.uuid4().hex[:6]}'
    _run(a, f'sudo -n touch {marker}')
    assert not Path(marker).exists()
    # vnfm's checkout and virtualenv are seen where they are on the
    # host (under /tmp too, which is the VM's own), read-only.
    for path in local_cloud.catalogue()['host_paths']:
        assert _run(a, f'test -d {path} && echo seen') == 'seen', path
        assert _run(a, f'sudo -n touch {path}/x 2>&1 || true')
        assert not Path(path, 'x').exists()
    # Fresh host keys, which tests can read to pin them.
    vm_dirs = local_cloud.vm_dirs()
    assert _sha256(a) in set().union(*map(_fingerprints, vm_dirs))
    assert len({frozenset(_fingerprints(d)) for d in vm_dirs}) == len(vm_dirs)


def _add_vm_c(
    demo_heat: heat_client.Client, stack_id: str, key_name: str
) -> Any:
    """The stack once updated with a third server, vm-c on data-net-2."""
    demo_heat.stacks.update(
        stack_id,
        template=_template(
            _server(
                'vm-a', nets='[{network: mgmt-net}, {network: data-net-1}]'
            ),
            _server('vm-b', image='debian-12', extra=f'key_name: {key_name}'),
            _server('vm-c', nets='[{network: data-net-2}]'),
        ),
    )
    return _settle(demo_heat, stack_id, 'UPDATE')


def test_cloud_config_users_and_fixed_ip(
    local_cloud: LocalCloud, demo_heat: heat_client.Client
) -> None:
    subnet = local_cloud.catalogue()['networks']['data-net-2']['subnets'][0]
    fixed = subnet['cidr'].rsplit('.', 1)[0] + '.77'
    template = _template(
        _server(
            'vm-cc',
            image='debian-12',
            nets=f"[{{network: data-net-2, fixed_ip: '{fixed}'}}]",
            extra='user_data: {get_param: user_data}\n'
            '      user_data_format: RAW',
        )
    )

    created = demo_heat.stacks.create(
        stack_name='cc',
        template=template,
        parameters={'user_data': CLOUD_CONFIG},
    )
    stack = _settle(demo_heat, created['stack']['id'], 'CREATE')

    assert stack.stack_status == 'CREATE_COMPLETE', stack.stack_status_reason
    assert _outputs(stack)['vm-cc_ip'] == fixed
    ops = _ssh(fixed, 'ops', password='opspw1')
    try:
        assert _run(ops, 'sudo -n id -u') == '0'
    finally:
        ops.close()


def test_a_vm_that_cannot_start_fails_its_resource(
    demo_heat: heat_client.Client,
) -> None:
    created = demo_heat.stacks.create(
        stack_name='broken',
        template=_template(_server('vm-x', image='broken-image')),
    )
    stack = _settle(demo_heat, created['stack']['id'], 'CREATE')

    assert stack.stack_status == 'CREATE_FAILED'
    res = demo_heat.resources.get(stack.id, 'vm-x')
    assert res.resource_status == 'CREATE_FAILED'
    assert 'did not start' in res.resource_status_reason


def test_an_unknown_image_is_heats_own_validation_error(
    demo_heat: heat_client.Client,
) -> None:
    with pytest.raises(heat_exc.HTTPBadRequest) as e:
        demo_heat.stacks.create(
            stack_name='noimage',
            template=_template(_server('vm-y', image='no-such-image')),
        )
    assert 'no-such-image' in str(e.value)
    assert 'could not be found' in str(e.value)


def test_a_server_on_a_port_with_a_fixed_ip(
    local_cloud: LocalCloud, demo_heat: heat_client.Client
) -> None:
    subnet = local_cloud.catalogue()['networks']['data-net-1']['subnets'][0]
    ip = _address(local_cloud, 'data-net-1', 88)
    template = _template(
        _port('p0', 'data-net-1', ip),
        _server('vm-p', nets='[{port: {get_resource: p0}}]'),
    )

    created = demo_heat.stacks.create(stack_name='ports', template=template)
    stack = _settle(demo_heat, created['stack']['id'], 'CREATE')

    assert stack.stack_status == 'CREATE_COMPLETE', stack.stack_status_reason
    assert _outputs(stack)['vm-p_ip'] == ip
    port = demo_heat.resources.get(stack.id, 'p0').attributes
    assert port['fixed_ips'] == [{'subnet_id': subnet['id'], 'ip_address': ip}]
    vm = _ssh(ip, 'ubuntu', password='ubuntu')
    try:
        assert port['mac_address'] in _run(vm, 'ip -o link show eth0')
    finally:
        vm.close()

    demo_heat.stacks.delete(stack.id)
    assert _settle(demo_heat, stack.id, 'DELETE').stack_status == (
        'DELETE_COMPLETE'
    )
    assert list((local_cloud.state_dir / 'ports').glob('*')) == []


VOLUME = """
  vol:
    type: OS::Cinder::Volume
    properties: {size: 1}
  att:
    type: OS::Cinder::VolumeAttachment
    properties:
      instance_uuid: {get_resource: vm-v}
      volume_id: {get_resource: vol}
"""


def _loops() -> str:
    return subprocess.run(
        ['losetup', '-a'],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout


def test_a_volume_is_vdb_in_its_server_only(
    local_cloud: LocalCloud, demo_heat: heat_client.Client
) -> None:
    template = _template(_server('vm-v'), VOLUME)

    created = demo_heat.stacks.create(stack_name='vol', template=template)
    stack = _settle(demo_heat, created['stack']['id'], 'CREATE')

    assert stack.stack_status == 'CREATE_COMPLETE', stack.stack_status_reason
    volume = demo_heat.resources.get(stack.id, 'vol').attributes
    server_id = demo_heat.resources.get(stack.id, 'vm-v').physical_resource_id
    # Cinder's shape: a volume with an "attachments" list.
    [attachment] = volume['attachments']
    assert (attachment['device'], attachment['server_id']) == (
        '/dev/vdb',
        server_id,
    )
    assert volume['status'] == 'in-use'
    image = str(local_cloud.state_dir / 'volumes')
    assert image in _loops()
    vm = _ssh(_outputs(stack)['vm-v_ip'], 'ubuntu', password='ubuntu')
    try:
        _run(vm, 'sudo -n mkfs.ext4 -q /dev/vdb')
        _run(
            vm,
            'sudo -n mkdir -p /mnt/data && sudo -n mount /dev/vdb /mnt/data',
        )
        _run(vm, 'echo kept | sudo -n tee /mnt/data/file')
        assert _run(vm, 'cat /mnt/data/file') == 'kept'
        assert '/mnt/data' in _run(vm, 'cat /proc/mounts')
    finally:
        vm.close()
    # The host sees neither the device nor the mount.
    assert not Path('/dev/vdb').exists()
    assert '/mnt/data' not in Path('/proc/mounts').read_text()

    demo_heat.stacks.delete(stack.id)
    assert _settle(demo_heat, stack.id, 'DELETE').stack_status == (
        'DELETE_COMPLETE'
    )
    assert image not in _loops()
    assert list((local_cloud.state_dir / 'volumes').glob('*')) == []
