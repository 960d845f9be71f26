"""What the local cloud's Heat resources share: the catalogue, the files
that stand in for Neutron's and Cinder's databases, and the constraints.

Loaded by heat-engine from ``plugin_dirs`` (as ``heat.engine.plugins.
localcloud_base``; the resource modules import it from there); runs in the
OpenStack virtualenv, not vnfm's. State lives in the cloud's state directory,
named by ``VNFM_LOCALCLOUD_STATE``: ``catalogue.json`` (images, flavours and
the networks ``up`` made), and one JSON file per port, volume, network and
subnet a stack made.
"""

from __future__ import annotations

import contextlib
import importlib.util
import ipaddress
import json
import os
import secrets
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml
from heat.common import exception
from heat.engine import constraints

_HERE = Path(__file__).resolve()


def _load(name: str) -> ModuleType:
    """A standard-library module of vnfm_testbed/openstack by file."""
    spec = importlib.util.spec_from_file_location(
        f'vnfm_localcloud_{name}', _HERE.parents[1] / f'{name}.py'
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


vmhost = _load('vmhost')
vmdisks = _load('vmdisks')
stores = _load('stores')


def state() -> Path:
    """The cloud's state directory."""
    return Path(os.environ['VNFM_LOCALCLOUD_STATE'])


def records(kind: str) -> list[dict[str, Any]]:
    """Every stored port, volume, network, ..."""
    return list(stores.records(state(), kind))


def record(kind: str, item_id: str) -> dict[str, Any]:
    """A stored port, volume, network, ... by id (EntityNotFound if none)."""
    path = state() / kind / f'{item_id}.json'
    if not path.exists():
        raise exception.EntityNotFound(entity=kind[:-1].title(), name=item_id)
    return dict(json.loads(path.read_text()))


def save(kind: str, item: dict[str, Any]) -> None:
    """Store ``item`` (with an ``id``) under ``kind``."""
    path = state() / kind / f'{item["id"]}.json'
    path.parent.mkdir(exist_ok=True)
    tmp = path.with_suffix('.tmp')
    tmp.write_text(json.dumps(item))
    tmp.replace(path)


def forget(kind: str, item_id: str) -> None:
    """Delete a stored item (nothing if it is gone)."""
    (state() / kind / f'{item_id}.json').unlink(missing_ok=True)


def networks() -> list[dict[str, Any]]:
    """The catalogue's networks and those stacks made, with subnets."""
    return list(stores.networks(state()))


def catalogue() -> dict[str, Any]:
    """Images, flavours, networks and keypairs of the local cloud."""
    data = json.loads((state() / 'catalogue.json').read_text())
    keys = state() / 'keypairs'
    data['keypairs'] = (
        {p.stem: p.read_text().strip() for p in keys.glob('*.pub')}
        if keys.exists()
        else {}
    )
    return data


def find(kind: str, value: str) -> dict[str, Any]:
    """An image, flavour or network by id or name."""
    if kind == 'networks':
        items = networks()
    else:
        items = [{'name': n, **v} for n, v in catalogue()[kind].items()]
    if kind == 'images':
        items += uploaded_images()
    for key in ('id', 'name'):
        for item in items:
            if item.get(key) == value:
                return item
    entity = {'images': 'Image', 'flavors': 'Flavor', 'networks': 'Network'}
    raise exception.EntityNotFound(entity=entity[kind], name=value)


def uploaded_images() -> list[dict[str, Any]]:
    """The active images of the image service, as VM profiles: the user
    of their ``os_admin_user`` property (Glance's), else ``cloud-user``."""
    return [
        {**i, 'user': i.get('os_admin_user') or 'cloud-user', 'password': None}
        for i in records('glance')
        if i.get('status') == 'active'
    ]


def subnet_of(network: dict[str, Any], value: str | None) -> dict[str, Any]:
    """The subnet of ``network`` named or id'd ``value`` (first if None)."""
    for sub in network['subnets']:
        if value in (None, sub['id'], sub['name']):
            return dict(sub)
    raise exception.EntityNotFound(entity='Subnet', name=value)


def find_subnet(value: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(network, subnet) of a subnet name or id."""
    for net in networks():
        for sub in net['subnets']:
            if value in (sub['id'], sub['name']):
                return net, dict(sub)
    raise exception.EntityNotFound(entity='Subnet', name=value)


def load_port(value: str) -> dict[str, Any]:
    """A port made by LocalPort, by id or name."""
    with contextlib.suppress(exception.EntityNotFound):
        return record('ports', value)
    for port in records('ports'):
        if port['name'] == value:
            return port
    raise exception.EntityNotFound(entity='Port', name=value)


def mac() -> str:
    """A MAC address with OpenStack's prefix."""
    return 'fa:16:3e:' + ':'.join(secrets.token_hex(1) for _ in range(3))


def allocate(subnet: dict[str, Any], wanted: str | None) -> str:
    """A free address of ``subnet`` (``wanted`` if given and free)."""
    net = ipaddress.ip_network(subnet['cidr'])
    pool = state() / 'ipam'
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


def release(ip: str) -> None:
    """Give ``ip`` back to its subnet's pool."""
    with contextlib.suppress(FileNotFoundError):
        (state() / 'ipam' / ip).unlink()


def cloud_config(user_data: str | None) -> dict[str, Any]:
    """The cloud-config document of ``user_data`` ({} if it is none)."""
    if not user_data or not user_data.lstrip().startswith('#cloud-config'):
        return {}
    data = yaml.safe_load(user_data)
    return data if isinstance(data, dict) else {}


def vm_dir(server_id: str) -> Path:
    """Directory of the VM of server ``server_id``."""
    return state() / 'vms' / server_id


class Local:
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

    def needs_replace_failed(self) -> bool:
        if getattr(self, 'resource_id', None) is None:
            return True
        try:
            shown = self._show_resource()
        except exception.EntityNotFound:
            return True
        return bool(shown.get('status') == 'ERROR')

    def _show_resource(self) -> dict[str, Any]:
        raise NotImplementedError


class Immediate(Local):
    """A local resource done as soon as its handler returns."""

    def check_create_complete(self, *args: Any) -> bool:
        return True

    def check_delete_complete(self, *args: Any) -> bool:
        return True

    def check_update_complete(self, *args: Any) -> bool:
        return True


class Link(Immediate):
    """A link between two resources (an attachment, an association) that
    an update of either end undoes and makes again."""

    def _bind(self, props: Any) -> str:
        """Make the link of ``props``; the resource id."""
        raise NotImplementedError

    def _unbind(self) -> None:
        """Undo the link (nothing if an end is gone)."""
        raise NotImplementedError

    def handle_create(self) -> None:
        self.resource_id_set(self._bind(self.properties))  # type: ignore[attr-defined]

    def handle_delete(self) -> None:
        if self.resource_id is not None:  # type: ignore[attr-defined]
            self._unbind()

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: dict[str, Any]
    ) -> None:
        if not prop_diff:
            return
        after = json_snippet.properties(
            self.properties_schema,  # type: ignore[attr-defined]
            self.context,  # type: ignore[attr-defined]
        )
        self.handle_delete()
        self.resource_id_set(self._bind(after))  # type: ignore[attr-defined]


class _Catalogued(constraints.BaseCustomConstraint):
    kind = ''

    def validate_with_client(self, client: Any, value: str) -> None:
        find(self.kind, value)


class ImageConstraint(_Catalogued):
    kind = 'images'


class FlavorConstraint(_Catalogued):
    kind = 'flavors'


class NetworkConstraint(_Catalogued):
    kind = 'networks'


class SubnetConstraint(constraints.BaseCustomConstraint):
    def validate_with_client(self, client: Any, value: str) -> None:
        find_subnet(value)


class PortConstraint(constraints.BaseCustomConstraint):
    def validate_with_client(self, client: Any, value: str) -> None:
        load_port(value)


class KeypairConstraint(constraints.BaseCustomConstraint):
    def validate_with_client(self, client: Any, value: str) -> None:
        if value not in catalogue()['keypairs']:
            raise exception.EntityNotFound(entity='Key', name=value)


class VolumeConstraint(constraints.BaseCustomConstraint):
    def validate_with_client(self, client: Any, value: str) -> None:
        record('volumes', value)


class VolumeTypeConstraint(constraints.BaseCustomConstraint):
    def validate_with_client(self, client: Any, value: str) -> None:
        if value == '__DEFAULT__':
            return
        if not any(
            value in (t['id'], t['name']) for t in records('volume_types')
        ):
            raise exception.EntityNotFound(entity='Volume Type', name=value)


class ServerConstraint(constraints.BaseCustomConstraint):
    def validate_with_client(self, client: Any, value: str) -> None:
        if not (vm_dir(value) / 'spec.json').exists():
            raise exception.EntityNotFound(entity='Server', name=value)


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
        'cinder.vtype': VolumeTypeConstraint,
        'nova.server': ServerConstraint,
    }
