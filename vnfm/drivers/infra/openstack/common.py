"""Helpers shared by the OpenStack driver's operations."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

from vnfm.clients import openstack
from vnfm.clients import outbound
from vnfm.conf import CONF
from vnfm.drivers import scaling
from vnfm.drivers.infra import base
from vnfm.drivers.infra import vnfcs
from vnfm.drivers.infra.openstack import individual
from vnfm.drivers.infra.openstack import info as info_mod
from vnfm.drivers.infra.openstack import scalable
from vnfm.drivers.infra.openstack import userdata
from vnfm.objects import scale_level

Obj = dict[str, Any]
STACK_PREFIX = 'vnf-'


def stack_name(instance_id: str) -> str:
    """The name of the one stack of a VNF instance."""
    return f'{STACK_PREFIX}{instance_id}'


@contextlib.contextmanager
def heat_for(
    ctx: base.InfraContext | base.SyncContext,
) -> Iterator[tuple[str, openstack.Heat]]:
    """(vimConnectionId, Heat) of the step's VIM, one session for the step."""
    vim_id, vim = ctx.vim_connection()
    with openstack.Connection(vim, outbound.for_vims()) as conn:
        yield vim_id, openstack.Heat(conn)


def stack_deadline(ctx: base.InfraContext) -> float:
    """When waiting for a stack must end: config timeout or op deadline."""
    ctx.remaining()
    return min(ctx.deadline, time.monotonic() + CONF.openstack.stack_timeout)


def info_of(ctx: base.InfraContext) -> Obj:
    """The instance's instantiatedVnfInfo (a copy)."""
    return dict(ctx.vnf_instance.get('instantiatedVnfInfo') or {})


def stack_ref(
    heat: openstack.Heat, ctx: base.InfraContext
) -> openstack.Stack | None:
    """The instance's stack: the one its metadata or work names, else the
    one of its name; None when there is none."""
    meta = info_of(ctx).get('metadata') or {}
    recorded = (ctx.work.get('stack') or {}).get('id') or meta.get('stack_id')
    name = stack_name(ctx.vnf_instance['id'])
    if recorded:
        try:
            stack = heat.get(f'{name}/{recorded}')
        except openstack.NotFound:
            return None
        return None if stack.status == 'DELETE_COMPLETE' else stack
    return heat.find(name)


def vnf_info(
    ctx: base.InfraContext,
    heat: openstack.Heat,
    vim_id: str,
    stack: openstack.Stack,
    levels: dict[str, int],
    ext_vls: list[Obj],
    source_vnfd: bool = False,
) -> Obj:
    """instantiatedVnfInfo read from the stack's resources (VDUs of the
    target package's VNFD in a package change, unless ``source_vnfd``)."""
    flavour_id = (
        ctx.flavour_id
        or ctx.request.get('flavourId')
        or info_of(ctx).get('flavourId')
    )
    vnfd = ctx.vnfd if source_vnfd else (ctx.target_vnfd or ctx.vnfd)
    flavour = scaling.flavour_of(vnfd, flavour_id)
    builder = info_mod.Builder(
        ctx.vnf_instance['id'],
        vim_id,
        heat.resources(stack.ref),
        set(flavour.get('vdus') or {}),
        vnfc_mapping(ctx.vnf_instance),
    )
    vnfc_resources = builder.vnfc_resource_info()
    ext_links = builder.ext_virtual_link_info(ext_vls)
    ext_cps = info_mod.ext_cp_info(
        vnfc_resources,
        ext_links,
        ext_vls,
        info_of(ctx).get('extCpInfo') or [],
    )
    return {
        'flavourId': flavour_id,
        'vnfState': 'STARTED',
        **scaling.scale_status(flavour, levels),
        'extCpInfo': ext_cps,
        'extVirtualLinkInfo': ext_links,
        'extManagedVirtualLinkInfo': builder.ext_managed_virtual_link_info(
            managed_links(ctx), _cps_on(flavour)
        ),
        'vnfcResourceInfo': vnfc_resources,
        'vnfcInfo': vnfcs.vnfc_info(vnfc_resources),
        'vnfVirtualLinkResourceInfo': builder.vnf_virtual_link_resource_info(),
        'virtualStorageResourceInfo': builder.virtual_storage_resource_info(),
        'metadata': with_unscalable(
            {'stack_id': stack.id, 'stack_name': stack.name},
            _unscalable(ctx, flavour, source_vnfd),
        ),
    }


def managed_links(ctx: base.InfraContext) -> list[Obj]:
    """The extManagedVirtualLinks (id, vnfVirtualLinkDescId, resourceId,
    vimConnectionId) after the step: the request's, else the instance's."""
    given = ctx.request.get('extManagedVirtualLinks')
    if given:
        return [dict(m) for m in given]
    return [
        {
            'id': m['id'],
            'vnfVirtualLinkDescId': m.get('vnfVirtualLinkDescId'),
            'resourceId': (m.get('networkResource') or {}).get('resourceId'),
            'vimConnectionId': (m.get('networkResource') or {}).get(
                'vimConnectionId'
            ),
        }
        for m in info_of(ctx).get('extManagedVirtualLinkInfo') or []
    ]


def _cps_on(flavour: Obj) -> dict[str, set[str]]:
    """VL id -> the CPDs of the flavour on it."""
    out: dict[str, set[str]] = {}
    for name, cp in (flavour.get('cps') or {}).items():
        if cp.get('virtual_link'):
            out.setdefault(cp['virtual_link'], set()).add(name)
    return out


def vnfc_mapping(vnf_instance: Obj) -> dict[str, list[str]]:
    """VDU -> VNFC ids by index, from the instance's VDU_VNFc_mapping."""
    given = (vnf_instance.get('metadata') or {}).get(individual.VNFC_MAPPING)
    if not isinstance(given, dict):
        return {}
    return {
        str(vdu): [str(i) for i in ids]
        for vdu, ids in given.items()
        if isinstance(ids, list)
    }


def with_unscalable(meta: Obj, aspects: dict[str, str]) -> Obj:
    """``meta`` naming the aspects vnfm cannot scale (the key left out
    when there are none)."""
    out = {k: v for k, v in meta.items() if k != scale_level.UNSCALABLE}
    if aspects:
        out[scale_level.UNSCALABLE] = aspects
    return out


def _unscalable(
    ctx: base.InfraContext, flavour: Obj, source_vnfd: bool
) -> dict[str, str]:
    """The aspects the built-in Heat input cannot scale (none known with
    the package's own user data, which may build other templates)."""
    if userdata.user_data(ctx, 'scale') is not None:
        return {}
    package = (
        ctx.package if source_vnfd else (ctx.target_package or ctx.package)
    )
    return scalable.of_package(flavour, package)


def levels_of(info: Obj) -> dict[str, int]:
    """Current aspect levels from scaleStatus."""
    return {
        s['aspectId']: int(s['scaleLevel'])
        for s in info.get('scaleStatus') or []
    }


def _by_id(entries: list[Obj] | None) -> dict[str, Obj]:
    return {e['id']: e for e in entries or []}


def _changed(
    old: list[Obj] | None, new: list[Obj] | None, key: str, desc: str
) -> list[Obj]:
    """ADDED/REMOVED/MODIFIED entries of one resource list."""
    before, after = _by_id(old), _by_id(new)
    out = []
    for entry_id, entry in after.items():
        prior = before.get(entry_id)
        if (
            prior is None
            or prior[key]['resourceId'] != entry[key]['resourceId']
        ):
            kind = 'ADDED' if prior is None else 'MODIFIED'
            out.append(
                {
                    'id': entry_id,
                    desc: entry[desc],
                    'changeType': kind,
                    key: entry[key],
                }
            )
    out += [
        {'id': i, desc: e[desc], 'changeType': 'REMOVED', key: e[key]}
        for i, e in before.items()
        if i not in after
    ]
    return out


def resource_changes(
    old: Obj, new: Obj, modified: set[str] | None = None
) -> Obj:
    """resourceChanges between two instantiatedVnfInfo."""
    out = vnfcs.affected(
        old.get('vnfcResourceInfo') or [],
        new.get('vnfcResourceInfo') or [],
        modified,
    )
    out['affectedVirtualStorages'] = _changed(
        old.get('virtualStorageResourceInfo'),
        new.get('virtualStorageResourceInfo'),
        'storageResource',
        'virtualStorageDescId',
    )
    out['affectedVirtualLinks'] = _changed(
        old.get('vnfVirtualLinkResourceInfo'),
        new.get('vnfVirtualLinkResourceInfo'),
        'networkResource',
        'vnfVirtualLinkDescId',
    )
    return out
