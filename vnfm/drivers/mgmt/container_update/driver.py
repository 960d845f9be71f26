"""The container_update MgmtDriver (seeds 001 and 003).

Named by a VNFD hook artifact ``type: vnfm.artifacts.BuiltinMgmtDriver``,
``file: container_update``, on ``modify_information_end``: Modify VNF
Information (PATCH of a VNF instance) with the vnfdId of a new package.
It reads the live objects in bulk (one LIST per kind in the instance's
namespace), plans (``planner``), records what it overwrites (``snapshot``),
replaces the changed ConfigMaps/Secrets and restarts the Pods that need it
(``restart``), and returns the new vnfcResourceInfo (VNFC ids kept,
resourceIds following the Pods), resourceChanges.affectedVnfcs, and in the
op occurrence's ``changedInfo.metadata.vnfm_container_update`` the objects
replaced and workloads restarted.

**Disruption**: Pods are evicted, so PodDisruptionBudgets hold; an
eviction still refused after ``[kubernetes] eviction_timeout`` fails the
hook naming the Pod and the budget, and while it waits the op occurrence
shows it in ``warnings``. ``"metadata": {"vnfm_disruption_allowed": true}``
in the PATCH body accepts the disruption: Pods are deleted, not evicted.

**Rollback** restores the recorded contents, images and annotations and
removes the Pods made from the failed update's templates that are not
Ready (a StatefulSet does not replace them by itself), so every workload
returns to its previous template with all its Pods Ready.

**Dry run**: ``"metadata": {"vnfm_dry_run": true}`` in the PATCH body. The
hook then only plans and reports, in ``changedInfo.metadata.
vnfm_container_update`` (with ``dryRun: true``), which objects would be
replaced and which Pods would restart; the LCM changes nothing on the
instance (vnfdId included).
"""

from __future__ import annotations

import time
from typing import Any

from vnfm.clients import kubernetes as k8s
from vnfm.conf import CONF
from vnfm.drivers.mgmt import base
from vnfm.drivers.mgmt.container_update import manifests
from vnfm.drivers.mgmt.container_update import planner
from vnfm.drivers.mgmt.container_update import references
from vnfm.drivers.mgmt.container_update import restart
from vnfm.drivers.mgmt.container_update import snapshot
from vnfm.drivers.mgmt.container_update import vnfcs
from vnfm.drivers.package_files import PackageFiles

Obj = dict[str, Any]
REPORT = 'vnfm_container_update'
_ALWAYS_LISTED = ('Pod', 'ReplicaSet')


def vim_of(ctx: base.HookContext) -> Obj:
    """The Kubernetes VIM the instance's VNFCs run on."""
    info = ctx.vnf_instance.get('instantiatedVnfInfo') or {}
    for entry in info.get('vnfcResourceInfo') or []:
        vim_id = (entry.get('computeResource') or {}).get('vimConnectionId')
        if vim_id in ctx.vim_connection_info:
            return ctx.vim_connection_info[vim_id]
    for vim in ctx.vim_connection_info.values():
        if vim.get('vimType') == k8s.VIM_TYPE:
            return vim
    raise manifests.BadUpdate(
        f'{ctx.hook}: the VNF instance has no Kubernetes '
        f'vimConnectionInfo ({k8s.VIM_TYPE}).'
    )


def read_live(
    kube: k8s.KubeClient, namespace: str, instance_id: str, kinds: set[str]
) -> list[Obj]:
    """The instance's objects of ``kinds``: one LIST per kind, by label."""
    selector = f'{k8s.INSTANCE_LABEL}={instance_id}'
    out: list[Obj] = []
    for kind in sorted(kinds | set(_ALWAYS_LISTED)):
        out += kube.list(restart.api_version(kind), kind, namespace, selector)[
            0
        ]
    return out


def _kinds(objs: dict[manifests.Key, Obj]) -> set[str]:
    wanted = set(references.CONFIG_KINDS) | set(references.WORKLOAD_KINDS)
    return {k[0] for k in objs} & wanted


class _Update:
    """The inputs of one update, read from the hook context."""

    def __init__(
        self, ctx: base.HookContext, extra_paths: list[str] | None = None
    ) -> None:
        self.ctx = ctx
        self.instance_id = ctx.vnf_instance['id']
        self.info = ctx.vnf_instance.get('instantiatedVnfInfo') or {}
        self.namespace, self.files = manifests.def_files(self.info)
        recorded = (self.info.get('metadata') or {}).get(
            manifests.PATHS_PARAM
        ) or []
        source: PackageFiles = ctx.source_package or ctx.package
        self.current = manifests.objects(
            source, self.files, list(recorded), self.namespace, strict=True
        )
        self.paths = (
            manifests.config_paths(ctx.request)
            if extra_paths is None
            else extra_paths
        )
        self.new = manifests.objects(
            ctx.package, self.files, self.paths, self.namespace
        )
        self.vim = vim_of(ctx)
        self.deadline = min(
            ctx.deadline,
            time.monotonic() + CONF.mgmt_driver.container_update_timeout,
        )

    def execute(
        self, kube: k8s.KubeClient, plan: planner.Plan, rollback: bool = False
    ) -> dict[manifests.Key, list[str]]:
        """Replace configs, restart workloads; new Pod names by key."""
        for change in plan.configs:
            self.ctx.remaining()
            restart.apply_config(kube, change, self.instance_id, self.deadline)
        runner = restart.Restarter(
            kube,
            self.instance_id,
            self.deadline,
            rollback=rollback,
            disruption_allowed=base.is_disruption_allowed(self.ctx.request),
            show_waiting=self.ctx.show_waiting,
        )
        return restart.pod_names(runner.run(plan))

    def changes(
        self,
        plan: planner.Plan,
        pods: dict[manifests.Key, list[str]],
        requests: int,
    ) -> Obj:
        """HookResult.changes of a finished update."""
        resources, affected = vnfcs.follow(self.info, plan.workloads, pods)
        info: Obj = {
            'vnfcResourceInfo': resources,
            'vnfcInfo': vnfcs.vnfc_info(
                self.info.get('vnfcInfo') or [], resources
            ),
        }
        if self.paths:
            info['metadata'] = {manifests.PATHS_PARAM: self.paths}
        out: Obj = {
            'instantiatedVnfInfo': info,
            'changedInfo': {
                'metadata': {
                    REPORT: {**plan.report(), 'kubernetesRequests': requests}
                }
            },
        }
        if affected:
            out['resourceChanges'] = {'affectedVnfcs': affected}
        return out


class ContainerUpdateDriver(base.MgmtDriver):
    """Updates a CNF's ConfigMaps, Secrets and images in place."""

    name = 'container_update'

    def modify_information_end(self, ctx: base.HookContext) -> base.HookResult:
        """Replace what changed, restart only the Pods that use it."""
        update = _Update(ctx)
        with k8s.KubeClient(update.vim) as kube:
            live = read_live(
                kube, update.namespace, update.instance_id, _kinds(update.new)
            )
            plan = planner.plan(update.current, update.new, live)
            if base.is_dry_run(ctx.request):
                return base.HookResult(
                    changes={
                        'changedInfo': {
                            'metadata': {
                                REPORT: {**plan.report(), 'dryRun': True}
                            }
                        }
                    }
                )
            if snapshot.record(ctx.work, plan):
                ctx.save_work()
            pods = update.execute(kube, plan)
            requests = kube.requests
        return base.HookResult(changes=update.changes(plan, pods, requests))

    def rollback_modify_information_end(
        self, ctx: base.HookContext
    ) -> base.HookResult:
        """Restore the recorded contents and images, restart what uses
        them."""
        if not snapshot.taken(ctx.work):
            return base.HookResult()
        update = _Update(ctx, extra_paths=[])
        restored = snapshot.restore(update.current, ctx.work)
        with k8s.KubeClient(update.vim) as kube:
            live = read_live(
                kube, update.namespace, update.instance_id, _kinds(restored)
            )
            plan = planner.plan(restored, restored, live)
            snapshot.restore_annotations(plan, ctx.work)
            pods = update.execute(kube, plan, rollback=True)
            requests = kube.requests
        changes = update.changes(plan, pods, requests)
        changes['changedInfo']['metadata'][REPORT]['rolledBack'] = True
        return base.HookResult(changes=changes)
