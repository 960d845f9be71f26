"""Instantiate, terminate and the rollback of instantiate."""

from __future__ import annotations

from typing import Any

from vnfm.clients import kubernetes as k8s
from vnfm.conf import CONF
from vnfm.drivers.infra import base
from vnfm.drivers.infra.kubernetes import common, resources, scaling, vnfcs

Obj = dict[str, Any]


def instantiate(ctx: base.InfraContext) -> base.InfraResult:
    """Apply the manifests, wait for the VDU workloads, map VNFCs."""
    instance_id = ctx.vnf_instance['id']
    params = ctx.request.get('additionalParams') or {}
    flavour_id = ctx.flavour_id or ctx.request.get('flavourId')
    flavour = scaling.flavour_of(ctx.vnfd, flavour_id)
    level_id = ctx.request.get('instantiationLevelId')
    counts = scaling.initial_counts(flavour, level_id)
    scaling.check_bounds(flavour, counts)
    work: Obj = dict(ctx.work)
    vim_id, kube = common.kube_for(ctx)
    with kube:
        deployed = resources.prepare(
            kube,
            ctx.package,
            resources.def_files(ctx.request),
            params.get('namespace'),
            flavour,
            instance_id,
            counts,
        )
        work['resources'] = deployed.refs()
        common.apply_all(kube, deployed.objects, instance_id, work)
        pods = common.wait_ready(
            ctx, kube, list(deployed.vdus.values()), instance_id, work
        )
        work['requests'] = kube.requests
    kinds = {v: o['kind'] for v, o in deployed.vdus.items()}
    new = vnfcs.build(
        instance_id, [], common.pod_names(pods, deployed.vdus), kinds, vim_id
    )
    info = common.vnf_info(
        flavour_id,
        flavour,
        scaling.initial_levels(flavour, level_id),
        new,
        common.metadata(deployed),
    )
    return base.InfraResult(
        instantiated_vnf_info=info,
        resource_changes=vnfcs.affected([], new),
        work=work,
    )


def _grace(request: Obj) -> tuple[int, str]:
    """(gracePeriodSeconds, propagationPolicy) of a TerminateVnfRequest."""
    if request.get('terminationType') == 'FORCEFUL':
        return 0, 'Background'
    timeout = request.get('gracefulTerminationTimeout')
    grace = (
        CONF.kubernetes.graceful_termination_timeout
        if timeout is None
        else int(timeout)
    )
    return grace, 'Foreground'


def delete_refs(
    ctx: base.InfraContext,
    kube: k8s.KubeClient,
    refs: list[Obj],
    grace: int,
    propagation: str,
) -> list[Obj]:
    """Delete the instance's objects of ``refs``; wait until gone.

    Objects without the instance's label are not ours and are left alone.
    """
    instance_id = ctx.vnf_instance['id']
    mine = []
    for ref in refs:
        obj = resources.as_object(ref)
        live = kube.get(
            obj['apiVersion'], obj['kind'], ref['name'], ref.get('namespace')
        )
        if live is not None and k8s.owned_by(live, instance_id):
            mine.append(obj)
    deleted = k8s.delete_and_wait(
        kube,
        k8s.delete_order(mine),
        common.selector(instance_id),
        common.delete_deadline(ctx, grace),
        grace_period=grace,
        propagation=propagation,
    )
    if propagation == 'Background':
        _delete_pods_now(ctx, kube, mine)
    return deleted


def _delete_pods_now(
    ctx: base.InfraContext, kube: k8s.KubeClient, objs: list[Obj]
) -> None:
    """FORCEFUL: remove the instance's remaining Pods without grace.

    A deleted Deployment's ReplicaSets live on until the garbage collector
    gets to them, and until then they replace every Pod deleted here: they
    go first, and the wait covers them too.
    """
    sel = common.selector(ctx.vnf_instance['id'])
    namespaces = sorted(
        {o['metadata'].get('namespace') for o in objs} - {None}
    )
    deadline = common.delete_deadline(ctx)
    while True:  # until a list finds nothing (a Pod may appear meanwhile)
        left: list[Obj] = []
        for ns in namespaces:
            left += kube.list('apps/v1', 'ReplicaSet', ns, sel)[0]
            left += kube.list('v1', 'Pod', ns, sel)[0]
        if not left:
            return
        k8s.delete_and_wait(
            kube,
            left,
            sel,
            deadline,
            grace_period=0,
            propagation='Background',
        )


def terminate(ctx: base.InfraContext) -> base.InfraResult:
    """Delete every object the instance has (GRACEFUL or FORCEFUL)."""
    info = common.info_of(ctx)
    refs = (info.get('metadata') or {}).get('resources') or []
    grace, propagation = _grace(ctx.request)
    _, kube = common.kube_for(ctx)
    with kube:
        delete_refs(ctx, kube, refs, grace, propagation)
        requests = kube.requests
    old = info.get('vnfcResourceInfo') or []
    return base.InfraResult(
        resource_changes=vnfcs.affected(old, []), work={'requests': requests}
    )


def rollback_instantiate(ctx: base.InfraContext) -> base.InfraResult:
    """Delete what a failed instantiate created."""
    refs = list(ctx.work.get('resources') or [])
    if not refs:  # failed before recording: read the manifests again
        with common.kube_for(ctx)[1] as kube:
            try:
                deployed = resources.prepare(
                    kube,
                    ctx.package,
                    resources.def_files(ctx.request),
                    (ctx.request.get('additionalParams') or {}).get(
                        'namespace'
                    ),
                    scaling.flavour_of(ctx.vnfd, ctx.flavour_id),
                    ctx.vnf_instance['id'],
                    {},
                )
                refs = deployed.refs()
            except resources.BadManifests:
                refs = []
    created = ctx.work.get('created')
    if (
        created is not None
    ):  # only delete what this op created, never what pre-existed
        refs = [r for r in refs if r in created]
    with common.kube_for(ctx)[1] as kube:
        delete_refs(ctx, kube, refs, 0, 'Background')
    return base.InfraResult(work=dict(ctx.work, rolled_back=True))
