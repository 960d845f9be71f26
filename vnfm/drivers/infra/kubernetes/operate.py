"""Operate VNF (SOL003 5.4.7) on Kubernetes.

STOPPED scales every VDU workload to zero replicas (a bare Pod is deleted)
and remembers the replica counts in ``instantiatedVnfInfo.metadata``, so
the instance's record, not only the cluster, knows what to restore. Each
Pod gets at most the request's time to stop: none for FORCEFUL, for
GRACEFUL ``gracefulStopTimeout`` (default ``[kubernetes]
graceful_termination_timeout``), never more than its own
terminationGracePeriodSeconds. STARTED restores the counts (a bare Pod is
created again from the package's manifests) and waits until the Pods are
ready. VNFC ids come back as they were (they are ordinals per VDU).
"""

from __future__ import annotations

from typing import Any

from vnfm.clients import kubernetes as k8s
from vnfm.common import exceptions
from vnfm.conf import CONF
from vnfm.drivers import scaling
from vnfm.drivers.infra import base
from vnfm.drivers.infra import vnfcs as vnfc_views
from vnfm.drivers.infra.kubernetes import common
from vnfm.drivers.infra.kubernetes import lifecycle
from vnfm.drivers.infra.kubernetes import resources
from vnfm.drivers.infra.kubernetes import vnfcs

Obj = dict[str, Any]
STOPPED_COUNTS = 'stoppedReplicas'
_STOPPABLE = (*resources.SCALABLE_KINDS, 'Pod')


def operate(ctx: base.InfraContext) -> base.InfraResult:
    """Stop or start every VDU workload as ``changeStateTo`` asks."""
    info = common.info_of(ctx)
    workloads = common.vdu_workloads(info)
    _check_stoppable(workloads)
    if ctx.request.get('changeStateTo') == 'STOPPED':
        return _stopped(ctx, info, workloads)
    return _started(ctx, info, workloads)


def rollback_operate(ctx: base.InfraContext) -> base.InfraResult:
    """Put the workloads back in the state before the failed operate (the
    instance's record was never changed)."""
    info = common.info_of(ctx)
    workloads = common.vdu_workloads(info)
    work = dict(ctx.work)
    if ctx.request.get('changeStateTo') == 'STOPPED':
        counts = work.get('previous_counts') or _counts(info, workloads)
        _start(ctx, info, workloads, counts, work)
    else:
        _stop(ctx, workloads, _grace(ctx.request), work)
    return base.InfraResult(work=work)


def _check_stoppable(workloads: dict[str, Obj]) -> None:
    for vdu_id, w in sorted(workloads.items()):
        if w['kind'] not in _STOPPABLE:
            raise exceptions.OperationFailed(
                f'VDU {vdu_id} is a {w["kind"]} ({w["metadata"]["name"]}); '
                f'only {", ".join(_STOPPABLE)} can be stopped and started. '
                'Nothing was changed.'
            )


def _counts(info: Obj, workloads: dict[str, Obj]) -> dict[str, int]:
    counts = {v: 0 for v in workloads}
    for entry in info.get('vnfcResourceInfo') or []:
        if entry['vduId'] in counts:
            counts[entry['vduId']] += 1
    return counts


def _grace(request: Obj) -> int:
    if request.get('stopType') == 'FORCEFUL':
        return 0
    timeout = request.get('gracefulStopTimeout')
    if timeout is None:
        return CONF.kubernetes.graceful_termination_timeout
    return int(timeout)


def _stopped(
    ctx: base.InfraContext, info: Obj, workloads: dict[str, Obj]
) -> base.InfraResult:
    meta = dict(info.get('metadata') or {})
    # A retry after a stop that went through keeps the first counts.
    counts = meta.get(STOPPED_COUNTS) or _counts(info, workloads)
    work: Obj = {'previous_counts': counts, **ctx.work}
    _stop(ctx, workloads, _grace(ctx.request), work)
    old = info.get('vnfcResourceInfo') or []
    new = [e for e in old if e['vduId'] not in workloads]
    return _result(
        info, {**meta, STOPPED_COUNTS: counts}, 'STOPPED', old, new, work
    )


def _started(
    ctx: base.InfraContext, info: Obj, workloads: dict[str, Obj]
) -> base.InfraResult:
    meta = dict(info.get('metadata') or {})
    flavour = scaling.flavour_of(ctx.vnfd, info.get('flavourId'))
    levels = common.levels_of(info)
    counts = {
        v: scaling.counts_at(flavour, v, levels)
        for v in workloads
        if v in (flavour.get('vdus') or {})
    }
    counts.update(meta.get(STOPPED_COUNTS) or {})
    work: Obj = dict(ctx.work)
    vim_id, pods = _start(ctx, info, workloads, counts, work)
    old = info.get('vnfcResourceInfo') or []
    kinds = {v: w['kind'] for v, w in workloads.items()}
    new = vnfcs.build(
        ctx.vnf_instance['id'],
        old,
        common.pod_names(pods, workloads),
        kinds,
        vim_id,
    )
    meta.pop(STOPPED_COUNTS, None)
    return _result(info, meta, 'STARTED', old, new, work)


def _result(
    info: Obj, meta: Obj, state: str, old: list[Obj], new: list[Obj], work: Obj
) -> base.InfraResult:
    vnfc_info = vnfc_views.vnfc_info(new)
    return base.InfraResult(
        instantiated_vnf_info={
            **info,
            'vnfState': state,
            'vnfcResourceInfo': new,
            'vnfcInfo': vnfc_info,
            'metadata': meta,
        },
        resource_changes=vnfc_views.affected(old, new),
        work=work,
    )


def _stop(
    ctx: base.InfraContext, workloads: dict[str, Obj], grace: int, work: Obj
) -> None:
    """Scale to zero (delete bare Pods), each Pod deleted with at most
    ``grace``; wait until every Pod is gone."""
    sel = common.selector(ctx.vnf_instance['id'])
    _, kube = common.kube_for(ctx)
    with kube:
        live = k8s.list_pods(kube, list(workloads.values()), sel)
        for _vdu_id, w in sorted(workloads.items()):
            if w['kind'] != 'Pod':
                _patch_replicas(kube, w, 0, work)
        pods = [p for found in live.values() for p in found]
        try:
            for pod in pods:
                kube.delete(
                    'v1',
                    'Pod',
                    pod['metadata']['name'],
                    pod['metadata'].get('namespace'),
                    'Background',
                    lifecycle.pod_grace(pod, grace),
                )
            k8s.wait_gone(kube, pods, sel, common.delete_deadline(ctx, grace))
        except exceptions.OperationFailed as e:
            raise base.PartialFailure(e.detail, work) from None
        work['requests'] = kube.requests


def _start(
    ctx: base.InfraContext,
    info: Obj,
    workloads: dict[str, Obj],
    counts: dict[str, int],
    work: Obj,
) -> tuple[str, dict[tuple, list[Obj]]]:
    """Restore the replica counts (re-create bare Pods); wait until ready."""
    meta = info.get('metadata') or {}
    vim_id, kube = common.kube_for(ctx)
    with kube:
        bare = [v for v, w in workloads.items() if w['kind'] == 'Pod']
        if bare:
            flavour = scaling.flavour_of(ctx.vnfd, info.get('flavourId'))
            deployed = resources.prepare(
                kube,
                ctx.package,
                list(meta.get(resources.DEF_FILES) or []),
                meta.get('namespace'),
                flavour,
                ctx.vnf_instance['id'],
                counts,
            )
            common.apply_all(
                kube,
                [deployed.vdus[v] for v in bare],
                ctx.vnf_instance['id'],
                work,
            )
        for vdu_id, w in sorted(workloads.items()):
            if w['kind'] != 'Pod':
                _patch_replicas(kube, w, counts.get(vdu_id, 1), work)
        pods = common.wait_ready(
            ctx, kube, list(workloads.values()), ctx.vnf_instance['id'], work
        )
        work['requests'] = kube.requests
    return vim_id, pods


def _patch_replicas(
    kube: k8s.KubeClient, workload: Obj, n: int, work: Obj
) -> None:
    meta = workload['metadata']
    try:
        kube.patch(
            workload['apiVersion'],
            workload['kind'],
            meta['name'],
            meta.get('namespace'),
            {'spec': {'replicas': n}},
        )
    except k8s.KubernetesError as e:
        raise base.PartialFailure(e.detail, work) from None
