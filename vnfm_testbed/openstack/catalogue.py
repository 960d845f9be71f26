"""The local cloud's stand-ins for Glance, Nova flavours and the provider
networks that exist before any stack (what ``up`` creates)."""

from __future__ import annotations

import hashlib
import ipaddress
import json
import sys
import uuid
from pathlib import Path
from typing import Any

from vnfm_testbed.openstack import stores
from vnfm_testbed.openstack import vmdisks
from vnfm_testbed.openstack import vmhost

_NS = uuid.UUID('5d1f4c2e-8a43-4f7e-9a57-1c0c8d6b7a10')

#: Image name -> VM profile: default user, its password (None: keys only).
IMAGES: dict[str, dict[str, Any]] = {
    'ubuntu-22.04': {'user': 'ubuntu', 'password': 'ubuntu'},
    'debian-12': {'user': 'debian', 'password': None},
    'cirros-0.6': {'user': 'cirros', 'password': 'gocubsgo'},
    # A VM of this image never boots: its server goes CREATE_FAILED.
    'broken-image': {'user': 'nobody', 'password': None, 'fail': True},
}
#: Flavour name -> (vCPUs, RAM MiB, disk GiB), as Nova's defaults.
FLAVORS = {
    'm1.tiny': (1, 512, 1),
    'm1.small': (1, 2048, 20),
    'm1.medium': (2, 4096, 40),
    'm1.large': (4, 8192, 80),
}
NETWORKS = ('mgmt-net', 'data-net-1', 'data-net-2', 'public')
#: The external network floating IPs come from (Neutron's router:external).
PUBLIC = 'public'


def _id(kind: str, name: str) -> str:
    return str(uuid.uuid5(_NS, f'{kind}/{name}'))


def bridge_name(prefix: str, index: int) -> str:
    """Host bridge of network ``index`` of the cloud ``prefix``."""
    return f'lc{hashlib.sha1(prefix.encode()).hexdigest()[:8]}{index}'  # noqa: S324


def host_paths() -> list[str]:
    """Host directories every VM sees, read-only, at the same path: this
    vnfm checkout and the virtualenv running it (test images run vnfm's
    simulated kubelet and control plane from them, wherever the checkout
    is, /tmp included)."""
    root = Path(__file__).resolve().parents[2]
    return sorted({str(root), str(Path(sys.prefix).resolve())})


def _networks(prefix: str, block: ipaddress.IPv4Network) -> dict[str, Any]:
    """The catalogue networks in ``block``, their bridges made."""
    networks = {}
    for i, (name, cidr) in enumerate(
        zip(NETWORKS, block.subnets(new_prefix=24), strict=False)
    ):
        gateway = str(cidr.network_address + 1)
        bridge = bridge_name(prefix, i)
        vmhost.bridge_up(bridge, f'{gateway}/{cidr.prefixlen}')
        networks[name] = {
            'id': _id('network', f'{prefix}/{name}'),
            'bridge': bridge,
            'router:external': name == PUBLIC,
            'subnets': [
                {
                    'id': _id('subnet', f'{prefix}/{name}'),
                    'name': f'{name}-subnet',
                    'cidr': str(cidr),
                    'gateway_ip': gateway,
                }
            ],
        }
    return networks


def create(state_dir: Path, prefix: str) -> dict[str, Any]:
    """Make the networks (bridges in a free block of 198.18.0.0/15) and
    write catalogue.json; the catalogue."""
    with vmhost.address_lock():
        networks = _networks(prefix, vmhost.free_block(22))
    data = {
        'images': {n: {'id': _id('image', n), **p} for n, p in IMAGES.items()},
        'flavors': {
            n: {'id': _id('flavor', n), 'vcpus': c, 'ram': r, 'disk': d}
            for n, (c, r, d) in FLAVORS.items()
        },
        'networks': networks,
        'host_paths': host_paths(),
    }
    (state_dir / 'catalogue.json').write_text(json.dumps(data, indent=2))
    return data


#: Directories of what stacks made (ports, networks, ...): emptied by destroy.
_STORES = (
    'ipam',
    'keypairs',
    'ports',
    'networks',
    'subnets',
    'floatingips',
    'server_groups',
    'glance',
    'volume_types',
)


def destroy(state_dir: Path, prefix: str) -> None:
    """Stop every VM left in ``state_dir`` and delete the bridges."""
    vms = state_dir / 'vms'
    if vms.exists():
        for vm_dir in vms.iterdir():
            vmhost.stop(vm_dir)
    for vol in (state_dir / 'volumes').glob('*.json'):
        data = json.loads(vol.read_text())
        vmdisks.volume_delete(Path(data['image']), data['loop'])
        vol.unlink()
    for i in range(len(NETWORKS)):
        vmhost.bridge_down(bridge_name(prefix, i))
    for net in (state_dir / 'networks').glob('*.json'):
        vmhost.bridge_down(json.loads(net.read_text())['bridge'])
    for leftover in _STORES:
        for f in (state_dir / leftover).glob('*'):
            f.unlink()


def networks(state_dir: Path) -> list[dict[str, Any]]:
    """Every network of the cloud, from ``up`` and from stacks: id, name,
    whether external, and subnets (id, name, CIDR, gateway)."""
    if not (state_dir / 'catalogue.json').exists():
        return []
    return [
        {
            'id': net['id'],
            'name': net['name'],
            'router:external': bool(net.get('router:external')),
            'bridge': net['bridge'],
            'subnets': [
                {k: s.get(k) for k in ('id', 'name', 'cidr', 'gateway_ip')}
                for s in net['subnets']
            ],
        }
        for net in stores.networks(state_dir)
    ]
