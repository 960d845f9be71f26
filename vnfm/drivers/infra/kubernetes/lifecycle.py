"""Instantiate, terminate and the rollback of instantiate.

Terminate (SOL003 TerminateVnfRequest) gives each Pod of the instance at
most the time the request allows to stop: ``gracefulTerminationTimeout``
(default ``[kubernetes] graceful_termination_timeout``) for GRACEFUL, none
for FORCEFUL, and never more than the Pod's own
terminationGracePeriodSeconds. It completes when every object of the
instance is gone, as watches report.
"""

from __future__ import annotations

import time
from typing import Any

from vnfm.clients import kubernetes as k8s
from vnfm.common import exceptions
from vnfm.conf import CONF
from vnfm.drivers import scaling
from vnfm.drivers.infra import base
from vnfm.drivers.infra import vnfcs as vnfc_views
from vnfm.drivers.infra.kubernetes import common
from vnfm.drivers.infra.kubernetes import resources
from vnfm.drivers.infra.kubernetes import vnfcs

Obj = dict[str, Any]


def instantiate(ctx: base.InfraContext) -> base.InfraResult:
    """Apply the manifests, wait for the VDU workloads, map VNFCs."""
    instance_id = ctx.vnf_instance['id']
    params = ctx.request.get('additionalParams') or {}
    flavour_id = ctx.flavour_id or ctx.request['flavourId']
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
        resource_changes=vnfc_views.affected([], new),
        work=work,
    )


def _grace(request: Obj) -> int:
    """Seconds each Pod of a TerminateVnfRequest may take to stop, at most.

    0 for FORCEFUL; for GRACEFUL ``gracefulTerminationTimeout``, or the
    configured default when the request gives none.
    """
    if request.get('terminationType') == 'FORCEFUL':
        return 0
    timeout = request.get('gracefulTerminationTimeout')
    if timeout is None:
        return CONF.kubernetes.graceful_termination_timeout
    return int(timeout)


def pod_grace(pod: Obj, grace: int) -> int:
    """gracePeriodSeconds to delete ``pod`` with: at most ``grace``.

    A Pod that asks for less (its terminationGracePeriodSeconds) keeps its
    own: the timeout bounds the wait, it does not lengthen a shutdown.
    """
    own = (pod.get('spec') or {}).get('terminationGracePeriodSeconds')
    return grace if own is None else min(grace, int(own))


def delete_refs(
    ctx: base.InfraContext,
    kube: k8s.KubeClient,
    refs: list[Obj],
    grace: int,
    propagation: str,
) -> None:
    """Delete the instance's objects of ``refs``; wait until all are gone.

    Objects without the instance's label are not ours and are left alone.
    With ``propagation`` Foreground the garbage collector deletes what the
    workloads own, their Pods with their own grace period (the stale
    workloads of a package change). Otherwise vnfm deletes the workloads
    and their Pods itself (see ``_delete_workloads``), each Pod with
    ``pod_grace(pod, grace)``; the other objects (ConfigMaps, Services,
    ...) go only once the workloads are gone, since stopping Pods may
    still use them. The deadline is ``delete_timeout`` + ``grace`` (or the
    op's, if sooner); an object still there then fails the step, named.
    """
    instance_id = ctx.vnf_instance['id']
    sel = common.selector(instance_id)
    mine = []
    for ref in refs:
        obj = resources.as_object(ref)
        live = kube.get(
            obj['apiVersion'], obj['kind'], ref['name'], ref.get('namespace')
        )
        if live is not None and k8s.owned_by(live, instance_id):
            mine.append(obj)
    deadline = common.delete_deadline(ctx, grace)
    if propagation == 'Foreground':
        k8s.delete_and_wait(
            kube, k8s.delete_order(mine), sel, deadline, grace, propagation
        )
        return
    workloads = [o for o in mine if o['kind'] in k8s.WORKLOAD_KINDS]
    _delete_workloads(kube, workloads, _dependents(refs), sel, grace, deadline)
    k8s.delete_and_wait(
        kube,
        k8s.delete_order([o for o in mine if o not in workloads]),
        sel,
        deadline,
        propagation='Background',
    )


# Controllers a GRACEFUL terminate deletes with propagation Orphan: they
# stop managing their Pods at once (a controller being deleted replaces
# none), and the garbage collector deletes none of what they own: vnfm
# does, so each Pod's first delete carries the request's grace period (a
# kubelet may keep the grace period of the first delete it saw).
# Orphaning costs the collector a request per Pod, at its client's
# rate (20/s by default): FORCEFUL, whose grace-0 delete removes a Pod at
# once whoever deleted it first, deletes in the Background, and so do
# CronJobs (the Jobs they make lack the instance's label: only the
# collector finds those).
_ORPHANING = frozenset(
    ('Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job')
)


def _dependents(refs: list[Obj]) -> list[tuple[str, str, str]]:
    """(namespace, apiVersion, kind) of what the workloads of ``refs``
    create: Pods, and ReplicaSets or ControllerRevisions of their kinds.

    From the refs, not the live objects: a retried terminate still finds
    what a first try orphaned.
    """
    out = []
    for ns in sorted({r.get('namespace') or '' for r in refs} - {''}):
        kinds = {r['kind'] for r in refs if r.get('namespace') == ns}
        if 'Deployment' in kinds:
            out.append((ns, 'apps/v1', 'ReplicaSet'))
        if kinds & {'StatefulSet', 'DaemonSet'}:
            out.append((ns, 'apps/v1', 'ControllerRevision'))
        if kinds & k8s.WORKLOAD_KINDS:
            out.append((ns, 'v1', 'Pod'))
    return out


def _delete_workloads(
    kube: k8s.KubeClient,
    workloads: list[Obj],
    dependents: list[tuple[str, str, str]],
    sel: str,
    grace: int,
    deadline: float,
) -> None:
    """Delete the workloads, then what they made, until none is left.

    The controllers go first (see ``_ORPHANING``), then their ReplicaSets
    and ControllerRevisions, then the Pods with ``pod_grace``. These
    dependents are found by the instance's label (the garbage collector
    strips an orphan's owner references) and listed again after each
    wait, until none is left: a controller may still create one while it
    learns of its deletion.
    """
    waiting = [
        w
        for w in k8s.delete_order(workloads)
        if w['kind'] != 'Pod' and _delete(kube, w, grace)
    ]
    while True:
        left = [
            o
            for ns, api_version, kind in dependents
            for o in kube.list(api_version, kind, ns, sel)[0]
        ]
        if not left and not waiting:
            return
        if left and time.monotonic() >= deadline:
            raise exceptions.DeadlineExceeded(
                'Kubernetes: timed out waiting for deleted objects to '
                f'disappear: {k8s.ref(left[0])} still exists'
            )
        for obj in left:  # ReplicaSets before their Pods
            _delete(kube, obj, grace)
        k8s.wait_gone(kube, waiting + left, sel, deadline)
        waiting = []


def _delete(kube: k8s.KubeClient, obj: Obj, grace: int) -> bool:
    """Delete one object unless it is being deleted already (a Pod: with
    ``grace`` or less); False if it was gone."""
    meta = obj['metadata']
    if obj['kind'] == 'Pod':
        period = pod_grace(obj, grace)
        current = meta.get('deletionGracePeriodSeconds')
        if current is not None and current <= period:
            return True
        policy, grace_period = 'Background', period
    elif meta.get('deletionTimestamp'):
        return True
    else:
        orphan = grace > 0 and obj['kind'] in _ORPHANING
        policy = 'Orphan' if orphan else 'Background'
        grace_period = None
    return kube.delete(
        obj['apiVersion'],
        obj['kind'],
        meta['name'],
        meta.get('namespace'),
        policy,
        grace_period,
    )


def terminate(ctx: base.InfraContext) -> base.InfraResult:
    """Delete every object the instance has (GRACEFUL or FORCEFUL); each
    Pod gets at most the request's time to stop (see ``delete_refs``)."""
    info = common.info_of(ctx)
    refs = (info.get('metadata') or {}).get('resources') or []
    _, kube = common.kube_for(ctx)
    with kube:
        delete_refs(ctx, kube, refs, _grace(ctx.request), 'Background')
        requests = kube.requests
    old = info.get('vnfcResourceInfo') or []
    return base.InfraResult(
        resource_changes=vnfc_views.affected(old, []),
        work={'requests': requests},
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
