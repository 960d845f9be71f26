"""The ``kubernetes_cluster`` MgmtDriver (seed 002): Kubernetes on the
VNF's VMs over SSH, the cluster registered as a Kubernetes VIM.

Named by a VNFD hook artifact ``type: vnfm.artifacts.BuiltinMgmtDriver``,
``file: kubernetes_cluster``. Parameters: ``additionalParams.
k8s_cluster_installation_param`` of the instantiate request (later
operations use those of the instantiation unless their own request gives
them).

- ``instantiate_end``: install (``install``), then register the cluster
  as a VIM (an id derived from the instance's, so a retry registers it
  once) and record it in the instance's vimConnectionInfo under
  ``kubernetes_cluster``, marked as a VIM the instance provides.
- ``terminate_start``: refused while other instances use that VIM;
  ``terminate_end``: the VIM and its vimConnectionInfo entry deleted.
- ``scale_start``: a scale in of the masters refused; the Nodes of the
  workers a scale in removes cordoned, drained and deleted (``scalein``).
- ``scale_end``: new VMs joined (scale out); the Nodes of VMs that are gone
  deleted and their pins dropped (scale in). Its rollback deletes the
  Nodes of the VMs a failed scale out had added.
- ``heal_start``/``heal_end`` of workers: Node drained and deleted, then
  the new VM (new host key pinned) joined. A heal of the master of a
  single-master cluster, or of the whole instance, builds the cluster
  again (the VMs that stay are reset first) and updates the VIM: that is
  disruptive, the workloads of CNFs on the cluster are lost (heal or
  instantiate them again). Heal of a master of an HA cluster is refused.

With ``storage_server`` (seed 004, ``storage``): ``instantiate_end`` and
a whole-instance or master ``heal_end`` also set up the storage VM's
volumes and NFS server, the NFS client on every master and worker, and
register the PVs of ``pv_registration_params``; ``scale_end`` and the heal
of workers install the NFS client on the new VMs; a scale of the storage
server's VDU is refused; a heal of the storage VNFC is refused while one of
the PVs is Bound (``heal_start`` deletes them otherwise) and ``heal_end``
sets the new VM up on the same volume and registers the PVs with its
address.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from vnfm.clients import kubernetes as k8s
from vnfm.clients import outbound
from vnfm.common import exceptions
from vnfm.drivers.mgmt import base
from vnfm.drivers.mgmt.kubernetes_cluster import census
from vnfm.drivers.mgmt.kubernetes_cluster import drain
from vnfm.drivers.mgmt.kubernetes_cluster import hostkeys
from vnfm.drivers.mgmt.kubernetes_cluster import install
from vnfm.drivers.mgmt.kubernetes_cluster import nodes
from vnfm.drivers.mgmt.kubernetes_cluster import pvs
from vnfm.drivers.mgmt.kubernetes_cluster import scalein
from vnfm.drivers.mgmt.kubernetes_cluster import sessions
from vnfm.drivers.mgmt.kubernetes_cluster import storage
from vnfm.drivers.mgmt.kubernetes_cluster import vim
from vnfm.objects import k8s_cluster

_VIM_NAMESPACE = uuid.UUID('6f1d3c2e-4b1a-5e7f-9c0d-2a8b7e6f5d41')
Work = Callable[[install.Installer], Any]


def vim_id_of(vnf_instance_id: str) -> str:
    """The id of the VIM an instance's cluster is registered as."""
    return str(uuid.uuid5(_VIM_NAMESPACE, vnf_instance_id))


def cluster_params(ctx: base.HookContext) -> k8s_cluster.ClusterParams:
    """The parameters of the request, else of the instantiation;
    OperationFailed naming the parameter when they are wrong."""
    given = ctx.request.get('additionalParams') or {}
    if k8s_cluster.PARAM not in given and ctx.operation != 'INSTANTIATE':
        given = ctx.instantiated_with().get('additionalParams') or {}
    return k8s_cluster.parse(given, exceptions.OperationFailed)


class KubernetesClusterDriver(base.MgmtDriver):
    """Builds, registers, scales, heals and unregisters the cluster."""

    name = k8s_cluster.DRIVER

    def __init__(
        self,
        port: int = 22,
        policy: outbound.Policy | None = None,
        kube_client: Callable[[dict], k8s.KubeClient] = k8s.KubeClient,
        kubectl: str = 'kubectl',
        kubeconfig: str = pvs.ADMIN_KUBECONFIG,
    ) -> None:
        self.port = port
        self.policy = policy
        self.kube_client = kube_client
        #: How PVs are registered on a master (kubectl as root there).
        self.kubectl = kubectl
        self.kubeconfig = kubeconfig

    # -- helpers -------------------------------------------------------------

    def _install(
        self,
        ctx: base.HookContext,
        params: k8s_cluster.ClusterParams,
        pins: hostkeys.Pins,
        work: Work,
    ) -> Any:
        """Run ``work`` with an Installer over this hook's sessions."""
        script = install.read_script(ctx.package, params)
        with self._sessions(ctx, params, pins) as vms:
            installer = install.Installer(
                params, vms, script, ctx.work, ctx.save_work, ctx.remaining
            )
            try:
                return work(installer)
            finally:
                installer.close()

    def _sessions(
        self,
        ctx: base.HookContext,
        params: k8s_cluster.ClusterParams,
        pins: hostkeys.Pins,
    ) -> sessions.Sessions:
        return sessions.Sessions(
            params,
            pins,
            ctx.work,
            ctx.save_work,
            self.policy or outbound.configured(),
            sessions.timeouts_within(ctx.remaining()),
            port=self.port,
        )

    def _storage(
        self,
        ctx: base.HookContext,
        params: k8s_cluster.ClusterParams,
        pins: hostkeys.Pins,
        work: Callable[[storage.Setup], Any],
    ) -> Any:
        """Run ``work`` with a storage Setup over this hook's sessions."""
        with self._sessions(ctx, params, pins) as vms:
            return work(
                storage.Setup(
                    params, vms, ctx.remaining, self.kubectl, self.kubeconfig
                )
            )

    def _set_up_storage(
        self,
        ctx: base.HookContext,
        params: k8s_cluster.ClusterParams,
        pins: hostkeys.Pins,
        manifests: list[pvs.Manifest],
        clients: list[nodes.VmNode],
        server: bool = True,
    ) -> None:
        """The storage server (when ``server``), the NFS client on
        ``clients``, the PVs (when ``server``)."""
        if params.storage is None:
            return
        info = ctx.vnf_instance.get('instantiatedVnfInfo')
        found = storage.find_server(info, params) if server else None
        master = storage.masters(nodes.find(info, params))[0]
        self._storage(
            ctx,
            params,
            pins,
            lambda setup: setup.run(
                ctx.hook,
                found,
                clients,
                master,
                manifests,
                info,
                ctx.vnf_instance['id'],
            ),
        )

    def _kube(self, ctx: base.HookContext) -> k8s.KubeClient:
        entry = ctx.vim_connection_info.get(vim.CONNECTION_KEY)
        if entry is None:
            raise exceptions.OperationFailed(
                f'{ctx.hook}: the instance has no vimConnectionInfo '
                f'{vim.CONNECTION_KEY} (its cluster was never registered).'
            )
        return self.kube_client(entry)

    def _census(
        self,
        ctx: base.HookContext,
        cluster: list[nodes.VmNode],
        manifests: list[pvs.Manifest],
        access: vim.ClusterAccess | None = None,
    ) -> None:
        """ClusterMismatch unless the cluster's Nodes are the instance's
        VMs and the PVs of ``manifests`` exist (``access``: of a cluster
        not registered yet)."""
        kube = (
            self._kube(ctx)
            if access is None
            else self.kube_client(vim.connection_info(access, ''))
        )
        with kube:
            census.check_nodes(kube, cluster, ctx.hook)
            census.check_pvs(
                kube, [n for m in manifests for n in m.names()], ctx.hook
            )

    @staticmethod
    def _registered(
        ctx: base.HookContext,
        params: k8s_cluster.ClusterParams,
        access: vim.ClusterAccess,
        pins: hostkeys.Pins,
    ) -> base.HookResult:
        instance_id = ctx.vnf_instance['id']
        vim_id = vim_id_of(instance_id)
        body = vim.registration(
            access, params.vim_name_for(instance_id), instance_id
        )
        changes = pins.changes()
        changes['vimConnectionInfo'] = {
            vim.CONNECTION_KEY: vim.connection_info(access, vim_id)
        }
        changes['vims'] = {'register': [dict(body, id=vim_id)]}
        return base.HookResult(changes)

    # -- instantiate / terminate ---------------------------------------------

    def instantiate_end(self, ctx: base.HookContext) -> base.HookResult:
        """Install Kubernetes on the VMs and register the cluster."""
        params = cluster_params(ctx)
        info = ctx.vnf_instance.get('instantiatedVnfInfo')
        manifests = storage.checked(ctx, params)
        cluster = nodes.find(info, params)
        storage.find_server(info, params)
        endpoint = nodes.cluster_address(info, params)
        pins = hostkeys.Pins.of(ctx.vnf_instance, ctx.work)
        access = self._install(
            ctx, params, pins, lambda i: i.install(cluster, endpoint)
        )
        self._set_up_storage(ctx, params, pins, manifests, cluster)
        self._census(ctx, cluster, manifests, access)
        return self._registered(ctx, params, access, pins)

    def terminate_start(self, ctx: base.HookContext) -> base.HookResult:
        """Refuse while other VNF instances use the cluster's VIM."""
        vim_id = vim_id_of(ctx.vnf_instance['id'])
        users = ctx.instances_using(vim_id)
        if users:
            named = ', '.join(
                f'{u["id"]} ({u.get("vnfInstanceName") or "no name"})'
                for u in users
            )
            raise exceptions.OperationFailed(
                f'terminate_start: VNF instances {named} still use VIM '
                f'{vim_id} of this cluster; terminate them first, then '
                'retry this operation.'
            )
        return base.HookResult()

    def terminate_end(self, ctx: base.HookContext) -> base.HookResult:
        """Unregister the cluster's VIM and forget its VMs' host keys."""
        return base.HookResult(
            {
                'vims': {'delete': [vim_id_of(ctx.vnf_instance['id'])]},
                'vimConnectionInfo': {vim.CONNECTION_KEY: None},
                'metadata': {hostkeys.METADATA_KEY: None},
            }
        )

    # -- scale -------------------------------------------------------------

    def scale_start(self, ctx: base.HookContext) -> base.HookResult:
        """Refuse a scale in of the masters (their etcd members would be
        lost with the VMs); nothing to do before other scalings."""
        params = cluster_params(ctx)
        aspect = ctx.request.get('aspectId')
        vdu = storage.storage_vdu_aspect(
            params, ctx.vnfd, storage.flavour_id(ctx), aspect
        )
        if vdu is not None:
            raise exceptions.OperationFailed(
                f'scale_start: aspect {aspect} scales VDU {vdu}, the storage '
                'server (storage_server/ssh_cp_name); its NFS and volumes '
                'are one VM and are not scaled. Scale the workers.'
            )
        if ctx.request.get('type') == 'SCALE_IN' and aspect == (
            params.master.aspect_id
        ):
            raise exceptions.OperationFailed(
                f'scale_start: aspect {aspect} scales the masters '
                f'(master_node/aspect_id); the {k8s_cluster.DRIVER} '
                'MgmtDriver does not remove masters (their etcd members '
                'would be lost). Scale in the workers only.'
            )
        if ctx.request.get('type') == 'SCALE_IN':
            info = ctx.vnf_instance.get('instantiatedVnfInfo')
            cluster = nodes.find(info, params)
            self._remove_nodes(ctx, scalein.leaving(ctx, cluster))
        return base.HookResult()

    def scale_end(self, ctx: base.HookContext) -> base.HookResult:
        """Join the VMs a scale out added; after a scale in, delete the
        Nodes no VM of the instance backs and drop the removed VMs' pins."""
        params = cluster_params(ctx)
        info = ctx.vnf_instance.get('instantiatedVnfInfo')
        cluster = nodes.find(info, params)
        pins = hostkeys.Pins.of(ctx.vnf_instance, ctx.work)
        gone = _forget_gone(pins, cluster, storage.server_vm(info, params))
        if gone:
            with self._kube(ctx) as kube:
                drain.delete_stale_nodes(
                    kube, {n.node_address for n in cluster}
                )
        new = [n for n in cluster if not pins.known_keys(n.resource_id)]
        if new:
            self._join(ctx, params, pins, cluster, new)
            self._set_up_storage(ctx, params, pins, [], new, server=False)
        self._census(ctx, cluster, [])
        return base.HookResult(pins.changes())

    def rollback_scale_end(self, ctx: base.HookContext) -> base.HookResult:
        """After the VMs of a failed scale out were removed: delete the
        Nodes they had joined as (no VM of the instance backs them)."""
        params = cluster_params(ctx)
        info = ctx.vnf_instance.get('instantiatedVnfInfo')
        cluster = nodes.find(info, params)
        with self._kube(ctx) as kube:
            drain.delete_stale_nodes(kube, {n.node_address for n in cluster})
        return base.HookResult()

    def _join(
        self,
        ctx: base.HookContext,
        params: k8s_cluster.ClusterParams,
        pins: hostkeys.Pins,
        cluster: list[nodes.VmNode],
        joining: list[nodes.VmNode],
    ) -> None:
        info = ctx.vnf_instance.get('instantiatedVnfInfo')
        endpoint = nodes.cluster_address(info, params)
        master = next(n for n in cluster if n.role == nodes.MASTER)

        def join(installer: install.Installer) -> None:
            for node in joining:
                installer.run(node, 'prepare', endpoint)
            installer.join(master, joining, endpoint)

        self._install(ctx, params, pins, join)

    def _remove_nodes(
        self, ctx: base.HookContext, leaving: list[nodes.VmNode]
    ) -> None:
        """Cordon, drain and delete the Nodes of VMs about to go."""
        if not leaving:
            return
        with self._kube(ctx) as kube:
            for node in leaving:
                drain.remove_node(
                    kube, node.node_address, ctx.deadline, ctx.show_waiting
                )
        ctx.show_waiting(None)

    # -- heal ----------------------------------------------------------------

    def heal_start(self, ctx: base.HookContext) -> base.HookResult:
        """Drain and delete the Nodes of the worker VMs to heal; a heal of
        the master of a single-master cluster (rebuilt in heal_end) has
        nothing to drain. A heal of the storage VNFC first checks and
        deletes its PVs."""
        params = cluster_params(ctx)
        info = ctx.vnf_instance.get('instantiatedVnfInfo')
        cluster = nodes.find(info, params)
        healed = _healed(ctx, cluster)
        masters = [n.vnfc_id for n in healed if n.role == nodes.MASTER]
        if masters and len(_masters(cluster)) > 1:
            raise exceptions.OperationFailed(
                f'heal_start: VNFC {", ".join(masters)} is a master of a '
                f'cluster with {len(_masters(cluster))} masters; the '
                f'{k8s_cluster.DRIVER} MgmtDriver heals workers, the master '
                'of a single-master cluster, or the whole instance (a heal '
                'request naming no VNFC).'
            )
        self._release_pvs(ctx, params)
        if not masters:
            self._remove_nodes(ctx, healed)
        return base.HookResult()

    def heal_end(self, ctx: base.HookContext) -> base.HookResult:
        """Join the healed workers (their new host keys pinned); after a
        heal of the master or of the whole instance, rebuild the cluster
        and update the VIM."""
        params = cluster_params(ctx)
        info = ctx.vnf_instance.get('instantiatedVnfInfo')
        cluster = nodes.find(info, params)
        pins = hostkeys.Pins.of(ctx.vnf_instance, ctx.work)
        server = storage.server_vm(info, params)
        _forget_gone(pins, cluster, server)
        healed = _healed(ctx, cluster) if _named_vnfcs(ctx) else cluster
        server_healed = server is not None and (
            not _named_vnfcs(ctx) or server.vnfc_id in _named_ids(ctx)
        )
        for node in healed + ([server] if server and server_healed else []):
            if node.resource_id not in pins.learned:
                pins.forget(node.resource_id)
        if _named_vnfcs(ctx) and not _masters(healed):
            manifests = storage.checked(ctx, params) if server_healed else []
            if healed:
                self._join(ctx, params, pins, cluster, healed)
            self._set_up_storage(
                ctx, params, pins, manifests, healed, server=server_healed
            )
            self._census(ctx, cluster, manifests)
            return base.HookResult(pins.changes())
        # The whole instance, or the master: the cluster is built again
        # (the VMs that stay leave the old one first), its VIM updated and
        # the PVs registered in it again.
        manifests = storage.checked(ctx, params)
        endpoint = nodes.cluster_address(info, params)
        kept = [n for n in cluster if n not in healed]

        def rebuild(installer: install.Installer) -> vim.ClusterAccess:
            for node in kept:
                installer.run(node, 'reset', endpoint)
            return installer.install(cluster, endpoint)

        access = self._install(ctx, params, pins, rebuild)
        self._set_up_storage(ctx, params, pins, manifests, cluster)
        self._census(ctx, cluster, manifests, access)
        return self._registered(ctx, params, access, pins)

    def _release_pvs(
        self, ctx: base.HookContext, params: k8s_cluster.ClusterParams
    ) -> None:
        """Before a heal of the storage VNFC: fail naming the Bound PVs
        (nothing changed), else delete the PVs."""
        info = ctx.vnf_instance.get('instantiatedVnfInfo')
        server = storage.server_vm(info, params)
        if server is None or server.vnfc_id not in _named_ids(ctx):
            return
        manifests = storage.checked(ctx, params)
        master = storage.masters(nodes.find(info, params))[0]
        pins = hostkeys.Pins.of(ctx.vnf_instance, ctx.work)
        in_use = self._storage(
            ctx, params, pins, lambda s: s.release(master, manifests)
        )
        if in_use:
            raise exceptions.OperationFailed(
                f'heal_start: the storage server VNFC {server.vnfc_id} serves '
                f'PersistentVolumes in use: {", ".join(in_use)}. Delete '
                'those claims (or the Pods using them) first, then retry; '
                'nothing was changed.'
            )


def _masters(vms: list[nodes.VmNode]) -> list[nodes.VmNode]:
    return [n for n in vms if n.role == nodes.MASTER]


def _forget_gone(
    pins: hostkeys.Pins,
    cluster: list[nodes.VmNode],
    server: nodes.VmNode | None = None,
) -> bool:
    """Drop the pins of VMs the instance no longer has; whether any."""
    present = {n.resource_id for n in cluster}
    if server is not None:
        present.add(server.resource_id)
    gone = [r for r in pins.current if r not in present]
    for resource_id in gone:
        pins.forget(resource_id)
    return bool(gone)


def _named_vnfcs(ctx: base.HookContext) -> list[str]:
    return list(ctx.request.get('vnfcInstanceId') or [])


def _named_ids(ctx: base.HookContext) -> set[str]:
    """The vnfcInfo and vnfcResourceInfo ids a heal request names."""
    named = set(_named_vnfcs(ctx))
    info = ctx.vnf_instance.get('instantiatedVnfInfo') or {}
    for entry in info.get('vnfcInfo') or []:
        if entry.get('id') in named and entry.get('vnfcResourceInfoId'):
            named.add(entry['vnfcResourceInfoId'])
    return named


def _healed(
    ctx: base.HookContext, cluster: list[nodes.VmNode]
) -> list[nodes.VmNode]:
    """The cluster VMs a heal request names (by vnfcInfo or
    vnfcResourceInfo id)."""
    named = _named_ids(ctx)
    return [n for n in cluster if n.vnfc_id in named]
