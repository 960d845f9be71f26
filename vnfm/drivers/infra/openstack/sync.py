"""The periodic sync: instantiatedVnfInfo following servers Heat replaced
outside vnfm (a stack update or check by the cloud's operator, an
AutoScalingGroup replacing a member). A Nova server deleted behind Heat's
back is not seen: Heat itself does not know of it until a stack check."""

from __future__ import annotations

from typing import Any

from vnfm.drivers.infra import base
from vnfm.drivers.infra import vnfcs as vnfc_views
from vnfm.drivers.infra.openstack import common
from vnfm.drivers.infra.openstack import info as info_mod

Obj = dict[str, Any]


def _servers(entries: list[Obj]) -> set[tuple[str, str]]:
    return {(e['id'], e['computeResource']['resourceId']) for e in entries}


def synced_info(ctx: base.SyncContext) -> Obj | None:
    """The instance's info as the stack has it now; None if unchanged (or
    the stack is busy)."""
    info = dict(ctx.vnf_instance.get('instantiatedVnfInfo') or {})
    meta = info.get('metadata') or {}
    old = info.get('vnfcResourceInfo') or []
    if not meta.get('stack_id') or not old:
        return None
    ref = f'{meta["stack_name"]}/{meta["stack_id"]}'
    with common.heat_for(ctx) as (vim_id, heat):
        if heat.get(ref).status.endswith('_IN_PROGRESS'):
            return None
        builder = info_mod.Builder(
            ctx.vnf_instance['id'],
            vim_id,
            heat.resources(ref),
            {e['vduId'] for e in old},
        )
    new = builder.vnfc_resource_info()
    if _servers(new) == _servers(old):
        return None
    return {
        **info,
        'vnfcResourceInfo': new,
        'vnfcInfo': vnfc_views.vnfc_info(new),
        'virtualStorageResourceInfo': builder.virtual_storage_resource_info(),
        'vnfVirtualLinkResourceInfo': builder.vnf_virtual_link_resource_info(),
    }
