"""Scale out/in by the VNFD's aspects, and its rollback."""

from __future__ import annotations

from typing import Any

from vnfm.clients import kubernetes as k8s
from vnfm.common import exceptions
from vnfm.drivers import scaling
from vnfm.drivers.infra import base
from vnfm.drivers.infra import vnfcs as vnfc_views
from vnfm.drivers.infra.kubernetes import common
from vnfm.drivers.infra.kubernetes import resources
from vnfm.drivers.infra.kubernetes import vnfcs

Obj = dict[str, Any]


def _set_replicas(
    ctx: base.InfraContext,
    kube: k8s.KubeClient,
    workloads: dict[str, Obj],
    counts: dict[str, int],
    work: Obj,
) -> dict[tuple, list[Obj]]:
    """Patch spec.replicas of VDU workloads; wait until ready."""
    changed = []
    for vdu_id, n in sorted(counts.items()):
        w = workloads[vdu_id]
        if w['kind'] not in resources.SCALABLE_KINDS:
            raise scaling.ScaleNotPossible(
                f'VDU {vdu_id} is a {w["kind"]} ({w["metadata"]["name"]}); '
                'only '
                f'{", ".join(resources.SCALABLE_KINDS)} can be scaled.'
            )
        try:
            changed.append(
                kube.patch(
                    w['apiVersion'],
                    w['kind'],
                    w['metadata']['name'],
                    w['metadata'].get('namespace'),
                    {'spec': {'replicas': n}},
                )
            )
        except k8s.KubernetesError as e:
            raise base.PartialFailure(e.detail, work) from None
    return common.wait_ready(ctx, kube, changed, ctx.vnf_instance['id'], work)


def _counts(info: Obj) -> dict[str, int]:
    counts: dict[str, int] = {}
    for entry in info.get('vnfcResourceInfo') or []:
        counts[entry['vduId']] = counts.get(entry['vduId'], 0) + 1
    return counts


def scale(ctx: base.InfraContext) -> base.InfraResult:
    """Change the VDUs of an aspect to the instance counts of the new level."""
    info = common.info_of(ctx)
    flavour = scaling.flavour_of(ctx.vnfd, info.get('flavourId'))
    levels = common.levels_of(info)
    new_levels = scaling.scaled_levels(flavour, levels, ctx.request)
    aspect = flavour['scaling_aspects'][ctx.request['aspectId']]
    workloads = common.vdu_workloads(info)
    vdu_ids = sorted(
        v for v in aspect.get('vdu_deltas') or {} if v in workloads
    )
    counts = {v: scaling.counts_at(flavour, v, new_levels) for v in vdu_ids}
    scaling.check_bounds(flavour, counts)
    old_counts = _counts(info)
    work: Obj = {
        'previous_counts': {v: old_counts.get(v, 0) for v in vdu_ids},
        'previous_levels': levels,
        **ctx.work,
    }
    return _scale_to(ctx, info, flavour, counts, new_levels, work)


def _scale_to(
    ctx: base.InfraContext,
    info: Obj,
    flavour: Obj,
    counts: dict[str, int],
    levels: dict[str, int],
    work: Obj,
) -> base.InfraResult:
    workloads = common.vdu_workloads(info)
    vim_id, kube = common.kube_for(ctx)
    with kube:
        pods = _set_replicas(ctx, kube, workloads, counts, work)
        work['requests'] = kube.requests
    names = common.pod_names(pods, {v: workloads[v] for v in counts})
    old = info.get('vnfcResourceInfo') or []
    kinds = {v: workloads[v]['kind'] for v in counts}
    changed = vnfcs.build(ctx.vnf_instance['id'], old, names, kinds, vim_id)
    new = [e for e in old if e['vduId'] not in counts] + changed
    new_info = common.vnf_info(
        info['flavourId'], flavour, levels, new, info.get('metadata') or {}
    )
    return base.InfraResult(
        instantiated_vnf_info={**info, **new_info},
        resource_changes=vnfc_views.affected(old, new),
        work=work,
    )


def rollback_scale(ctx: base.InfraContext) -> base.InfraResult:
    """Put the VDUs back to the instance counts before the failed scale."""
    previous = ctx.work.get('previous_counts')
    if previous is None:
        raise exceptions.OperationFailed(
            'Nothing to roll back: the scale recorded no previous '
            'instance counts.'
        )
    info = common.info_of(ctx)
    flavour = scaling.flavour_of(ctx.vnfd, info.get('flavourId'))
    levels = ctx.work.get('previous_levels') or common.levels_of(info)
    return _scale_to(
        ctx, info, flavour, dict(previous), levels, dict(ctx.work)
    )
