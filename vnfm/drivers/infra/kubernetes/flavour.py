"""Change VNF flavour: the target flavour's manifests replace the source's.

``additionalParams.lcm-kubernetes-def-files`` of the ChangeVnfFlavourRequest
names the target flavour's manifests (default: those the instance was
deployed with, when one set of manifests serves both flavours). Workloads
both flavours have roll to their new template, objects only the source
flavour had are deleted, and each VDU gets the instance count of the
request's instantiationLevelId (default: the target flavour's default
level). Rollback applies the source flavour's manifests again at the
counts the instance had and deletes what the change created.
"""

from __future__ import annotations

from typing import Any

from vnfm.drivers.infra import base
from vnfm.drivers.infra.kubernetes import change
from vnfm.drivers.infra.kubernetes import common
from vnfm.drivers.infra.kubernetes import resources

Obj = dict[str, Any]


def _def_files(request: Obj, meta: Obj) -> list[str]:
    """The request's manifests, else the instance's."""
    params = request.get('additionalParams') or {}
    if params.get(resources.DEF_FILES) is None and meta.get(
        resources.DEF_FILES
    ):
        return list(meta[resources.DEF_FILES])
    return resources.def_files(request)


def change_flavour(ctx: base.InfraContext) -> base.InfraResult:
    """Move the instance to ``newFlavourId`` of the same VNFD."""
    info = common.info_of(ctx)
    meta = info.get('metadata') or {}
    work: Obj = {'source_metadata': meta, **ctx.work}
    return change.move(
        ctx,
        info,
        ctx.vnfd,
        ctx.package,
        _def_files(ctx.request, meta),
        work,
        target=(
            ctx.request['newFlavourId'],
            ctx.request.get('instantiationLevelId'),
        ),
    )


def rollback_change_flavour(ctx: base.InfraContext) -> base.InfraResult:
    """Return to the source flavour's objects and counts (the instance
    record still has them); delete what the change created."""
    return change.rollback_change_vnfpkg(ctx)
