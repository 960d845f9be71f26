"""The storage server of a cluster VNF (seed 004):
``k8s_cluster_installation_param.storage_server`` and
``.pv_registration_params``.

``storage_server`` names the VM (by its SSH CP) that serves NFS from its
Cinder volumes: ``cinder_volume_setup_params`` says where each volume (by
its Heat resource name, the VNFD's VirtualBlockStorage node) is mounted,
``nfs_server_setup_params`` which directories are exported to whom.
``nfs_server`` (a vnfm extension) chooses the NFS server: ``kernel``
(nfs-kernel-server, the seed's, the default) or ``ganesha`` (nfs-ganesha
in user space, NFSv4, for VMs whose kernel has no NFS server).
``pv_registration_params`` lists PersistentVolume manifests of the package
registered on the cluster with ``spec.nfs.server`` set to the address of
the CP ``nfs_server_cp``, else of ``storage_server.nic_cp_name`` (Tacker's
name for the storage server's CP whose address is the NFS server's; the
storage VM's node address too).

The schema is part of ``k8s_cluster.SCHEMA``; ``check_rules`` adds what a
schema cannot say, ``check_flavour`` what the VNFD must have.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import posixpath
from collections.abc import Mapping
from typing import Any

from vnfm.common import exceptions
from vnfm.common import schemacheck
from vnfm.objects import lcm_params

NFS_SERVERS = ('kernel', 'ganesha')
_ERROR = schemacheck.ERROR_TEXT
_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255}
# Directories reach root shells on the storage VM (quoted there too),
# /etc/fstab, /etc/exports and ganesha.conf: letters, digits and . _ - +
# only, so that no shell, quote or separator character can pass.
_ABSOLUTE = {
    'type': 'string',
    'pattern': r'^/(?!.*(^|/)\.\.?(/|$))[A-Za-z0-9._+/-]*[A-Za-z0-9._+-]$',
    'maxLength': 1024,
    _ERROR: 'must be an absolute directory path of letters, digits and '
    "'. _ - +', without '.' or '..' segments or a trailing '/' (and not "
    "'/').",
}
STORAGE_SCHEMA: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'ssh_cp_name': _NAME,
        'nic_cp_name': _NAME,
        'username': {
            'type': 'string',
            'pattern': r'^[a-z_][a-z0-9_.-]{0,31}$',
            _ERROR: 'must be a login name (lower case letters, digits, '
            '_ . -).',
        },
        'password': {'type': 'string', 'minLength': 1, 'maxLength': 1024},
        'private_key': {'type': 'string', 'minLength': 1, 'maxLength': 16384},
        'nfs_server': {
            'enum': list(NFS_SERVERS),
            _ERROR: 'must be kernel (nfs-kernel-server) or ganesha '
            '(nfs-ganesha).',
        },
        'cinder_volume_setup_params': {
            'type': 'array',
            'minItems': 1,
            'maxItems': 16,
            'items': {
                'type': 'object',
                'properties': {
                    'volume_resource_id': _NAME,
                    'mount_to': _ABSOLUTE,
                },
                'required': ['volume_resource_id', 'mount_to'],
                'additionalProperties': False,
            },
        },
        'nfs_server_setup_params': {
            'type': 'array',
            'minItems': 1,
            'maxItems': 256,
            'items': {
                'type': 'object',
                'properties': {
                    'export_dir': _ABSOLUTE,
                    'export_to': {
                        'type': 'string',
                        'minLength': 1,
                        'maxLength': 49,
                        _ERROR: 'must be an IP address or network such as '
                        '198.51.100.0/24.',
                    },
                },
                'required': ['export_dir', 'export_to'],
                'additionalProperties': False,
            },
        },
    },
    'required': [
        'ssh_cp_name',
        'username',
        'cinder_volume_setup_params',
        'nfs_server_setup_params',
    ],
    'additionalProperties': False,
    'allOf': [
        {
            'anyOf': [
                {'required': ['password']},
                {'required': ['private_key']},
            ],
            _ERROR: 'needs password (or private_key) to log into the VM.',
        }
    ],
}
PV_SCHEMA: dict[str, Any] = {
    'type': 'array',
    'maxItems': 256,
    'items': {
        'type': 'object',
        'properties': {
            'pv_manifest_file_path': lcm_params.PACKAGE_PATH,
            'nfs_server_cp': _NAME,
        },
        'required': ['pv_manifest_file_path'],
        'additionalProperties': False,
    },
}


@dataclasses.dataclass(frozen=True)
class VolumeSetup:
    """Where one Cinder volume is mounted."""

    volume_resource_id: str
    mount_to: str


@dataclasses.dataclass(frozen=True)
class NfsExport:
    """One directory exported to one network."""

    export_dir: str
    export_to: str


@dataclasses.dataclass(frozen=True)
class StorageServer:
    """The storage server VM and what it serves."""

    ssh_cp_name: str
    username: str
    volumes: tuple[VolumeSetup, ...]
    exports: tuple[NfsExport, ...]
    nfs_server: str = 'kernel'
    password: str | None = dataclasses.field(default=None, repr=False)
    private_key: str | None = dataclasses.field(default=None, repr=False)
    nic_cp_name: str | None = None

    @property
    def nfs_cp_name(self) -> str:
        """The CP whose address is the NFS server's (Tacker's
        ``nic_cp_name``; the SSH CP when not given)."""
        return self.nic_cp_name or self.ssh_cp_name


@dataclasses.dataclass(frozen=True)
class PvRegistration:
    """One PersistentVolume manifest of the package and its NFS CP."""

    pv_manifest_file_path: str
    nfs_server_cp: str


def typed_storage(params: dict[str, Any]) -> StorageServer | None:
    """The StorageServer of a schema-valid parameter dict (or None)."""
    server = params.get('storage_server')
    if server is None:
        return None
    return StorageServer(
        ssh_cp_name=server['ssh_cp_name'],
        nic_cp_name=server.get('nic_cp_name'),
        username=server['username'],
        password=server.get('password'),
        private_key=server.get('private_key'),
        nfs_server=server.get('nfs_server', 'kernel'),
        volumes=tuple(
            VolumeSetup(**v) for v in server['cinder_volume_setup_params']
        ),
        exports=tuple(
            NfsExport(**e) for e in server['nfs_server_setup_params']
        ),
    )


def typed_pvs(params: dict[str, Any]) -> tuple[PvRegistration, ...]:
    """The PvRegistrations of a schema-valid parameter dict; a PV without
    ``nfs_server_cp`` is on ``storage_server.nic_cp_name`` ('' when that is
    not given either: ``check_rules`` refuses it)."""
    server = params.get('storage_server') or {}
    default = server.get('nic_cp_name') or ''
    return tuple(
        PvRegistration(
            pv_manifest_file_path=p['pv_manifest_file_path'],
            nfs_server_cp=p.get('nfs_server_cp') or default,
        )
        for p in params.get('pv_registration_params') or []
    )


def _under(path: str, directory: str) -> bool:
    return posixpath.commonpath([path, directory]) == directory


def check_rules(
    params: dict[str, Any], where: str, error: type[exceptions.VnfmError]
) -> None:
    """``error`` naming the parameter where the storage parameters break a
    rule the schema cannot say."""
    server = params.get('storage_server')
    if server is None:
        if params.get('pv_registration_params'):
            raise error(
                f'{where}/pv_registration_params: needs storage_server (the '
                'VM that serves the NFS the PersistentVolumes name).'
            )
        return
    base = f'{where}/storage_server'
    for i, pv in enumerate(params.get('pv_registration_params') or []):
        if not pv.get('nfs_server_cp') and not server.get('nic_cp_name'):
            raise error(
                f'{where}/pv_registration_params/{i}/nfs_server_cp: needed '
                '(the CP whose address is the NFS server) unless '
                'storage_server/nic_cp_name names it.'
            )
    mounts = [v['mount_to'] for v in server['cinder_volume_setup_params']]
    for i, mount in enumerate(mounts):
        for other in mounts[:i]:
            if _under(mount, other) or _under(other, mount):
                raise error(
                    f'{base}/cinder_volume_setup_params/{i}/mount_to: '
                    f'{mount} and {other} overlap; each volume needs a '
                    'directory of its own.'
                )
    for i, export in enumerate(server['nfs_server_setup_params']):
        at = f'{base}/nfs_server_setup_params/{i}'
        if not any(_under(export['export_dir'], m) for m in mounts):
            raise error(
                f'{at}/export_dir: {export["export_dir"]} is on no Cinder '
                f'volume; it must be under a mount_to ({", ".join(mounts)}) '
                'so that its data outlives the VM.'
            )
        try:
            ipaddress.ip_network(export['export_to'], strict=False)
        except ValueError:
            raise error(
                f'{at}/export_to: {export["export_to"]!r} is not an IP '
                'address or network (e.g. 198.51.100.0/24).'
            ) from None


def check_flavour(
    storage: StorageServer | None,
    pvs: tuple[PvRegistration, ...],
    flavour: Mapping[str, Any],
    where: str,
    error: type[exceptions.VnfmError],
) -> None:
    """``error`` naming the parameter when the flavour lacks the CP or
    volume it names, or the volume is not the storage VDU's (checked only
    where the flavour declares its CPs and storages)."""
    if storage is None:
        return
    cps = flavour.get('cps') or {}
    base = f'{where}/storage_server'
    checks = [(f'{base}/ssh_cp_name', storage.ssh_cp_name)]
    if storage.nic_cp_name:
        checks.append((f'{base}/nic_cp_name', storage.nic_cp_name))
    checks += [
        (f'{where}/pv_registration_params/{i}/nfs_server_cp', p.nfs_server_cp)
        for i, p in enumerate(pvs)
    ]
    for at, cp in checks:
        if cps and cp not in cps:
            raise error(
                f'{at}: {cp} is not a VduCp of flavour '
                f'{flavour.get("flavour_id")}; it has '
                f'{", ".join(sorted(cps))}.'
            )
    vdu = (cps.get(storage.ssh_cp_name) or {}).get('vdu')
    nic_vdu = (cps.get(storage.nfs_cp_name) or {}).get('vdu')
    if nic_vdu != vdu:
        raise error(
            f'{base}/nic_cp_name: {storage.nic_cp_name} is a CP of VDU '
            f'{nic_vdu}, not of the storage server VDU {vdu} (the VDU of '
            f'ssh_cp_name {storage.ssh_cp_name}).'
        )
    storages = flavour.get('storages') or {}
    mine = ((flavour.get('vdus') or {}).get(vdu) or {}).get('storages')
    for i, volume in enumerate(storage.volumes):
        at = f'{base}/cinder_volume_setup_params/{i}/volume_resource_id'
        name = volume.volume_resource_id
        if storages and name not in storages:
            raise error(
                f'{at}: {name} is not a VirtualBlockStorage of flavour '
                f'{flavour.get("flavour_id")}; it has '
                f'{", ".join(sorted(storages))}.'
            )
        if mine is not None and storages and name not in mine:
            raise error(
                f'{at}: {name} is not a storage of VDU {vdu} (the VDU of '
                f'ssh_cp_name {storage.ssh_cp_name}); it has '
                f'{", ".join(mine) or "none"}.'
            )


def storage_vdu(storage: StorageServer, flavour: dict[str, Any]) -> str | None:
    """The VDU the storage server's SSH CP binds to (None: not declared)."""
    cp = (flavour.get('cps') or {}).get(storage.ssh_cp_name) or {}
    return cp.get('vdu')
