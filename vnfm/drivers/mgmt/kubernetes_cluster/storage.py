"""The storage server of a cluster VNF (seed 004): its VM and volumes in
the instance, their set-up over SSH, and the PersistentVolumes on its NFS.

- ``find_server``: the one VNFC with ``storage_server.ssh_cp_name``, and
  for each ``cinder_volume_setup_params`` the volume of that VNFC
  (``storageResourceIds`` -> ``virtualStorageResourceInfo`` with the
  ``volume_resource_id`` as ``virtualStorageDescId``): its Cinder id and
  the devices it was attached as (the infra driver's ``metadata``).
- ``Setup``: the converging steps of ``nfs`` on the storage VM, the NFS
  client on cluster VMs, the PVs registered on a master (``pvs``); every
  change counted in ``Setup.changes``.
- ``check``: what must hold before a hook changes anything.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import Any

from vnfm.common import exceptions
from vnfm.drivers.mgmt import base
from vnfm.drivers.mgmt.kubernetes_cluster import nfs
from vnfm.drivers.mgmt.kubernetes_cluster import nodes
from vnfm.drivers.mgmt.kubernetes_cluster import pvs
from vnfm.drivers.mgmt.kubernetes_cluster import sessions
from vnfm.drivers.package_files import PackageFiles
from vnfm.objects import k8s_cluster
from vnfm.objects import k8s_storage

LOG = logging.getLogger(__name__)
_PARAM = f'additionalParams/{k8s_cluster.PARAM}'


@dataclasses.dataclass(frozen=True)
class Volume:
    """One Cinder volume of the storage VM and where it goes."""

    setup: k8s_storage.VolumeSetup
    volume_id: str
    devices: tuple[str, ...]

    def candidates(self) -> list[str]:
        """The device paths to look for in the VM."""
        return nfs.device_candidates(self.volume_id, self.devices)


@dataclasses.dataclass(frozen=True)
class StorageServer:
    """The storage server VM and its volumes."""

    vm: nodes.VmNode
    volumes: tuple[Volume, ...]


def check(
    params: k8s_cluster.ClusterParams,
    vnfd: dict[str, Any],
    flavour_id: str | None,
    package: PackageFiles,
) -> list[pvs.Manifest]:
    """OperationFailed naming the parameter when the storage parameters do
    not fit the VNFD's flavour or the package; the PV manifests."""
    flavour = (vnfd.get('flavours') or {}).get(flavour_id or '') or {}
    k8s_cluster.check_flavour(params, flavour, exceptions.OperationFailed)
    return pvs.read(package, params)


def flavour_id(ctx: base.HookContext) -> str | None:
    """The flavour of the instance (or of the instantiate request)."""
    info = ctx.vnf_instance.get('instantiatedVnfInfo') or {}
    return info.get('flavourId') or ctx.request.get('flavourId')


def checked(
    ctx: base.HookContext, params: k8s_cluster.ClusterParams
) -> list[pvs.Manifest]:
    """``check`` for a hook (no storage server: nothing to check)."""
    if params.storage is None:
        return []
    return check(params, ctx.vnfd, flavour_id(ctx), ctx.package)


def server_vm(
    info: dict[str, Any] | None, params: k8s_cluster.ClusterParams
) -> nodes.VmNode | None:
    """The storage VM of an instance (None without ``storage_server``)."""
    found = find_server(info, params)
    return found.vm if found is not None else None


def storage_vdu_aspect(
    params: k8s_cluster.ClusterParams,
    vnfd: dict[str, Any],
    flavour_id: str | None,
    aspect_id: str | None,
) -> str | None:
    """The storage server's VDU when scaling aspect ``aspect_id`` changes
    its number of VMs; else None."""
    if params.storage is None or aspect_id is None:
        return None
    flavour = (vnfd.get('flavours') or {}).get(flavour_id or '') or {}
    vdu = k8s_storage.storage_vdu(params.storage, flavour)
    aspect = (flavour.get('scaling_aspects') or {}).get(aspect_id) or {}
    # vdu_deltas and vdu_initial_deltas are keyed by VDU.
    touched = set(aspect.get('vdu_deltas') or {}) | set(
        aspect.get('vdu_initial_deltas') or {}
    )
    return vdu if vdu is not None and vdu in touched else None


def _vnfcs(info: dict[str, Any] | None) -> list[dict[str, Any]]:
    return (info or {}).get('vnfcResourceInfo') or []


def find_server(
    info: dict[str, Any] | None, params: k8s_cluster.ClusterParams
) -> StorageServer | None:
    """The storage VM of an instance (None without ``storage_server``);
    NodeNotFound naming the parameter when it or a volume is missing."""
    storage = params.storage
    if storage is None:
        return None
    where = f'{_PARAM}/storage_server'
    mine = [
        v
        for v in _vnfcs(info)
        if any(
            cp.get('cpdId') == storage.ssh_cp_name
            for cp in v.get('vnfcCpInfo') or []
        )
    ]
    if len(mine) != 1:
        raise nodes.NodeNotFound(
            f'{where}/ssh_cp_name: {len(mine)} VNFCs of the instance have CP '
            f'{storage.ssh_cp_name}; the storage server is one VM.'
        )
    vnfc = mine[0]
    address = address_of((info or {}), storage.ssh_cp_name)
    nic = _own_address(vnfc, storage.nfs_cp_name)
    wanted = [
        ('ssh_cp_name', storage.ssh_cp_name, address),
        ('nic_cp_name', storage.nfs_cp_name, nic),
    ]
    for param, cp, found in wanted:
        if found is None:
            raise nodes.NodeNotFound(
                f'{where}/{param}: CP {cp} of VNFC {vnfc["id"]} has no IP '
                'address in the instance.'
            )
    vm = nodes.VmNode(
        role=nodes.STORAGE,
        vnfc_id=vnfc['id'],
        vdu_id=vnfc.get('vduId', ''),
        resource_id=(vnfc.get('computeResource') or {}).get('resourceId', ''),
        ssh_address=str(address),
        node_address=str(nic),
    )
    volumes = tuple(
        _volume(
            info or {}, vnfc, setup, f'{where}/cinder_volume_setup_params/{i}'
        )
        for i, setup in enumerate(storage.volumes)
    )
    return StorageServer(vm, volumes)


def _volume(
    info: dict[str, Any],
    vnfc: dict[str, Any],
    setup: k8s_storage.VolumeSetup,
    where: str,
) -> Volume:
    server_id = (vnfc.get('computeResource') or {}).get('resourceId')
    ids = set(vnfc.get('storageResourceIds') or [])
    for entry in info.get('virtualStorageResourceInfo') or []:
        if entry.get('virtualStorageDescId') != setup.volume_resource_id:
            continue
        attached = ((entry.get('metadata') or {}).get('attachments')) or []
        devices = tuple(
            a.get('device') or ''
            for a in attached
            if a.get('serverId') == server_id
        )
        if entry.get('id') in ids or devices:
            return Volume(
                setup,
                (entry.get('storageResource') or {}).get('resourceId', ''),
                devices,
            )
    raise nodes.NodeNotFound(
        f'{where}/volume_resource_id: VNFC {vnfc["id"]} has no volume '
        f'{setup.volume_resource_id} in the instance '
        '(virtualStorageResourceInfo).'
    )


def _own_address(vnfc: dict[str, Any], cpd_id: str) -> str | None:
    """The first IP address of the VNFC's own CP ``cpd_id``."""
    for cp in vnfc.get('vnfcCpInfo') or []:
        if cp.get('cpdId') == cpd_id and nodes.cp_addresses(cp):
            return nodes.cp_addresses(cp)[0]
    return None


def address_of(info: dict[str, Any], cpd_id: str) -> str | None:
    """The first IP address of CP ``cpd_id`` (a VNFC's or external)."""
    cps = [
        cp for v in _vnfcs(info) for cp in v.get('vnfcCpInfo') or []
    ] + list(info.get('extCpInfo') or [])
    for cp in cps:
        if cp.get('cpdId') == cpd_id and nodes.cp_addresses(cp):
            return nodes.cp_addresses(cp)[0]
    return None


class Setup:
    """The storage steps of one hook over its sessions."""

    def __init__(
        self,
        params: k8s_cluster.ClusterParams,
        vms: sessions.Sessions,
        timeout: Callable[[], float],
        kubectl: str = 'kubectl',
        kubeconfig: str = pvs.ADMIN_KUBECONFIG,
    ) -> None:
        self.params = params
        self.vms = vms
        self.timeout = timeout  # seconds left for one step
        self.kubectl = kubectl
        self.kubeconfig = kubeconfig
        self.changes = nfs.Changes()

    def _step(self, vm: nodes.VmNode, step: str, script: str) -> str:
        return nfs.run_step(
            self.vms.open(vm), step, script, self.timeout(), self.changes
        )

    def server(self, server: StorageServer) -> None:
        """Volumes mounted, NFS served (converging)."""
        storage = self.params.storage
        assert storage is not None  # noqa: S101 - server implies storage
        for volume in server.volumes:
            self._step(
                server.vm,
                'volume',
                nfs.volume_script(volume.candidates(), volume.setup.mount_to),
            )
        self._step(
            server.vm, 'export-dirs', nfs.export_dirs_script(storage.exports)
        )
        self._step(
            server.vm,
            'packages',
            nfs.packages_script(nfs.SERVER_PACKAGES[storage.nfs_server]),
        )
        self._step(
            server.vm,
            f'nfs-{storage.nfs_server}',
            nfs.server_script(storage.nfs_server, storage.exports),
        )

    def clients(self, vms: list[nodes.VmNode]) -> None:
        """The NFS client on each of ``vms``."""
        for vm in vms:
            self._step(
                vm, 'nfs-client', nfs.packages_script(nfs.CLIENT_PACKAGES)
            )

    def _kubectl(self, master: nodes.VmNode) -> pvs.Kubectl:
        return pvs.Kubectl(
            self.vms.open(master),
            self.timeout(),
            self.kubectl,
            self.kubeconfig,
        )

    def register(
        self,
        master: nodes.VmNode,
        manifests: list[pvs.Manifest],
        info: dict[str, Any] | None,
        vnf_instance_id: str,
    ) -> None:
        """Each PV registered with the address of its ``nfs_server_cp``."""
        if not manifests:
            return
        files = {}
        for i, manifest in enumerate(manifests):
            cp = manifest.registration.nfs_server_cp
            address = address_of(info or {}, cp)
            if address is None:
                raise nodes.NodeNotFound(
                    f'{_PARAM}/pv_registration_params/{i}/nfs_server_cp: no '
                    f'CP {cp} with an IP address in the instance.'
                )
            files[f'pv-{i}.yaml'] = pvs.render(
                manifest, address, vnf_instance_id
            )
        self._kubectl(master).apply(files, self.changes)

    def run(
        self,
        hook: str,
        server: StorageServer | None,
        clients: list[nodes.VmNode],
        master: nodes.VmNode,
        manifests: list[pvs.Manifest],
        info: dict[str, Any] | None,
        vnf_instance_id: str,
    ) -> None:
        """The server and the PVs (when ``server``), the NFS client on
        ``clients``; logs how many things changed."""
        try:
            if server is not None:
                self.server(server)
            self.clients(clients)
            if server is not None:
                self.register(master, manifests, info, vnf_instance_id)
        finally:
            LOG.info(
                '%s of VNF instance %s: the storage set-up changed %d '
                'things on the VMs',
                hook,
                vnf_instance_id,
                len(self.changes),
            )

    def release(
        self, master: nodes.VmNode, manifests: list[pvs.Manifest]
    ) -> list[str]:
        """Delete the PVs unless one is Bound; the Bound ones (nothing
        deleted) or [] (all deleted)."""
        names = [n for m in manifests for n in m.names()]
        if not names:
            return []
        kubectl = self._kubectl(master)
        in_use = pvs.bound(kubectl.get(names))
        if not in_use:
            kubectl.delete(names)
        return in_use


def masters(cluster: list[nodes.VmNode]) -> list[nodes.VmNode]:
    """The master VMs, the first one first."""
    return [n for n in cluster if n.role == nodes.MASTER]
