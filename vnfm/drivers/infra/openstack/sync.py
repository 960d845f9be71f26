"""The periodic sync: instantiatedVnfInfo following what happened to the
servers outside vnfm.

* A server Heat replaced (a stack update or check by the cloud's operator,
  an AutoScalingGroup replacing a member): the VNFC keeps its id and names
  the new server.
* A server deleted, or broken, behind Heat's back (``openstack server
  delete``; Heat still names it): Heat's resource list shows each server as
  Nova does (its ``status``), and nothing of a server Nova no longer has.
  Such a VNFC is kept (a heal of it makes Heat replace the server), with
  ``metadata.server_status`` = Nova's status or ``NOT_FOUND`` and its
  vnfcInfo ``vnfcState`` STOPPED.

The caller (the conductor) runs it only for instances with no unfinished
op and writes the result by compare-and-set.
"""

from __future__ import annotations

from typing import Any

from vnfm.drivers.infra import base
from vnfm.drivers.infra import vnfcs as vnfc_views
from vnfm.drivers.infra.openstack import common
from vnfm.drivers.infra.openstack import info as info_mod

Obj = dict[str, Any]
STATUS = 'server_status'
NOT_FOUND = 'NOT_FOUND'
ACTIVE = 'ACTIVE'


def server_status(resource: Obj) -> str:
    """Nova's status of a listed server resource; NOT_FOUND when Heat
    could not show the server (Nova has no such server)."""
    attrs = resource.get('attributes') or {}
    status = attrs.get('status') if isinstance(attrs, dict) else None
    return str(status) if status else NOT_FOUND


def _state(entries: list[Obj]) -> set[tuple[str, str, str]]:
    return {
        (
            e['id'],
            e['computeResource']['resourceId'],
            (e.get('metadata') or {}).get(STATUS) or ACTIVE,
        )
        for e in entries
    }


def _with_status(builder: info_mod.Builder, entries: list[Obj]) -> None:
    """Record the status of each server that is not ACTIVE."""
    by_id = {s.get('physical_resource_id'): s for s in builder.servers}
    for entry in entries:
        server = by_id.get(entry['computeResource']['resourceId'])
        if server is None or not server.get('physical_resource_id'):
            continue
        status = server_status(server)
        if status != ACTIVE:
            entry['metadata'][STATUS] = status


def _vnfc_info(entries: list[Obj]) -> list[Obj]:
    out = vnfc_views.vnfc_info(entries)
    stopped = {
        e['id'] for e in entries if (e.get('metadata') or {}).get(STATUS)
    }
    for vnfc in out:
        if vnfc['vnfcResourceInfoId'] in stopped:
            vnfc['vnfcState'] = 'STOPPED'
    return out


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
            common.vnfc_mapping(ctx.vnf_instance),
        )
    new = builder.vnfc_resource_info()
    info_mod.kept_ext_cp_ids(old, new)
    _with_status(builder, new)
    if _state(new) == _state(old):
        return None
    return {
        **info,
        'vnfcResourceInfo': new,
        'vnfcInfo': _vnfc_info(new),
        'virtualStorageResourceInfo': builder.virtual_storage_resource_info(),
        'vnfVirtualLinkResourceInfo': builder.vnf_virtual_link_resource_info(),
    }


def vim_vnfcs(
    ctx: base.SyncContext, vdu_ids: set[str]
) -> dict[str, list[str]]:
    """VDU id -> the ids of the servers of the instance's stack named after
    it (nested stacks included), as Heat lists them now."""
    meta = (ctx.vnf_instance.get('instantiatedVnfInfo') or {}).get(
        'metadata'
    ) or {}
    if not meta.get('stack_id'):
        return {}
    ref = f'{meta["stack_name"]}/{meta["stack_id"]}'
    with common.heat_for(ctx) as (vim_id, heat):
        builder = info_mod.Builder(
            ctx.vnf_instance['id'], vim_id, heat.resources(ref), vdu_ids
        )
    out: dict[str, list[str]] = {}
    for server in builder.servers:
        out.setdefault(server['resource_name'], []).append(
            str(server.get('physical_resource_id') or '')
        )
    return out
