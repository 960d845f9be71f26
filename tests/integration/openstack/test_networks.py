"""Networks, subnets, floating IPs, server groups and keypairs that a stack
makes on the local cloud, read back with get_attr as on a real cloud."""

from __future__ import annotations

import io
import ipaddress
import subprocess
from typing import Any

import paramiko
from heatclient import client as heat_client

from vnfm_testbed.openstack import vmhost
from vnfm_testbed.openstack.cloud import LocalCloud

from .test_servers import _outputs
from .test_servers import _run
from .test_servers import _settle
from .test_servers import _ssh

TEMPLATE = """
heat_template_version: 2021-04-16
parameters:
  cidr: {type: string}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: stack-net}
  sub:
    type: OS::Neutron::Subnet
    properties:
      network: {get_resource: net}
      cidr: {get_param: cidr}
  port:
    type: OS::Neutron::Port
    depends_on: sub
    properties: {network: {get_resource: net}}
  group:
    type: OS::Nova::ServerGroup
    properties: {policies: [anti-affinity]}
  key:
    type: OS::Nova::KeyPair
    properties: {name: stack-key, save_private_key: true}
  vm:
    type: OS::Nova::Server
    properties:
      name: vm-n
      image: debian-12
      flavor: m1.tiny
      key_name: {get_resource: key}
      networks: [{port: {get_resource: port}}]
      scheduler_hints: {group: {get_resource: group}}
  fip:
    type: OS::Neutron::FloatingIP
    properties: {floating_network: public}
  assoc:
    type: OS::Neutron::FloatingIPAssociation
    properties:
      floatingip_id: {get_resource: fip}
      port_id: {get_resource: port}
outputs:
  sub_id: {value: {get_resource: sub}}
  gateway: {value: {get_attr: [sub, gateway_ip]}}
  sub_cidr: {value: {get_attr: [sub, cidr]}}
  fixed: {value: {get_attr: [port, fixed_ips, 0, ip_address]}}
  floating: {value: {get_attr: [fip, floating_ip_address]}}
  private_key: {value: {get_attr: [key, private_key]}}
  group_id: {value: {get_resource: group}}
"""


def _bridges() -> str:
    return subprocess.run(
        ['ip', '-br', 'addr', 'show', 'type', 'bridge'],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout


def _routes() -> str:
    return subprocess.run(
        ['ip', 'route'], capture_output=True, text=True, timeout=30, check=True
    ).stdout


def test_a_stack_network_with_a_floating_ip_keypair_and_group(
    local_cloud: LocalCloud, demo_heat: heat_client.Client
) -> None:
    cidr = str(vmhost.free_block(24))

    created = demo_heat.stacks.create(
        stack_name='nets', template=TEMPLATE, parameters={'cidr': cidr}
    )
    stack = _settle(demo_heat, created['stack']['id'], 'CREATE')

    assert stack.stack_status == 'CREATE_COMPLETE', stack.stack_status_reason
    out = _outputs(stack)
    net = ipaddress.ip_network(cidr)
    assert out['sub_cidr'] == cidr
    # Shown now (an output of the net was cached before the subnet existed).
    shown = demo_heat.resources.get(stack.id, 'net').attributes
    assert (shown['name'], shown['subnets']) == ('stack-net', [out['sub_id']])
    assert ipaddress.ip_address(out['gateway']) == next(net.hosts())
    assert ipaddress.ip_address(out['fixed']) in net
    assert f'{out["gateway"]}/24' in _bridges()
    public = local_cloud.catalogue()['networks']['public']['subnets'][0]
    assert ipaddress.ip_address(out['floating']) in ipaddress.ip_network(
        public['cidr']
    )
    _assert_the_floating_ip_and_group_hold_the_server(demo_heat, stack, out)

    # The generated key opens the VM, through its fixed and floating IPs.
    _assert_the_key_opens_the_vm_at_both_addresses(out)

    demo_heat.stacks.delete(stack.id)
    assert _settle(demo_heat, stack.id, 'DELETE').stack_status == (
        'DELETE_COMPLETE'
    )
    assert f'{out["gateway"]}/24' not in _bridges()
    assert out['floating'] not in _routes()
    assert not list((local_cloud.state_dir / 'keypairs').glob('stack-key*'))


def test_a_subnet_outside_the_test_range_fails_with_a_reason(
    demo_heat: heat_client.Client,
) -> None:
    template = TEMPLATE.split('  port:')[0]
    created = demo_heat.stacks.create(
        stack_name='private',
        template=template,
        parameters={'cidr': '10.20.30.0/24'},
    )
    stack = _settle(demo_heat, created['stack']['id'], 'CREATE')

    assert stack.stack_status == 'CREATE_FAILED'
    assert '198.18.0.0/15' in stack.stack_status_reason


def _assert_the_floating_ip_and_group_hold_the_server(
    demo_heat: heat_client.Client, stack: Any, out: dict
) -> None:
    fip = demo_heat.resources.get(stack.id, 'fip').attributes
    port = demo_heat.resources.get(stack.id, 'port').attributes
    assert (fip['port_id'], fip['fixed_ip_address']) == (
        port['id'],
        out['fixed'],
    )
    server = demo_heat.resources.get(stack.id, 'vm').attributes
    assert server['addresses']['stack-net'][1] == {
        'version': 4,
        'addr': out['floating'],
        'OS-EXT-IPS:type': 'floating',
        'OS-EXT-IPS-MAC:mac_addr': port['mac_address'],
    }
    group = demo_heat.resources.get(stack.id, 'group').attributes
    assert group['policies'] == ['anti-affinity']
    assert group['members'] == [server['id']]


def _assert_the_key_opens_the_vm_at_both_addresses(out: dict) -> None:
    key = paramiko.RSAKey.from_private_key(io.StringIO(out['private_key']))
    for address in (out['fixed'], out['floating']):
        vm = _ssh(address, 'debian', pkey=key)
        try:
            assert _run(vm, 'hostname') == 'vm-n'
        finally:
            vm.close()
