"""Stack updates that replace, rebuild, resize and move: what heal, scale
and change_vnfpkg of the OpenStack infra driver ask of Heat."""

from __future__ import annotations

from typing import Any

import paramiko
from heatclient import client as heat_client

from vnfm_testbed.openstack.cloud import LocalCloud

from .conftest import openstack
from .test_servers import _address
from .test_servers import _netns
from .test_servers import _outputs
from .test_servers import _port
from .test_servers import _run
from .test_servers import _server
from .test_servers import _settle
from .test_servers import _ssh
from .test_servers import _template


def _attachment(vm: str) -> str:
    return (
        f'  att-{vm}:\n    type: OS::Cinder::VolumeAttachment\n'
        '    properties:\n'
        f'      instance_uuid: {{get_resource: {vm}}}\n'
        '      volume_id: {get_resource: vol}\n'
    )


VOLUME = '  vol:\n    type: OS::Cinder::Volume\n    properties: {size: 1}\n'


def _server_id(heat: heat_client.Client, stack_id: str, name: str) -> str:
    return str(heat.resources.get(stack_id, name).physical_resource_id)


def _update(heat: heat_client.Client, stack_id: str, **kw: Any) -> Any:
    heat.stacks.update(stack_id, **kw)
    stack = _settle(heat, stack_id, 'UPDATE')
    assert stack.stack_status == 'UPDATE_COMPLETE', stack.stack_status_reason
    return stack


def _host_key(ip: str, user: str, **auth: Any) -> str:
    client = _ssh(ip, user, **auth)
    try:
        return str(client.get_transport().get_remote_server_key().get_base64())
    finally:
        client.close()


def _with_ssh(ip: str, command: str) -> str:
    client: paramiko.SSHClient = _ssh(ip, 'ubuntu', password='ubuntu')
    try:
        return _run(client, command)
    finally:
        client.close()


def test_an_unhealthy_server_is_replaced_with_its_port_and_volume(
    local_cloud: LocalCloud,
    demo_heat: heat_client.Client,
) -> None:
    ip = _address(local_cloud, 'data-net-1', 61)
    stack = _create_vm_with_port_and_volume(demo_heat, ip)
    old_id = _server_id(demo_heat, stack.id, 'vm-r')
    old_key = _host_key(ip, 'ubuntu', password='ubuntu')
    _write_healed_on_the_volume(ip)

    openstack(
        local_cloud,
        'demo',
        'stack',
        'resource',
        'mark',
        'unhealthy',
        stack.id,
        'vm-r',
        'the VNFC stopped answering',
    )
    _update(demo_heat, stack.id, existing=True)

    new_id = _server_id(demo_heat, stack.id, 'vm-r')
    assert new_id != old_id
    assert not (local_cloud.state_dir / 'vms' / old_id).exists()
    # The old VM's namespace went with it; the replacement has its own
    # (other clouds' VMs on this host are not counted).
    assert _vm_netns(old_id) not in _netns()
    assert _vm_netns(new_id) in _netns()
    server = demo_heat.resources.get(stack.id, 'vm-r').attributes
    assert server['name'] == 'vm-r'
    assert server['addresses']['data-net-1'][0]['addr'] == ip
    assert _host_key(ip, 'ubuntu', password='ubuntu') != old_key
    [att] = demo_heat.resources.get(stack.id, 'vol').attributes['attachments']
    assert (att['server_id'], att['device']) == (new_id, '/dev/vdb')
    assert (
        _with_ssh(
            ip,
            'sudo -n mkdir -p /mnt/d && sudo -n mount /dev/vdb /mnt/d'
            ' && cat /mnt/d/f',
        )
        == 'healed'
    )


def _create_vm_with_port_and_volume(
    demo_heat: heat_client.Client, ip: str
) -> Any:
    """Stack heal: server vm-r on port p0 (``ip`` on data-net-1) with
    volume vol attached, once CREATE_COMPLETE."""
    template = _template(
        _port('p0', 'data-net-1', ip),
        _server('vm-r', nets='[{port: {get_resource: p0}}]'),
        VOLUME,
        _attachment('vm-r'),
    )
    created = demo_heat.stacks.create(stack_name='heal', template=template)
    stack = _settle(demo_heat, created['stack']['id'], 'CREATE')
    assert stack.stack_status == 'CREATE_COMPLETE', stack.stack_status_reason
    return stack


def _write_healed_on_the_volume(ip: str) -> None:
    """A file system on /dev/vdb with file f saying healed."""
    _with_ssh(
        ip,
        'sudo -n mkfs.ext4 -q /dev/vdb && sudo -n mkdir -p /mnt/d'
        ' && sudo -n mount /dev/vdb /mnt/d'
        ' && echo healed | sudo -n tee /mnt/d/f && sync',
    )


def test_image_and_flavour_updates_follow_their_update_policies(
    local_cloud: LocalCloud,
    demo_heat: heat_client.Client,
) -> None:
    def template(image: str, flavor: str, policy: str = 'REBUILD') -> str:
        return _template(
            _server(
                'vm-u',
                image=image,
                extra=f'image_update_policy: {policy}',
            ).replace('m1.small', flavor),
            VOLUME,
            _attachment('vm-u'),
        )

    created = demo_heat.stacks.create(
        stack_name='upd', template=template('ubuntu-22.04', 'm1.small')
    )
    stack = _settle(demo_heat, created['stack']['id'], 'CREATE')
    assert stack.stack_status == 'CREATE_COMPLETE', stack.stack_status_reason
    ip, server_id = (
        _outputs(stack)['vm-u_ip'],
        _server_id(demo_heat, stack.id, 'vm-u'),
    )
    ubuntu_key = _host_key(ip, 'ubuntu', password='ubuntu')

    # A new image with REBUILD (Heat's default): the same server, rebooted
    # from the new image, keeping its address and its volume.
    _update(demo_heat, stack.id, template=template('cirros-0.6', 'm1.small'))
    assert _server_id(demo_heat, stack.id, 'vm-u') == server_id
    assert _host_key(ip, 'cirros', password='gocubsgo') != ubuntu_key
    _assert_cirros_sees_the_volume(ip)

    # A new flavour with RESIZE (the default): the same server, resized.
    _update(demo_heat, stack.id, template=template('cirros-0.6', 'm1.tiny'))
    shown = demo_heat.resources.get(stack.id, 'vm-u').attributes
    assert shown['id'] == server_id
    assert shown['flavor']['original_name'] == 'm1.tiny'

    # image_update_policy REPLACE: a new server, the old VM gone.
    _update(
        demo_heat,
        stack.id,
        template=template('ubuntu-22.04', 'm1.tiny', 'REPLACE'),
    )
    new_id = _server_id(demo_heat, stack.id, 'vm-u')
    assert new_id != server_id
    assert not (local_cloud.state_dir / 'vms' / server_id).exists()
    [att] = demo_heat.resources.get(stack.id, 'vol').attributes['attachments']
    assert att['server_id'] == new_id


def _assert_cirros_sees_the_volume(ip: str) -> None:
    vm = _ssh(ip, 'cirros', password='gocubsgo')
    try:
        assert _run(vm, 'ls /dev/vdb') == '/dev/vdb'
    finally:
        vm.close()


def test_a_volume_moved_to_another_server_keeps_its_data(
    demo_heat: heat_client.Client,
) -> None:
    def template(holder: str) -> str:
        return _template(
            _server('vm-1'),
            _server('vm-2'),
            VOLUME,
            _attachment(holder).replace(f'att-{holder}', 'att'),
        )

    created = demo_heat.stacks.create(
        stack_name='move', template=template('vm-1')
    )
    stack = _settle(demo_heat, created['stack']['id'], 'CREATE')
    assert stack.stack_status == 'CREATE_COMPLETE', stack.stack_status_reason
    ips = _outputs(stack)
    _with_ssh(
        ips['vm-1_ip'],
        'sudo -n mkfs.ext4 -q /dev/vdb && sudo -n mkdir -p /mnt/d'
        ' && sudo -n mount /dev/vdb /mnt/d'
        ' && echo moved | sudo -n tee /mnt/d/f && sync',
    )

    _update(demo_heat, stack.id, template=template('vm-2'))

    assert 'vdb' not in _with_ssh(ips['vm-1_ip'], 'ls /dev')
    assert (
        _with_ssh(
            ips['vm-2_ip'],
            'sudo -n mkdir -p /mnt/d && sudo -n mount /dev/vdb /mnt/d'
            ' && cat /mnt/d/f',
        )
        == 'moved'
    )


MEMBER = """
heat_template_version: 2021-04-16
resources:
  port:
    type: OS::Neutron::Port
    properties: {network: data-net-2}
  vm:
    type: OS::Nova::Server
    properties:
      image: cirros-0.6
      flavor: m1.tiny
      networks: [{port: {get_resource: port}}]
  vol:
    type: OS::Cinder::Volume
    properties: {size: 1}
  att:
    type: OS::Cinder::VolumeAttachment
    properties:
      instance_uuid: {get_resource: vm}
      volume_id: {get_resource: vol}
outputs:
  ip: {value: {get_attr: [port, fixed_ips, 0, ip_address]}}
"""
GROUPS = """
heat_template_version: 2021-04-16
parameters:
  capacity: {type: number}
  size: {type: number}
  removal: {type: json, default: []}
resources:
  asg:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 0
      max_size: 3
      desired_capacity: {get_param: capacity}
      resource: {type: member.yaml}
  rg:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: size}
      removal_policies: [{resource_list: {get_param: removal}}]
      resource_def: {type: member.yaml}
outputs:
  asg_ips: {value: {get_attr: [asg, outputs_list, ip]}}
  rg_ips: {value: {get_attr: [rg, ip]}}
"""


def _scale(heat: heat_client.Client, stack_id: str, **params: Any) -> Any:
    return _update(
        heat,
        stack_id,
        existing=True,
        files={'member.yaml': MEMBER},
        parameters=params,
    )


def test_scaling_groups_of_server_port_and_volume(
    local_cloud: LocalCloud,
    demo_heat: heat_client.Client,
) -> None:
    created = demo_heat.stacks.create(
        stack_name='scale',
        template=GROUPS,
        files={'member.yaml': MEMBER},
        parameters={'capacity': 1, 'size': 2},
    )
    stack = _settle(demo_heat, created['stack']['id'], 'CREATE')
    assert stack.stack_status == 'CREATE_COMPLETE', stack.stack_status_reason
    [first] = _outputs(stack)['asg_ips']
    rg_ips = _outputs(stack)['rg_ips']
    assert len(set(rg_ips)) == 2
    assert len(local_cloud.vm_dirs()) == 3

    # Out: desired_capacity 1 -> 2 adds a member with its own port and disk.
    out = _scale(demo_heat, stack.id, capacity=2)
    grown = _outputs(out)['asg_ips']
    assert len(set(grown)) == 2 and first in grown
    [second] = set(grown) - {first}
    assert _with_ssh_cirros(second, 'ls /dev/vdb') == '/dev/vdb'
    assert len(local_cloud.vm_dirs()) == 4

    # In: the AutoScalingGroup removes its oldest member; the ResourceGroup
    # the members its removal_policies name (here "0", the first).
    shrunk = _scale(demo_heat, stack.id, capacity=1, size=1, removal=['0'])
    assert _outputs(shrunk)['asg_ips'] == [second]
    assert _outputs(shrunk)['rg_ips'] == [rg_ips[1]]
    assert len(local_cloud.vm_dirs()) == 2
    ports = list((local_cloud.state_dir / 'ports').glob('*.json'))
    assert len(ports) == 2


def _with_ssh_cirros(ip: str, command: str) -> str:
    client = _ssh(ip, 'cirros', password='gocubsgo')
    try:
        return _run(client, command)
    finally:
        client.close()


def _vm_netns(server_id: str) -> str:
    """The network namespace of the local cloud's VM of ``server_id``."""
    return f'lcvm-{server_id.replace("-", "")[:12]}'
