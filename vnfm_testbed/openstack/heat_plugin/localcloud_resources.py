"""Heat resource plugin of the local cloud: OS::Nova::Server as a local VM,
OS::Neutron::Port as an address on a local network.

Loaded by heat-engine from ``plugin_dirs``; runs in the OpenStack
virtualenv, not vnfm's. The resources keep Heat's own classes, and so their
property schemas, update policies and template validation; only what would
ask Nova, Glance or Neutron is answered locally (see localcloud_base), and
the server is a VM of ``vmhost`` (network namespace, sshd).

What Nova would do on an update is done to the VM: a new image
(``image_update_policy`` REBUILD, Heat's default) boots a fresh VM with the
same id, addresses and attached volumes; a new flavour (RESIZE) is recorded;
REPLACE policies, a server marked unhealthy or one whose VM died make Heat
replace the server, and ``prepare_for_replace`` hands its ports over to the
replacement as Nova's interface-detach would. New ``networks`` (another
port or network, as when Heat replaces a port) detach and attach the
running VM's interfaces that changed.
"""

from __future__ import annotations

import json
import logging
import subprocess  # nosec B404 - nsenter chpasswd: fixed argv
import uuid
from typing import Any

from heat.common import exception
from heat.engine.plugins import localcloud_base as base
from heat.engine.plugins import localcloud_volumes as volumes
from heat.engine.resources.openstack.neutron import port as neutron_port
from heat.engine.resources.openstack.nova import server
from novaclient import exceptions as nova_exc

vmhost = base.vmhost
LOG = logging.getLogger(__name__)
vmdisks = base.vmdisks


class LocalServer(base.Local, server.Server):
    """OS::Nova::Server backed by a local VM."""

    def validate(self) -> Any:
        # Heat's property and template checks; not Nova's microversions.
        return super(server.Server, self).validate()

    def _vm_dir(self) -> Any:
        return base.vm_dir(str(self.resource_id))

    def _users(
        self, image: dict[str, Any], props: Any
    ) -> tuple[list[dict[str, Any]], bool]:
        """Users from the image profile, admin_pass, key_name and
        cloud-config; and whether password login is on."""
        default = {
            'name': image['user'],
            'sudo': True,
            'password': image.get('password'),
            'ssh_authorized_keys': [],
        }
        users = {default['name']: default}
        pwauth = bool(image.get('password'))
        if props[self.ADMIN_PASS]:
            users['root'] = {
                'name': 'root',
                'password': props[self.ADMIN_PASS],
            }
            pwauth = True
        if props[self.KEY_NAME]:
            key = base.catalogue()['keypairs'][props[self.KEY_NAME]]
            default['ssh_authorized_keys'].append(key)
        cc = base.cloud_config(props[self.USER_DATA])
        for entry in cc.get('users') or []:
            if entry == 'default' or not isinstance(entry, dict):
                continue
            u = users.setdefault(entry['name'], {'name': entry['name']})
            u['sudo'] = bool(entry.get('sudo'))
            u['ssh_authorized_keys'] = list(
                entry.get('ssh_authorized_keys') or []
            )
            if entry.get('plain_text_passwd'):
                u['password'] = entry['plain_text_passwd']
        for entry in (cc.get('chpasswd') or {}).get('users') or []:
            u = users.setdefault(entry['name'], {'name': entry['name']})
            u['password'] = entry.get('password')
        if 'password' in cc:
            default['password'] = cc['password']
        if 'ssh_pwauth' in cc:
            pwauth = bool(cc['ssh_pwauth'])
        return list(users.values()), pwauth

    def _nic(self, net: dict[str, Any], server_id: str) -> dict[str, Any]:
        if net.get(self.NETWORK_PORT):
            port = base.load_port(net[self.NETWORK_PORT])
            port['device_id'] = server_id
            port['device_owner'] = 'compute:nova'
            base.save('ports', port)
            found = base.find('networks', port['network_id'])
            fixed = port['fixed_ips'][0]
            ip, subnet = fixed['ip_address'], fixed['subnet_id']
            subnet = base.subnet_of(found, subnet)
            mac, port_id = port['mac_address'], port['id']
        else:
            found = base.find('networks', net[self.NETWORK_ID])
            subnet = base.subnet_of(found, net.get(self.NETWORK_SUBNET))
            ip = base.allocate(subnet, net.get(self.NETWORK_FIXED_IP))
            mac, port_id = base.mac(), None
        return {
            'network': found['name'],
            'network_id': found['id'],
            'bridge': found['bridge'],
            'cidr': subnet['cidr'],
            'gateway': subnet.get('gateway_ip'),
            'ip': ip,
            'mac': mac,
            'port_id': port_id,
            'floating_ips': _floating_ips(port_id),
        }

    def _nics(self, server_id: str) -> list[dict[str, Any]]:
        nics = [
            self._nic(net, server_id)
            for net in self.properties[self.NETWORKS] or []
        ]
        if not nics:
            raise exception.Error('a local server needs a network')
        for nic in nics[1:]:
            nic['gateway'] = None  # one default route, on the first NIC
        return nics

    def _image(self, props: Any) -> dict[str, Any]:
        """The image of ``image``, else of the volume it boots from."""
        name = props[self.IMAGE] or volumes.boot_image(
            props[self.BLOCK_DEVICE_MAPPING_V2]
        )
        if not name:
            raise exception.Error(
                'a server needs an image or a boot volume '
                '(block_device_mapping_v2 with boot_index 0)'
            )
        return base.find('images', name)

    def _spec(self, props: Any, vm_id: str, nics: list[Any]) -> dict:
        image = self._image(props)
        # Kept: outside a stack operation Heat resolves get_resource in
        # block_device_mapping_v2 to the resource's name, not its id.
        self.data_set('image_id', image['id'])
        users, pwauth = self._users(image, props)
        spec = {
            'id': vm_id.replace('-', ''),
            'server_id': vm_id,
            # Nova's host name of the server name (``VDU_1`` -> ``vdu-1``).
            'hostname': vmhost.hostname_of(self._server_name()),
            'nics': nics,
            'users': users,
            'ssh_pwauth': pwauth,
            'image': image['name'],
            'flavor': base.find('flavors', props[self.FLAVOR])['name'],
            # One host: every server group policy holds (or is soft).
            'server_group': (props[self.SCHEDULER_HINTS] or {}).get('group'),
            'host_paths': base.catalogue().get('host_paths') or [],
        }
        if image.get('fail'):
            # An image whose VM cannot start, as a broken image would.
            spec['users'] = [{'name': 'root'}]
            spec['hostname'] = ''
        return spec

    def handle_create(self) -> str:
        _check_capacity()
        vm_id = str(uuid.uuid4())
        self.resource_id_set(vm_id)
        nics = self._nics(vm_id)
        self.data_set('nics', json.dumps(nics))
        spec = self._spec(self.properties, vm_id, nics)
        vmhost.start(spec, self._vm_dir())
        _floating_catch_up(spec)
        return vm_id

    def check_create_complete(self, server_id: str) -> bool:
        if not self._active():
            return False
        volumes.attach_mapped(
            server_id, self.properties[self.BLOCK_DEVICE_MAPPING_V2] or []
        )
        return True

    def _active(self) -> bool:
        state = vmhost.state(self._vm_dir())
        if state == 'ERROR':
            raise exception.ResourceInError(
                resource_status='ERROR',
                status_reason='the VM did not start: '
                + vmhost.console_tail(self._vm_dir(), 5),
            )
        return bool(state == 'ACTIVE')

    def _stored_nics(self) -> list[dict[str, Any]]:
        return list(json.loads(self.data().get('nics', '[]')))

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return
        vmhost.stop(self._vm_dir())
        volumes.detach_all(str(self.resource_id))
        for nic in self._stored_nics():
            if not nic.get('port_id'):
                base.release(nic['ip'])
            elif not nic.get('detached'):
                _release_port(nic['port_id'], str(self.resource_id))

    def check_delete_complete(self, prg: Any) -> bool:
        return True

    # -- replacement and update -------------------------------------------

    def needs_replace_failed(self) -> bool:
        if self.resource_id is None:
            return True
        if not (self._vm_dir() / 'spec.json').exists():
            return True
        return bool(vmhost.state(self._vm_dir()) == 'ERROR')

    def prepare_for_replace(self) -> None:
        """Detach the ports (separate resources) for the replacement."""
        if self.resource_id is None:
            return
        nics = self._stored_nics()
        spec_id = str(self.resource_id).replace('-', '')
        for i, nic in enumerate(nics):
            if nic.get('port_id') and not nic.get('detached'):
                vmhost.unplug(spec_id, i)
                _release_port(nic['port_id'], str(self.resource_id))
                nic['detached'] = True
        self.data_set('nics', json.dumps(nics))

    def restore_prev_rsrc(self, convergence: bool = False) -> None:
        """After a rollback: take back the ports no server holds now."""
        if self.resource_id is None:
            return
        nics = self._stored_nics()
        spec_id = str(self.resource_id).replace('-', '')
        for i, nic in enumerate(nics):
            if not nic.get('detached'):
                continue
            port = base.load_port(nic['port_id'])
            if port['device_id']:
                continue  # the replacement still holds it
            port['device_id'] = str(self.resource_id)
            base.save('ports', port)
            nic['detached'] = False
            vmhost.plug(spec_id, i, nic)
        self.data_set('nics', json.dumps(nics))

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: dict[str, Any]
    ) -> list[str]:
        after = json_snippet.properties(self.properties_schema, self.context)
        if self.NETWORKS in prop_diff:
            self._update_nics(after[self.NETWORKS] or [])
        rebuild = self.IMAGE in prop_diff or (
            self.USER_DATA in prop_diff
            and after[self.USER_DATA_UPDATE_POLICY] == 'REBUILD'
        )
        if rebuild:
            self._rebuild(after)
            return ['rebuild']
        if self.ADMIN_PASS in prop_diff and after[self.ADMIN_PASS]:
            _chpasswd(self._vm_dir(), 'root', after[self.ADMIN_PASS])
        # A new flavour (RESIZE), name, metadata, tags: what show reports
        # comes from the properties, which Heat stores after this.
        return []

    def _same_nic(self, nic: dict[str, Any], net: dict[str, Any]) -> bool:
        """Whether ``nic`` already is what ``net`` (a networks entry)
        asks for."""
        if nic.get('detached'):
            return False
        if net.get(self.NETWORK_PORT) or nic.get('port_id'):
            return bool(nic.get('port_id') == net.get(self.NETWORK_PORT))
        found = base.find('networks', net[self.NETWORK_ID])
        fixed = net.get(self.NETWORK_FIXED_IP)
        return found['id'] == nic['network_id'] and fixed in (None, nic['ip'])

    def _update_nics(self, networks: list[dict[str, Any]]) -> None:
        """Nova's interface-detach and -attach, by position: eth``i``
        changes only where entry ``i`` of ``networks`` asks for another port
        or network; the rest keep running."""
        if not networks:
            raise exception.Error('a local server needs a network')
        server_id = str(self.resource_id)
        spec_id = server_id.replace('-', '')
        old = self._stored_nics()
        nics = []
        for i in range(max(len(old), len(networks))):
            was = old[i] if i < len(old) else None
            net = networks[i] if i < len(networks) else None
            if (
                was is not None
                and net is not None
                and self._same_nic(was, net)
            ):
                nics.append(was)
                continue
            if was is not None:
                vmhost.unplug(spec_id, i)
                if not was.get('port_id'):
                    base.release(was['ip'])
                elif not was.get('detached'):
                    _release_port(was['port_id'], server_id)
            if net is not None:
                nic = self._nic(net, server_id)
                if i:
                    nic['gateway'] = None  # one default route, on eth0
                vmhost.plug(spec_id, i, nic)
                nics.append(nic)
        self.data_set('nics', json.dumps(nics))
        spec_path = self._vm_dir() / 'spec.json'
        spec = json.loads(spec_path.read_text())
        spec['nics'] = nics
        spec_path.write_text(json.dumps(spec))

    def _rebuild(self, after: Any) -> None:
        """A fresh VM of the new image: same id, addresses, volumes."""
        old = json.loads((self._vm_dir() / 'spec.json').read_text())
        spec = self._spec(after, str(self.resource_id), old['nics'])
        vmhost.stop(self._vm_dir())
        vmhost.start(spec, self._vm_dir())
        _floating_catch_up(spec)

    def check_update_complete(self, steps: list[str]) -> bool:
        if 'rebuild' not in steps:
            return True
        if not self._active():
            return False
        _reattach_volumes(str(self.resource_id))
        return True

    # -- what show and get_attr answer --------------------------------------

    def _addresses(self) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {}
        for nic in self._stored_nics():
            if nic.get('detached'):
                continue
            entries = out.setdefault(nic['network'], [])
            for addr, kind in [(nic['ip'], 'fixed')] + [
                (f, 'floating') for f in _floating_ips(nic.get('port_id'))
            ]:
                entries.append(
                    {
                        'version': 4,
                        'addr': addr,
                        'OS-EXT-IPS:type': kind,
                        'OS-EXT-IPS-MAC:mac_addr': nic['mac'],
                    }
                )
        return out

    def _show_resource(self) -> dict[str, Any]:
        try:
            return self._shown()
        except Exception:
            # Heat turns the failure into a missing ``show`` silently.
            LOG.exception('cannot show server %s', self.resource_id)
            raise

    def _shown(self) -> dict[str, Any]:
        state = 'BUILD'
        if self.resource_id and (self._vm_dir() / 'spec.json').exists():
            state = vmhost.state(self._vm_dir())
        elif self.resource_id and self.data().get('nics'):
            # Made, and gone since (deleted behind Heat's back): Nova's 404.
            raise nova_exc.NotFound(
                404, f'Server {self.resource_id} not found'
            )
        flavor = base.find('flavors', self.properties[self.FLAVOR])
        return {
            'id': self.resource_id,
            'name': self._server_name(),
            'status': state,
            'addresses': self._addresses(),
            'image': {
                'id': self.data().get('image_id')
                or self._image(self.properties)['id']
            },
            'flavor': {
                'original_name': flavor['name'],
                'vcpus': flavor['vcpus'],
                'ram': flavor['ram'],
                'disk': flavor['disk'],
            },
            'key_name': self.properties[self.KEY_NAME],
            'metadata': self.properties[self.METADATA] or {},
            'os-extended-volumes:volumes_attached': [
                {'id': v['id']} for v in _volumes_of(str(self.resource_id))
            ],
            'host_keys': vmhost.host_keys(self._vm_dir()),
        }

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        addresses = self._addresses()
        if name == self.FIRST_ADDRESS:
            first = next(iter(addresses.values()), [])
            return first[0]['addr'] if first else ''
        if name == self.NAME_ATTR:
            return self._server_name()
        if name == self.ADDRESSES:
            return addresses
        if name == self.NETWORKS_ATTR:
            return {n: [a['addr'] for a in v] for n, v in addresses.items()}
        if name in (
            self.ACCESSIPV4,
            self.ACCESSIPV6,
            self.INSTANCE_NAME,
            self.CONSOLE_URLS,
            self.TAGS_ATTR,
        ):
            return None
        return super()._resolve_attribute(name)


def _check_capacity() -> None:
    """Nova's scheduler on a full host: ``host.json``'s ``max_servers``
    (what a test sets) VMs run already."""
    path = base.state() / 'host.json'
    if not path.exists():
        return
    limit = json.loads(path.read_text()).get('max_servers')
    vms = base.state() / 'vms'
    running = len(list(vms.glob('*/spec.json'))) if vms.exists() else 0
    if limit is not None and running >= int(limit):
        raise exception.ResourceInError(
            resource_status='ERROR',
            status_reason='No valid host was found. There are not enough '
            'hosts available.',
        )


def _release_port(port_id: str, server_id: str) -> None:
    """Mark the port free, if ``server_id`` still holds it."""
    try:
        port = base.load_port(port_id)
    except exception.EntityNotFound:
        return
    if port['device_id'] == server_id:
        port['device_id'] = port['device_owner'] = ''
        base.save('ports', port)


def _floating_ips(port_id: str | None) -> list[str]:
    """Floating addresses associated with ``port_id``."""
    if not port_id:
        return []
    return [
        f['floating_ip_address']
        for f in base.records('floatingips')
        if f.get('port_id') == port_id
    ]


def _floating_catch_up(spec: dict[str, Any]) -> None:
    """Wire the floating IPs associated with the VM's ports while it
    started: an association made after the spec was computed but before
    the VM's spec.json existed found no VM to wire (``associate`` saves
    the floating IP first, then looks for the VM; the VM is written first,
    then this looks for floating IPs: one of the two sees the other)."""
    for i, nic in enumerate(spec['nics']):
        if nic.get('detached'):
            continue
        for address in _floating_ips(nic.get('port_id')):
            if address not in (nic.get('floating_ips') or []):
                vmhost.add_floating(spec['id'], i, address, nic['bridge'])


def _volumes_of(server_id: str) -> list[dict[str, Any]]:
    return [
        v
        for v in base.records('volumes')
        if any(a['server_id'] == server_id for a in v['attachments'])
    ]


def _reattach_volumes(server_id: str) -> None:
    """Make the volume devices again in a rebuilt VM, with their names."""
    for vol in _volumes_of(server_id):
        for att in vol['attachments']:
            if att['server_id'] == server_id:
                vmdisks.attach(
                    base.vm_dir(server_id), vol['loop'], [], att['device']
                )


def _chpasswd(vm_dir: Any, user: str, password: str) -> None:
    """Change ``user``'s password in the running VM."""
    pid = vmdisks.first_process(vm_dir)
    subprocess.run(  # noqa: S603 - fixed argv
        ['nsenter', '-t', str(pid), '-m', '-p', '--', 'chpasswd'],
        input=f'{user}:{password}\n',
        text=True,
        check=True,
        capture_output=True,
        timeout=30,
    )


class LocalPort(base.Immediate, neutron_port.Port):
    """OS::Neutron::Port: an address and a MAC on a local network."""

    def handle_create(self) -> None:
        network = base.find('networks', self.properties[self.NETWORK])
        fixed_ips = []
        for wanted in self.properties[self.FIXED_IPS] or [{}]:
            sub = wanted.get(self.FIXED_IP_SUBNET)
            subnet = base.subnet_of(network, sub)
            ip = base.allocate(subnet, wanted.get(self.FIXED_IP_IP_ADDRESS))
            fixed_ips.append({'subnet_id': subnet['id'], 'ip_address': ip})
        port = {
            'id': str(uuid.uuid4()),
            'name': self.properties[self.NAME]
            or self.physical_resource_name(),
            'network_id': network['id'],
            'mac_address': self.properties[self.MAC_ADDRESS] or base.mac(),
            'fixed_ips': fixed_ips,
            'admin_state_up': True,
            'device_id': '',
            'device_owner': '',
            'status': 'DOWN',
            'tenant_id': self.context.project_id,
            'project_id': self.context.project_id,
        }
        self.resource_id_set(port['id'])
        base.save('ports', port)

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return
        try:
            port = base.load_port(self.resource_id)
        except exception.EntityNotFound:
            return
        for fixed in port['fixed_ips']:
            base.release(fixed['ip_address'])
        base.forget('ports', self.resource_id)

    def prepare_for_replace(self) -> None:
        # Neutron keeps a port's addresses until it is deleted: nothing to do.
        return

    def restore_prev_rsrc(self, convergence: bool = False) -> None:
        return

    def handle_update(self, *args: Any) -> None:
        # Name, admin state, security groups...: nothing a VM would notice.
        return

    def _show_resource(self) -> dict[str, Any]:
        port = base.load_port(self.resource_id)
        port['status'] = 'ACTIVE' if port['device_id'] else 'DOWN'
        return port

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        port = self._show_resource()
        network = base.find('networks', port['network_id'])
        if name == self.SUBNETS_ATTR:
            return [
                {
                    **base.subnet_of(network, f['subnet_id']),
                    'network_id': network['id'],
                    'ip_version': 4,
                }
                for f in port['fixed_ips']
            ]
        if name == self.NETWORK_ATTR:
            return {
                'id': network['id'],
                'name': network['name'],
                'subnets': [s['id'] for s in network['subnets']],
                'status': 'ACTIVE',
            }
        return port.get(name)


def resource_mapping() -> dict[str, type]:
    """What heat-engine registers over its own classes."""
    return {
        'OS::Nova::Server': LocalServer,
        'OS::Neutron::Port': LocalPort,
    }
