"""Helpers shared by the Kubernetes driver's operations."""

from __future__ import annotations

import time
from typing import Any

from vnfm.clients import kubernetes as k8s
from vnfm.common import exceptions
from vnfm.conf import CONF
from vnfm.drivers import scaling
from vnfm.drivers.infra import base
from vnfm.drivers.infra import vnfcs as vnfc_views
from vnfm.drivers.infra.kubernetes import resources

Obj = dict[str, Any]


def kube_for(ctx: base.InfraContext) -> tuple[str, k8s.KubeClient]:
    """(vimConnectionId, client) of the step's VIM."""
    vim_id, vim = ctx.vim_connection()
    return vim_id, k8s.KubeClient(vim)


def selector(instance_id: str) -> str:
    """Label selector of every object of an instance."""
    return f'{k8s.INSTANCE_LABEL}={instance_id}'


def ready_deadline(ctx: base.InfraContext) -> float:
    """End of a readiness wait: config timeout or the op's deadline."""
    ctx.remaining()
    return min(ctx.deadline, time.monotonic() + CONF.kubernetes.ready_timeout)


def delete_deadline(ctx: base.InfraContext, grace: int = 0) -> float:
    """When waiting for deletion must end."""
    ctx.remaining()
    return min(
        ctx.deadline, time.monotonic() + CONF.kubernetes.delete_timeout + grace
    )


def info_of(ctx: base.InfraContext) -> Obj:
    """The instance's instantiatedVnfInfo (a copy)."""
    return dict(ctx.vnf_instance.get('instantiatedVnfInfo') or {})


def vdu_workloads(info: Obj) -> dict[str, Obj]:
    """VDU id -> minimal workload object, from instantiatedVnfInfo.metadata."""
    return {
        v: resources.as_object(r)
        for v, r in ((info.get('metadata') or {}).get('vdus') or {}).items()
    }


def pod_names(
    pods_by_key: dict[tuple, list[Obj]], workloads: dict[str, Obj]
) -> dict[str, list[str]]:
    """VDU id -> names of its live Pods."""
    out = {}
    for vdu_id, w in workloads.items():
        key = (
            w['kind'],
            w['metadata'].get('namespace') or '',
            w['metadata']['name'],
        )
        out[vdu_id] = [p['metadata']['name'] for p in pods_by_key.get(key, [])]
    return out


def metadata(deployed: resources.Deployed) -> Obj:
    """instantiatedVnfInfo.metadata: what was deployed."""
    return {
        'namespace': deployed.namespace,
        resources.DEF_FILES: list(deployed.def_files),
        'resources': deployed.refs(),
        'vdus': {v: resources.ref_of(o) for v, o in deployed.vdus.items()},
    }


def vnf_info(
    flavour_id: str,
    flavour: Obj,
    levels: dict[str, int],
    vnfc_resources: list[Obj],
    meta: Obj,
) -> Obj:
    """An instantiatedVnfInfo."""
    return {
        'flavourId': flavour_id,
        'vnfState': 'STARTED',
        **scaling.scale_status(flavour, levels),
        'vnfcResourceInfo': vnfc_resources,
        'vnfcInfo': vnfc_views.vnfc_info(vnfc_resources),
        'metadata': meta,
    }


def levels_of(info: Obj) -> dict[str, int]:
    """Current aspect levels from scaleStatus."""
    return {
        s['aspectId']: int(s['scaleLevel'])
        for s in info.get('scaleStatus') or []
    }


def apply_all(
    kube: k8s.KubeClient, objs: list[Obj], instance_id: str, work: Obj
) -> list[Obj]:
    """Apply objects in order, recording created ones in ``work['created']``.

    A failure raises PartialFailure carrying ``work``, so rollback finds them.
    """
    created = work.setdefault('created', [])
    applied = []
    for obj in objs:
        try:
            live, new = k8s.apply(kube, obj, instance_id)
        except k8s.KubernetesError as e:
            if not created:  # nothing to clean up: keep the precise error
                raise
            raise base.PartialFailure(e.detail, work) from None
        if new and resources.ref_of(obj) not in created:
            created.append(resources.ref_of(obj))
        applied.append(live)
    return applied


def wait_ready(
    ctx: base.InfraContext,
    kube: k8s.KubeClient,
    workloads: list[Obj],
    instance_id: str,
    work: Obj,
    absent: list[str] | None = None,
    forced_rollback: bool = False,
) -> dict[tuple, list[Obj]]:
    """wait_ready that raises PartialFailure (with work) on failure;
    ``absent``: uids of Pods that must be gone; ``forced_rollback``: the
    templates were just reverted (k8s.ForcedRollback)."""
    try:
        return k8s.wait_ready(
            kube,
            workloads,
            selector(instance_id),
            ready_deadline(ctx),
            absent or [],
            forced_rollback,
        )
    except (
        exceptions.OperationFailed
    ) as e:  # KubernetesError, DeadlineExceeded
        raise base.PartialFailure(e.detail, work) from None
