"""Heal: replace the Pods of chosen VNFCs (or all), keeping the VNFC ids.

Pods of controllers are removed by the eviction API, so PodDisruptionBudgets
hold (an eviction refused with 429 is retried until the deadline); the
controller creates the replacement. A bare Pod is deleted, and re-created
from the package's manifest once it is gone.
"""

from __future__ import annotations

from typing import Any

from vnfm.clients import kubernetes as k8s
from vnfm.conf import CONF
from vnfm.drivers import scaling
from vnfm.drivers.infra import base
from vnfm.drivers.infra import vnfcs as vnfc_views
from vnfm.drivers.infra.kubernetes import common
from vnfm.drivers.infra.kubernetes import resources
from vnfm.drivers.infra.kubernetes import vnfcs

Obj = dict[str, Any]


def heal(ctx: base.InfraContext) -> base.InfraResult:
    """Replace the Pods of the VNFCs; wait until workloads are ready."""
    info = common.info_of(ctx)
    instance_id = ctx.vnf_instance['id']
    chosen = base.heal_targets(
        info, list(ctx.request.get('vnfcInstanceId') or [])
    )
    workloads = common.vdu_workloads(info)
    vdu_ids = sorted({e['vduId'] for e in chosen})
    grace = CONF.kubernetes.graceful_termination_timeout
    # (Instantiation records it; 'default' as resources.place chooses.)
    namespace = (info.get('metadata') or {}).get('namespace') or 'default'
    work: Obj = dict(ctx.work)
    vim_id, kube = common.kube_for(ctx)
    with kube:
        deadline = common.ready_deadline(ctx)
        bare = [e for e in chosen if workloads[e['vduId']]['kind'] == 'Pod']
        absent = _evict(
            kube,
            [e for e in chosen if e not in bare],
            namespace,
            grace,
            deadline,
        )
        if bare:
            _recreate_bare(
                ctx, kube, info, [workloads[e['vduId']] for e in bare], grace
            )
        pods = common.wait_ready(
            ctx,
            kube,
            [workloads[v] for v in vdu_ids],
            instance_id,
            work,
            absent,
        )
        work['requests'] = kube.requests
    old = info.get('vnfcResourceInfo') or []
    names = common.pod_names(pods, {v: workloads[v] for v in vdu_ids})
    changed = vnfcs.build(
        instance_id,
        old,
        names,
        {v: workloads[v]['kind'] for v in vdu_ids},
        vim_id,
    )
    new = [e for e in old if e['vduId'] not in vdu_ids] + changed
    new_info = {
        **info,
        'vnfcResourceInfo': new,
        'vnfcInfo': vnfc_views.vnfc_info(new),
    }
    return base.InfraResult(
        instantiated_vnf_info=new_info,
        work=work,
        resource_changes=vnfc_views.affected(
            old, new, {e['id'] for e in chosen}
        ),
    )


def _evict(
    kube: k8s.KubeClient,
    entries: list[Obj],
    namespace: str,
    grace: int,
    deadline: float,
) -> list[str]:
    """Evict the Pods of vnfcResourceInfo entries; the evicted Pods' uids.

    The wait for replacements must know the old Pods by uid: a
    StatefulSet re-creates a Pod under the same name.
    """
    uids = []
    for e in entries:
        name = e['computeResource']['resourceId']
        pod = kube.get('v1', 'Pod', name, namespace)
        if pod is None:  # gone already: its controller replaces it
            continue
        kube.evict_until(name, namespace, grace, deadline)
        uids.append(pod['metadata']['uid'])
    return uids


def _recreate_bare(
    ctx: base.InfraContext,
    kube: k8s.KubeClient,
    info: Obj,
    pods: list[Obj],
    grace: int,
) -> None:
    """Delete bare Pods, wait until gone, create them again."""
    meta = info.get('metadata') or {}
    instance_id = ctx.vnf_instance['id']
    k8s.delete_and_wait(
        kube,
        pods,
        common.selector(instance_id),
        common.delete_deadline(ctx, grace),
        grace_period=grace,
    )
    flavour = scaling.flavour_of(ctx.vnfd, info.get('flavourId'))
    deployed = resources.prepare(
        kube,
        ctx.package,
        meta.get(resources.DEF_FILES) or [],
        meta.get('namespace'),
        flavour,
        instance_id,
        {},
    )
    wanted = {
        (p['metadata'].get('namespace'), p['metadata']['name']) for p in pods
    }
    manifests = [
        o
        for o in deployed.objects
        if o['kind'] == 'Pod'
        and (o['metadata'].get('namespace'), o['metadata']['name']) in wanted
    ]
    common.apply_all(kube, manifests, instance_id, {})
