"""Periodic sync: follow Pods that Kubernetes replaced by itself.

A Deployment's controller replaces a Pod that died or was evicted by the
cluster; vnfm did not do it, so vnfcResourceInfo still names the old Pod.
``sync_vnfc_resource_info`` lists the live Pods of each VDU workload (by
owner references) and returns the vnfcResourceInfo with the same VNFC ids
and the new Pod names.

The caller must only run it for an instance with NO operation in progress
(an LCM op changes the Pods and writes vnfcResourceInfo itself); that check,
and persisting the result with a compare-and-set, belong to the conductor.
"""

from __future__ import annotations

from typing import Any

from vnfm.clients import kubernetes as k8s
from vnfm.drivers.infra import vnfcs as vnfc_views
from vnfm.drivers.infra.kubernetes import common
from vnfm.drivers.infra.kubernetes import vnfcs

Obj = dict[str, Any]


def sync_vnfc_resource_info(
    vim_id: str, vim: Obj, instance_id: str, instantiated_vnf_info: Obj
) -> list[Obj]:
    """The instance's vnfcResourceInfo as the cluster has it now (ids kept)."""
    workloads = common.vdu_workloads(instantiated_vnf_info)
    old = instantiated_vnf_info.get('vnfcResourceInfo') or []
    if not workloads:
        return list(old)
    with k8s.KubeClient(vim) as kube:
        pods = k8s.list_pods(
            kube, list(workloads.values()), common.selector(instance_id)
        )
    kinds = {v: w['kind'] for v, w in workloads.items()}
    return vnfcs.build(
        instance_id, old, common.pod_names(pods, workloads), kinds, vim_id
    )


def synced_info(
    vim_id: str, vim: Obj, instance_id: str, instantiated_vnf_info: Obj
) -> Obj | None:
    """instantiatedVnfInfo following replaced Pods; None if nothing changed.

    A VDU whose live Pod count differs from its stored VNFC count is left
    as stored: its controller is still replacing a Pod (the old one is
    terminating, the new one not created yet) or someone scaled it outside
    vnfm; the next round looks again.
    """
    old = instantiated_vnf_info.get('vnfcResourceInfo') or []
    synced = sync_vnfc_resource_info(
        vim_id, vim, instance_id, instantiated_vnf_info
    )
    new: list[Obj] = []
    for vdu_id in _vdu_order(old, synced):
        before = [e for e in old if e.get('vduId') == vdu_id]
        after = [e for e in synced if e.get('vduId') == vdu_id]
        new += after if len(after) == len(before) else before
    if not changed(old, new):
        return None
    # Equal counts per VDU: every VNFC keeps its id, so vnfcInfo stands.
    return dict(instantiated_vnf_info, vnfcResourceInfo=new)


def _vdu_order(*entries: list[Obj]) -> list[str]:
    seen: dict[str, None] = {}
    for e in (e for group in entries for e in group):
        seen.setdefault(e['vduId'], None)
    return list(seen)


def changed(old: list[Obj], new: list[Obj]) -> bool:
    """Tell whether a sync result differs from what is stored."""
    return bool(vnfc_views.affected(old, new)['affectedVnfcs'])


def vim_vnfcs(
    vim: Obj, instance_id: str, instantiated_vnf_info: Obj, vdu_ids: set[str]
) -> dict[str, list[str]]:
    """VDU id -> the names of the live Pods of its workload."""
    workloads = {
        v: w
        for v, w in common.vdu_workloads(instantiated_vnf_info).items()
        if v in vdu_ids
    }
    if not workloads:
        return {}
    with k8s.KubeClient(vim) as kube:
        pods = k8s.list_pods(
            kube, list(workloads.values()), common.selector(instance_id)
        )
    return common.pod_names(pods, workloads)
