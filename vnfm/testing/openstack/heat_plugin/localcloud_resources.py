"""Heat resource plugin of the local cloud: OS::Nova::Server as a local VM.

Loaded by heat-engine from ``plugin_dirs``; runs in the OpenStack
virtualenv, not vnfm's. The resource keeps Heat's own class, and so its
property schema and template validation; only what would ask Nova, Glance
or Neutron is answered from the local catalogue (``catalogue.json`` in the
cloud's state directory, named by ``VNFM_LOCALCLOUD_STATE``), and the server
is a VM of ``vmhost`` (network namespace, sshd).
"""

from __future__ import annotations

import contextlib
import importlib.util
import ipaddress
import json
import os
import secrets
import uuid
from pathlib import Path
from typing import Any

import yaml
from heat.common import exception
from heat.engine import constraints
from heat.engine import resource
from heat.engine.resources.openstack.cinder import volume as cinder_volume
from heat.engine.resources.openstack.neutron import port as neutron_port
from heat.engine.resources.openstack.nova import server

_HERE = Path(__file__).resolve()
_spec = importlib.util.spec_from_file_location(
    'vnfm_localcloud_vmhost', _HERE.parents[1] / 'vmhost.py'
)
assert _spec and _spec.loader
vmhost = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(vmhost)


def _state() -> Path:
    return Path(os.environ['VNFM_LOCALCLOUD_STATE'])


def catalogue() -> dict[str, Any]:
    """Images, flavours, networks and keypairs of the local cloud."""
    data = json.loads((_state() / 'catalogue.json').read_text())
    keys = _state() / 'keypairs'
    data['keypairs'] = (
        {p.stem: p.read_text().strip() for p in keys.glob('*.pub')}
        if keys.exists()
        else {}
    )
    return data


def _find(kind: str, value: str) -> dict[str, Any]:
    """An image, flavour or network by name or id."""
    for name, item in catalogue()[kind].items():
        if value in (name, item.get('id')):
            return {'name': name, **item}
    entity = {'images': 'Image', 'flavors': 'Flavor', 'networks': 'Network'}[
        kind
    ]
    raise exception.EntityNotFound(entity=entity, name=value)


class _Catalogued(constraints.BaseCustomConstraint):
    kind = ''

    def validate_with_client(self, client: Any, value: str) -> None:
        _find(self.kind, value)


class ImageConstraint(_Catalogued):
    kind = 'images'


class FlavorConstraint(_Catalogued):
    kind = 'flavors'


class NetworkConstraint(_Catalogued):
    kind = 'networks'


def _subnet(network: dict[str, Any], value: str | None) -> dict[str, Any]:
    """The subnet of ``network`` named or id'd ``value`` (first if None)."""
    for sub in network['subnets']:
        if value in (None, sub['id'], sub['name']):
            return dict(sub)
    raise exception.EntityNotFound(entity='Subnet', name=value)


def _find_subnet(value: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(network, subnet) of a subnet name or id."""
    for name, net in catalogue()['networks'].items():
        for sub in net['subnets']:
            if value in (sub['id'], sub['name']):
                return {'name': name, **net}, dict(sub)
    raise exception.EntityNotFound(entity='Subnet', name=value)


def _port_file(port_id: str) -> Path:
    return _state() / 'ports' / f'{port_id}.json'


def load_port(value: str) -> dict[str, Any]:
    """A port made by LocalPort, by id or name."""
    path = _port_file(value)
    if path.exists():
        return dict(json.loads(path.read_text()))
    for path in (_state() / 'ports').glob('*.json'):
        port = json.loads(path.read_text())
        if port['name'] == value:
            return dict(port)
    raise exception.EntityNotFound(entity='Port', name=value)


def _save_port(port: dict[str, Any]) -> None:
    path = _port_file(port['id'])
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(port))


def _mac() -> str:
    return 'fa:16:3e:' + ':'.join(secrets.token_hex(1) for _ in range(3))


class SubnetConstraint(constraints.BaseCustomConstraint):
    def validate_with_client(self, client: Any, value: str) -> None:
        _find_subnet(value)


class PortConstraint(constraints.BaseCustomConstraint):
    def validate_with_client(self, client: Any, value: str) -> None:
        load_port(value)


class KeypairConstraint(constraints.BaseCustomConstraint):
    def validate_with_client(self, client: Any, value: str) -> None:
        if value not in catalogue()['keypairs']:
            raise exception.EntityNotFound(entity='Key', name=value)


def _allocate(subnet: dict[str, Any], wanted: str | None) -> str:
    """A free address of ``subnet`` (``wanted`` if given and free)."""
    net = ipaddress.ip_network(subnet['cidr'])
    pool = _state() / 'ipam'
    pool.mkdir(exist_ok=True)
    hosts = [ipaddress.ip_address(wanted)] if wanted else list(net.hosts())[9:]
    for ip in hosts:
        if ip not in net:
            raise exception.Error(f'{ip} is not in {net}')
        try:
            fd = os.open(pool / str(ip), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            continue
        os.close(fd)
        return str(ip)
    raise exception.Error(f'no free address for {wanted or net}')


def _release(ip: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        (_state() / 'ipam' / ip).unlink()


def _cloud_config(user_data: str | None) -> dict[str, Any]:
    if not user_data or not user_data.lstrip().startswith('#cloud-config'):
        return {}
    data = yaml.safe_load(user_data)
    return data if isinstance(data, dict) else {}


class _Local:
    """What every local resource answers without an OpenStack API."""

    @classmethod
    def is_service_available(cls, context: Any) -> tuple[bool, None]:
        return True, None

    def translation_rules(self, props: Any) -> list[Any]:
        # Only the renames; names are resolved from the catalogue.
        return [
            r
            for r in super().translation_rules(props)  # type: ignore[misc]
            if r.rule == r.REPLACE
        ]


class _Immediate(_Local):
    """A local resource done as soon as its handler returns."""

    def check_create_complete(self, *args: Any) -> bool:
        return True

    def check_delete_complete(self, *args: Any) -> bool:
        return True


class LocalServer(_Local, server.Server):
    """OS::Nova::Server backed by a local VM."""

    def validate(self) -> Any:
        # Heat's property and template checks; not Nova's microversions.
        return super(server.Server, self).validate()

    def _vm_dir(self) -> Path:
        return _state() / 'vms' / str(self.resource_id)

    def _users(self, image: dict[str, Any]) -> tuple[list[dict], bool]:
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
        admin_pass = self.properties[self.ADMIN_PASS]
        if admin_pass:
            users['root'] = {'name': 'root', 'password': admin_pass}
            pwauth = True
        key_name = self.properties[self.KEY_NAME]
        if key_name:
            key = catalogue()['keypairs'][key_name]
            default['ssh_authorized_keys'].append(key)
        cc = _cloud_config(self.properties[self.USER_DATA])
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
        chpasswd = cc.get('chpasswd') or {}
        for entry in chpasswd.get('users') or []:
            u = users.setdefault(entry['name'], {'name': entry['name']})
            u['password'] = entry.get('password')
        if 'password' in cc:
            default['password'] = cc['password']
        if 'ssh_pwauth' in cc:
            pwauth = bool(cc['ssh_pwauth'])
        return list(users.values()), pwauth

    def _nics(self, server_id: str) -> list[dict[str, Any]]:
        nics = []
        for i, net in enumerate(self.properties[self.NETWORKS] or []):
            if net.get(self.NETWORK_PORT):
                port = load_port(net[self.NETWORK_PORT])
                port['device_id'] = server_id
                _save_port(port)
                found = _find('networks', port['network_id'])
                ip = port['fixed_ips'][0]['ip_address']
                subnet = _subnet(found, port['fixed_ips'][0]['subnet_id'])
                mac, port_id = port['mac_address'], port['id']
            else:
                found = _find('networks', net[self.NETWORK_ID])
                subnet = _subnet(found, net.get(self.NETWORK_SUBNET))
                ip = _allocate(subnet, net.get(self.NETWORK_FIXED_IP))
                mac, port_id = _mac(), None
            nics.append(
                {
                    'network': found['name'],
                    'network_id': found['id'],
                    'bridge': found['bridge'],
                    'cidr': subnet['cidr'],
                    'gateway': subnet['gateway_ip'] if i == 0 else None,
                    'ip': ip,
                    'mac': mac,
                    'port_id': port_id,
                }
            )
        if not nics:
            raise exception.Error('a local server needs a network')
        return nics

    def handle_create(self) -> str:
        image = _find('images', self.properties[self.IMAGE])
        flavor = _find('flavors', self.properties[self.FLAVOR])
        users, pwauth = self._users(image)
        vm_id = str(uuid.uuid4())
        self.resource_id_set(vm_id)
        nics = self._nics(vm_id)
        spec = {
            'id': vm_id.replace('-', ''),
            'server_id': vm_id,
            'hostname': self._server_name(),
            'nics': nics,
            'users': users,
            'ssh_pwauth': pwauth,
            'image': image['name'],
            'flavor': flavor['name'],
        }
        self.data_set('nics', json.dumps(nics))
        if image.get('fail'):
            # An image whose VM cannot start, as a broken image would.
            spec['users'] = [{'name': 'root'}]
            spec['hostname'] = ''
        vmhost.start(spec, self._vm_dir())
        return vm_id

    def check_create_complete(self, server_id: str) -> bool:
        state = vmhost.state(self._vm_dir())
        if state == 'ERROR':
            raise exception.ResourceInError(
                resource_status='ERROR',
                status_reason='the VM did not start: '
                + vmhost.console_tail(self._vm_dir(), 5),
            )
        return state == 'ACTIVE'

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return
        vmhost.stop(self._vm_dir())
        for nic in json.loads(self.data().get('nics', '[]')):
            if not nic.get('port_id'):
                _release(nic['ip'])
                continue
            try:
                port = load_port(nic['port_id'])
            except exception.EntityNotFound:
                continue
            port['device_id'] = ''
            _save_port(port)

    def check_delete_complete(self, prg: Any) -> bool:
        return True

    def _addresses(self) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {}
        for nic in json.loads(self.data().get('nics', '[]')):
            out.setdefault(nic['network'], []).append(
                {
                    'version': 4,
                    'addr': nic['ip'],
                    'OS-EXT-IPS:type': 'fixed',
                    'OS-EXT-IPS-MAC:mac_addr': nic['mac'],
                }
            )
        return out

    def _show_resource(self) -> dict[str, Any]:
        state = vmhost.state(self._vm_dir()) if self.resource_id else 'BUILD'
        return {
            'id': self.resource_id,
            'name': self._server_name(),
            'status': state,
            'addresses': self._addresses(),
            'image': {
                'id': _find('images', self.properties[self.IMAGE])['id']
            },
            'flavor': {'original_name': self.properties[self.FLAVOR]},
            'key_name': self.properties[self.KEY_NAME],
            'metadata': self.properties[self.METADATA] or {},
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


class LocalPort(_Immediate, neutron_port.Port):
    """OS::Neutron::Port: an address and a MAC on a catalogue network."""

    def handle_create(self) -> None:
        network = _find('networks', self.properties[self.NETWORK])
        fixed_ips = []
        for wanted in self.properties[self.FIXED_IPS] or [{}]:
            sub = wanted.get(self.FIXED_IP_SUBNET)
            subnet = _subnet(network, sub)
            ip = _allocate(subnet, wanted.get(self.FIXED_IP_IP_ADDRESS))
            fixed_ips.append({'subnet_id': subnet['id'], 'ip_address': ip})
        port = {
            'id': str(uuid.uuid4()),
            'name': self.properties[self.NAME]
            or self.physical_resource_name(),
            'network_id': network['id'],
            'mac_address': self.properties[self.MAC_ADDRESS] or _mac(),
            'fixed_ips': fixed_ips,
            'admin_state_up': True,
            'device_id': '',
            'device_owner': '',
            'status': 'DOWN',
            'tenant_id': self.context.project_id,
            'project_id': self.context.project_id,
        }
        self.resource_id_set(port['id'])
        _save_port(port)

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return
        try:
            port = load_port(self.resource_id)
        except exception.EntityNotFound:
            return
        for fixed in port['fixed_ips']:
            _release(fixed['ip_address'])
        _port_file(self.resource_id).unlink()

    def _show_resource(self) -> dict[str, Any]:
        port = load_port(self.resource_id)
        port['status'] = 'ACTIVE' if port['device_id'] else 'DOWN'
        return port

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        port = self._show_resource()
        network = _find('networks', port['network_id'])
        if name == self.SUBNETS_ATTR:
            return [
                {
                    **_subnet(network, f['subnet_id']),
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


def _volume_file(volume_id: str) -> Path:
    return _state() / 'volumes' / f'{volume_id}.json'


def load_volume(volume_id: str) -> dict[str, Any]:
    """A volume made by LocalVolume."""
    path = _volume_file(volume_id)
    if not path.exists():
        raise exception.EntityNotFound(entity='Volume', name=volume_id)
    return dict(json.loads(path.read_text()))


def _save_volume(vol: dict[str, Any]) -> None:
    vol['status'] = 'in-use' if vol['attachments'] else 'available'
    _volume_file(vol['id']).write_text(json.dumps(vol))


class LocalVolume(_Immediate, cinder_volume.CinderVolume):
    """OS::Cinder::Volume: a sparse file on a loop device."""

    def validate(self) -> Any:
        return resource.Resource.validate(self)

    def handle_create(self) -> str:
        vol_id = str(uuid.uuid4())
        image = _state() / 'volumes' / f'{vol_id}.img'
        loop = vmhost.volume_create(image, self.properties[self.SIZE] or 1)
        self.resource_id_set(vol_id)
        _save_volume(
            {
                'id': vol_id,
                'name': self.properties[self.NAME]
                or self.physical_resource_name(),
                'size': self.properties[self.SIZE] or 1,
                'loop': loop,
                'image': str(image),
                'attachments': [],
                'bootable': 'false',
                'multiattach': False,
                'encrypted': False,
                'volume_type': '__DEFAULT__',
            }
        )
        return vol_id

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return
        try:
            vol = load_volume(self.resource_id)
        except exception.EntityNotFound:
            return
        vmhost.volume_delete(Path(vol['image']), vol['loop'])
        _volume_file(self.resource_id).unlink()

    def _show_resource(self) -> dict[str, Any]:
        vol = load_volume(self.resource_id)
        return {k: v for k, v in vol.items() if k not in ('loop', 'image')}

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        vol = self._show_resource()
        if name == self.ATTACHMENTS:
            return json.dumps(vol['attachments'])
        if name == self.ATTACHMENTS_LIST:
            return vol['attachments']
        if name == 'display_name':
            return vol['name']
        return vol.get(name)


class LocalVolumeAttachment(_Immediate, cinder_volume.CinderVolumeAttachment):
    """OS::Cinder::VolumeAttachment: the loop device as /dev/vdX."""

    def _vm_dir(self) -> Path:
        return _state() / 'vms' / self.properties[self.INSTANCE_ID]

    def handle_create(self) -> None:
        vol = load_volume(self.properties[self.VOLUME_ID])
        server_id = self.properties[self.INSTANCE_ID]
        used = [a['device'] for a in vol['attachments']]
        others = _state() / 'vms' / server_id / 'devices'
        used += others.read_text().split() if others.exists() else []
        device = vmhost.attach(self._vm_dir(), vol['loop'], used)
        others.write_text(' '.join([*used, device]))
        attachment_id = str(uuid.uuid4())
        vol['attachments'].append(
            {
                'id': vol['id'],
                'attachment_id': attachment_id,
                'volume_id': vol['id'],
                'server_id': server_id,
                'device': device,
            }
        )
        _save_volume(vol)
        self.resource_id_set(attachment_id)

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return
        try:
            vol = load_volume(self.properties[self.VOLUME_ID])
        except exception.EntityNotFound:
            return
        for att in [
            a
            for a in vol['attachments']
            if a['attachment_id'] == self.resource_id
        ]:
            vmhost.detach(self._vm_dir(), att['device'])
            devices = self._vm_dir() / 'devices'
            if devices.exists():
                left = devices.read_text().split()
                devices.write_text(
                    ' '.join(d for d in left if d != att['device'])
                )
            vol['attachments'].remove(att)
        _save_volume(vol)


class VolumeConstraint(constraints.BaseCustomConstraint):
    def validate_with_client(self, client: Any, value: str) -> None:
        load_volume(value)


class ServerConstraint(constraints.BaseCustomConstraint):
    def validate_with_client(self, client: Any, value: str) -> None:
        if not (_state() / 'vms' / value / 'spec.json').exists():
            raise exception.EntityNotFound(entity='Server', name=value)


def resource_mapping() -> dict[str, type]:
    """What heat-engine registers over its own classes."""
    return {
        'OS::Nova::Server': LocalServer,
        'OS::Neutron::Port': LocalPort,
        'OS::Cinder::Volume': LocalVolume,
        'OS::Cinder::VolumeAttachment': LocalVolumeAttachment,
    }


def constraint_mapping() -> dict[str, type]:
    """Constraints answered by the local catalogue instead of the APIs."""
    return {
        'glance.image': ImageConstraint,
        'nova.flavor': FlavorConstraint,
        'neutron.network': NetworkConstraint,
        'nova.keypair': KeypairConstraint,
        'neutron.subnet': SubnetConstraint,
        'neutron.port': PortConstraint,
        'cinder.volume': VolumeConstraint,
        'nova.server': ServerConstraint,
    }
