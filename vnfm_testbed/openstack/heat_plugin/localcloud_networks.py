"""Heat resource plugin of the local cloud: networks a stack makes, and
floating IPs.

* ``OS::Neutron::Net`` is a new host bridge; ``OS::Neutron::Subnet`` an
  address block of 198.18.0.0/15 on it (never a private range): the host
  holds the gateway address (or the block's last address when the subnet
  has no gateway), so it reaches every VM there. Both are torn down on
  delete.
* ``OS::Neutron::FloatingIP`` is an address of the ``public`` catalogue
  network (``router:external``). Associated with a port (by its
  ``port_id`` or an ``OS::Neutron::FloatingIPAssociation``) it reaches the
  VM on that port: the address is added, as a /32, to the VM's interface of
  the port, and the host routes it to the port's bridge. This stands in for
  the NAT of a Neutron router: unlike there, the VM sees the address.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import uuid
from typing import Any

from heat.common import exception
from heat.engine.plugins import localcloud_base as base
from heat.engine.resources.openstack.neutron import floatingip
from heat.engine.resources.openstack.neutron import net as neutron_net
from heat.engine.resources.openstack.neutron import subnet as neutron_subnet

vmhost = base.vmhost


class LocalNet(base.Immediate, neutron_net.Net):
    """OS::Neutron::Net: a host bridge."""

    def handle_create(self) -> None:
        net_id = str(uuid.uuid4())
        bridge = f'lcn{net_id.replace("-", "")[:11]}'
        vmhost.bridge_up(bridge, None)
        self.resource_id_set(net_id)
        base.save(
            'networks',
            {
                'id': net_id,
                'name': self.properties[self.NAME]
                or self.physical_resource_name(),
                'bridge': bridge,
                'admin_state_up': self.properties[self.ADMIN_STATE_UP],
                'shared': bool(self.properties[self.SHARED]),
                'port_security_enabled': self.properties[
                    self.PORT_SECURITY_ENABLED
                ]
                is not False,
                'router:external': False,
                'mtu': 1500,
                'status': 'ACTIVE',
                'qos_policy_id': None,
                'l2_adjacency': True,
                'tenant_id': self.context.project_id,
                'project_id': self.context.project_id,
            },
        )

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return
        try:
            net = base.record('networks', self.resource_id)
        except exception.EntityNotFound:
            return
        vmhost.bridge_down(net['bridge'])
        base.forget('networks', self.resource_id)

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: dict[str, Any]
    ) -> None:
        net = base.record('networks', self.resource_id)
        for key in (self.NAME, self.ADMIN_STATE_UP):
            if key in prop_diff and prop_diff[key] is not None:
                net[key] = prop_diff[key]
        base.save('networks', net)

    def _show_resource(self) -> dict[str, Any]:
        net = base.find('networks', self.resource_id)
        shown = {k: v for k, v in net.items() if k != 'bridge'}
        shown['subnets'] = [s['id'] for s in net['subnets']]
        return shown

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        if name == self.SEGMENTS:
            return []
        return self._show_resource().get(name)


def _cidr(props: Any, schema: Any) -> ipaddress.IPv4Network:
    """The subnet's block: as given, or a free /prefixlen of the range."""
    if not props[schema.CIDR]:
        return vmhost.free_block(props[schema.PREFIXLEN] or 24)
    try:
        cidr = vmhost.check_in_test_range(props[schema.CIDR])
    except ValueError as e:
        raise exception.Error(
            f'{e}: the local cloud only gives out addresses of 198.18.0.0/15'
        ) from e
    clash = [u for u in vmhost.used_networks() if u.overlaps(cidr)]
    if clash:
        raise exception.Error(
            f'{cidr} overlaps {clash[0]}, which the host already routes'
        )
    return cidr


class LocalSubnet(base.Immediate, neutron_subnet.Subnet):
    """OS::Neutron::Subnet: an address block on its network's bridge."""

    def handle_create(self) -> None:
        network = base.find('networks', self.properties[self.NETWORK])
        gateway = self.properties[self.GATEWAY_IP]
        # Other clouds on the host check and take blocks under the lock too.
        with vmhost.address_lock():
            cidr = _cidr(self.properties, type(self))
            hosts = list(cidr.hosts())
            if gateway is None:
                gateway = str(hosts[0])
            host_address = gateway or str(hosts[-1])
            vmhost.bridge_address(
                network['bridge'], f'{host_address}/{cidr.prefixlen}', 'add'
            )
        pools = self.properties[self.ALLOCATION_POOLS] or [
            {'start': str(hosts[1]), 'end': str(hosts[-2])}
        ]
        subnet = {
            'id': str(uuid.uuid4()),
            'name': self.properties[self.NAME]
            or self.physical_resource_name(),
            'network_id': network['id'],
            'cidr': str(cidr),
            'gateway_ip': gateway or None,
            'host_address': f'{host_address}/{cidr.prefixlen}',
            'ip_version': 4,
            'allocation_pools': pools,
            'dns_nameservers': self.properties[self.DNS_NAMESERVERS] or [],
            'host_routes': self.properties[self.HOST_ROUTES] or [],
            'enable_dhcp': self.properties[self.ENABLE_DHCP] is not False,
            'tenant_id': self.context.project_id,
            'project_id': self.context.project_id,
        }
        self.resource_id_set(subnet['id'])
        base.save('subnets', subnet)

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return
        try:
            subnet = base.record('subnets', self.resource_id)
            network = base.find('networks', subnet['network_id'])
        except exception.EntityNotFound:
            base.forget('subnets', self.resource_id)
            return
        vmhost.bridge_address(network['bridge'], subnet['host_address'], 'del')
        base.forget('subnets', self.resource_id)

    def handle_update(self, *args: Any) -> None:
        # Name, DNS servers, host routes: nothing a VM here would notice.
        return

    def _show_resource(self) -> dict[str, Any]:
        subnet = base.record('subnets', self.resource_id)
        subnet.pop('host_address', None)
        return subnet

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        return self._show_resource().get(name)


def _nic_of(port: dict[str, Any]) -> tuple[str, int, dict[str, Any]] | None:
    """(VM spec id, interface index, NIC) of the VM holding ``port``."""
    if not port.get('device_id'):
        return None
    spec_file = base.vm_dir(port['device_id']) / 'spec.json'
    if not spec_file.exists():
        return None
    spec = json.loads(spec_file.read_text())
    for i, nic in enumerate(spec['nics']):
        if nic.get('port_id') == port['id'] and not nic.get('detached'):
            return spec['id'], i, nic
    return None


def associate(fip_id: str, port_id: str, fixed_ip: str | None) -> None:
    """Point the floating IP at the port (and so at the VM on it)."""
    fip = base.record('floatingips', fip_id)
    if fip.get('port_id'):
        disassociate(fip_id)
        fip = base.record('floatingips', fip_id)
    port = base.load_port(port_id)
    fip['port_id'] = port['id']
    fip['fixed_ip_address'] = fixed_ip or port['fixed_ips'][0]['ip_address']
    fip['status'] = 'ACTIVE'
    base.save('floatingips', fip)
    found = _nic_of(port)
    if found:
        spec_id, index, nic = found
        vmhost.add_floating(
            spec_id, index, fip['floating_ip_address'], nic['bridge']
        )


def disassociate(fip_id: str) -> None:
    """Undo :func:`associate` (nothing if not associated)."""
    fip = base.record('floatingips', fip_id)
    if not fip.get('port_id'):
        return
    try:
        found = _nic_of(base.load_port(fip['port_id']))
    except exception.EntityNotFound:
        found = None
    spec_id, index = (found[0], found[1]) if found else (None, 0)
    vmhost.remove_floating(fip['floating_ip_address'], spec_id, index)
    fip.update(port_id=None, fixed_ip_address=None, status='DOWN')
    base.save('floatingips', fip)


class LocalFloatingIP(base.Immediate, floatingip.FloatingIP):
    """OS::Neutron::FloatingIP: an address of the public network."""

    def handle_create(self) -> None:
        network = base.find('networks', self.properties[self.FLOATING_NETWORK])
        if not network.get('router:external'):
            raise exception.Error(
                f'network {network["name"]} is not external: floating IPs '
                'come from the "public" network'
            )
        subnet = base.subnet_of(network, self.properties[self.FLOATING_SUBNET])
        address = base.allocate(
            subnet, self.properties[self.FLOATING_IP_ADDRESS]
        )
        fip = {
            'id': str(uuid.uuid4()),
            'floating_ip_address': address,
            'floating_network_id': network['id'],
            'port_id': None,
            'fixed_ip_address': None,
            'router_id': None,
            'status': 'DOWN',
            'tenant_id': self.context.project_id,
            'project_id': self.context.project_id,
        }
        self.resource_id_set(fip['id'])
        base.save('floatingips', fip)
        if self.properties[self.PORT_ID]:
            associate(
                fip['id'],
                self.properties[self.PORT_ID],
                self.properties[self.FIXED_IP_ADDRESS],
            )

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return
        try:
            fip = base.record('floatingips', self.resource_id)
        except exception.EntityNotFound:
            return
        disassociate(self.resource_id)
        base.release(fip['floating_ip_address'])
        base.forget('floatingips', self.resource_id)

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: dict[str, Any]
    ) -> None:
        if self.PORT_ID not in prop_diff:
            return
        if prop_diff[self.PORT_ID]:
            after = json_snippet.properties(
                self.properties_schema, self.context
            )
            associate(
                self.resource_id,
                prop_diff[self.PORT_ID],
                after[self.FIXED_IP_ADDRESS],
            )
        else:
            disassociate(self.resource_id)

    def _show_resource(self) -> dict[str, Any]:
        return base.record('floatingips', self.resource_id)

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        return self._show_resource().get(name)


class LocalFloatingIPAssociation(base.Link, floatingip.FloatingIPAssociation):
    """OS::Neutron::FloatingIPAssociation: a floating IP to a port."""

    def _bind(self, props: Any) -> str:
        fip_id = props[self.FLOATINGIP_ID]
        associate(fip_id, props[self.PORT_ID], props[self.FIXED_IP_ADDRESS])
        return str(fip_id)

    def _unbind(self) -> None:
        with contextlib.suppress(exception.EntityNotFound):  # deleted
            disassociate(self.resource_id)

    def _show_resource(self) -> dict[str, Any]:
        return base.record('floatingips', self.resource_id)


def resource_mapping() -> dict[str, type]:
    """What heat-engine registers over its own classes."""
    return {
        'OS::Neutron::Net': LocalNet,
        'OS::Neutron::Subnet': LocalSubnet,
        'OS::Neutron::FloatingIP': LocalFloatingIP,
        'OS::Neutron::FloatingIPAssociation': LocalFloatingIPAssociation,
    }
