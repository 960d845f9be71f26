"""Change current VNF package: roll the VDU workloads to the new manifests.

Its rollback applies the source package's manifests again as a forced
rollback (``k8s.ForcedRollback``): Pods made from the target package's
templates that are not Ready are deleted, so a StatefulSet, which would
wait for them forever, returns to its previous template with every Pod
Ready.
"""

from __future__ import annotations

from typing import Any

from vnfm.common import exceptions
from vnfm.drivers import scaling
from vnfm.drivers.infra import base
from vnfm.drivers.infra import vnfcs as vnfc_views
from vnfm.drivers.infra.kubernetes import common
from vnfm.drivers.infra.kubernetes import lifecycle
from vnfm.drivers.infra.kubernetes import resources
from vnfm.drivers.infra.kubernetes import vnfcs
from vnfm.drivers.package_files import PackageFiles

Obj = dict[str, Any]


def _counts(info: Obj, flavour: Obj) -> dict[str, int]:
    """Today's instance counts; new VDUs start at the current levels."""
    counts: dict[str, int] = {}
    for entry in info.get('vnfcResourceInfo') or []:
        counts[entry['vduId']] = counts.get(entry['vduId'], 0) + 1
    levels = common.levels_of(info)
    return {
        v: counts.get(v, scaling.counts_at(flavour, v, levels))
        for v in flavour.get('vdus') or {}
    }


def move(
    ctx: base.InfraContext,
    info: Obj,
    vnfd: Obj,
    package: PackageFiles,
    files: list[str],
    work: Obj,
    rollback: bool = False,
    target: tuple[str, str | None] | None = None,
) -> base.InfraResult:
    """Apply a package's manifests to the instance, delete the objects of
    ``info`` they no longer have; wait for rollouts. ``target``: the
    (flavourId, instantiationLevelId) to move to, at that level's counts
    (default: the flavour, levels and counts of ``info``)."""
    instance_id = ctx.vnf_instance['id']
    meta = info.get('metadata') or {}
    if target is None:
        flavour_id, levels = info['flavourId'], common.levels_of(info)
        flavour = scaling.flavour_of(vnfd, flavour_id)
        counts = _counts(info, flavour)
    else:
        flavour_id, level_id = target
        flavour = scaling.flavour_of(vnfd, flavour_id)
        levels = scaling.initial_levels(flavour, level_id)
        counts = scaling.initial_counts(flavour, level_id)
        scaling.check_bounds(flavour, counts)
    vim_id, kube = common.kube_for(ctx)
    with kube:
        deployed = resources.prepare(
            kube,
            package,
            files,
            meta.get('namespace'),
            flavour,
            instance_id,
            counts,
        )
        work.setdefault('resources', deployed.refs())
        common.apply_all(kube, deployed.objects, instance_id, work)
        pods = common.wait_ready(
            ctx,
            kube,
            list(deployed.vdus.values()),
            instance_id,
            work,
            forced_rollback=rollback,
        )
        stale = [
            r for r in meta.get('resources') or [] if r not in deployed.refs()
        ]
        lifecycle.delete_refs(ctx, kube, stale, 0, 'Foreground')
        work['requests'] = kube.requests
    old = info.get('vnfcResourceInfo') or []
    kinds = {v: o['kind'] for v, o in deployed.vdus.items()}
    new = vnfcs.build(
        instance_id, old, common.pod_names(pods, deployed.vdus), kinds, vim_id
    )
    new_info = {
        **info,
        **common.vnf_info(
            flavour_id,
            flavour,
            levels,
            new,
            common.metadata(deployed),
        ),
    }
    return base.InfraResult(
        instantiated_vnf_info=new_info,
        work=work,
        resource_changes=vnfc_views.affected(old, new),
    )


def change_vnfpkg(ctx: base.InfraContext) -> base.InfraResult:
    """RollingUpdate of the workloads to ctx.target_package's manifests."""
    if ctx.target_package is None or ctx.target_vnfd is None:
        raise exceptions.OperationFailed(
            'change_vnfpkg needs the target package.'
        )
    info = common.info_of(ctx)
    work: Obj = {'source_metadata': info.get('metadata') or {}, **ctx.work}
    return move(
        ctx,
        info,
        ctx.target_vnfd,
        ctx.target_package,
        resources.def_files(ctx.request),
        work,
    )


def rollback_change_vnfpkg(ctx: base.InfraContext) -> base.InfraResult:
    """Apply the source package again; delete what the change created."""
    info = common.info_of(ctx)
    source = ctx.work.get('source_metadata') or info.get('metadata') or {}
    created = [
        r
        for r in ctx.work.get('created') or []
        if r not in (source.get('resources') or [])
    ]
    result = move(
        ctx,
        {
            **info,
            'metadata': {
                **source,
                'resources': source.get('resources', []) + created,
            },
        },
        ctx.vnfd,
        ctx.package,
        source.get(resources.DEF_FILES) or [],
        {'rolled_back': True},
        rollback=True,
    )
    result.work = {**ctx.work, **result.work}
    return result
