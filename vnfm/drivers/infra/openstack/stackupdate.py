"""A stack update of a running instance (scale, heal, their rollbacks):
Heat input from ``userdata`` over the stack's current parameters, waited on
by its events, instantiatedVnfInfo read again.

A rollback that restores templates and parameters (``restore``) first
repairs the AutoScalingGroups a failed update left ``*_FAILED``: such a
group's nested stack already holds its members' new (failed) definitions,
and a group whose ``resource`` property Heat sees unchanged keeps them, so
updating back to the old input alone fails again on the same member. One
update with the old input whose member definitions carry a marker in their
``metadata`` makes Heat roll every member to the old definition (in place:
the servers, their VNFC ids and volumes stay); a second update with the
old input as it is removes the marker.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

from vnfm.clients import openstack
from vnfm.common import exceptions
from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack import common
from vnfm.drivers.infra.openstack import hot
from vnfm.drivers.infra.openstack import info as info_mod
from vnfm.drivers.infra.openstack import standard
from vnfm.drivers.infra.openstack import userdata
from vnfm.objects import scale_level

Obj = dict[str, Any]
Prepare = Callable[
    [base.InfraContext, openstack.Heat, userdata.StackInput], None
]
GROUP = 'OS::Heat::AutoScalingGroup'
# The metadata key of the marker a restoring rollback puts on members.
MARKER = 'vnfm-restore'


def failed_groups(heat: openstack.Heat, stack: openstack.Stack) -> list[str]:
    """Names of the stack's own AutoScalingGroups in a ``*_FAILED`` state."""
    return sorted(
        r['resource_name']
        for r in heat.resources(stack.ref)
        if r['resource_type'] == GROUP
        and info_mod.stack_of(r) == stack.id
        and str(r.get('resource_status') or '').endswith('_FAILED')
    )


def marked(template: str, groups: list[str], marker: str) -> str:
    """``template`` with the member definition of each of ``groups``
    carrying ``marker`` in its metadata (JSON, which Heat reads too)."""
    doc = hot.load(template, 'top template')
    for name in groups:
        found = (doc.get('resources') or {}).get(name) or {}
        member = (found.get('properties') or {}).get('resource')
        if isinstance(member, dict):
            meta = member.get('metadata')
            member['metadata'] = {
                **(meta if isinstance(meta, dict) else {}),
                MARKER: marker,
            }
    return json.dumps(doc)


def _run(
    heat: openstack.Heat,
    stack: openstack.Stack,
    given: userdata.StackInput,
    template: str | None,
    deadline: float,
    work: Obj,
) -> None:
    """One stack update with ``given``'s files and parameters, waited on."""
    marker = heat.last_event(stack.ref)
    heat.update(stack.ref, template, given.files, given.parameters)
    try:
        heat.wait(stack, 'UPDATE', deadline, marker)
    except openstack.OpenStackError as e:
        raise base.PartialFailure(e.detail, work) from None


def ext_links(info: Obj) -> list[Obj]:
    """The extVirtualLinks (with the CPDs on them) the instance has."""
    cpds = (info.get('metadata') or {}).get('ext_cpds') or {}
    return [
        {
            'id': e['id'],
            'resourceHandle': e.get('resourceHandle'),
            'extCps': [{'cpdId': c} for c in cpds.get(e['id'], [])],
        }
        for e in info.get('extVirtualLinkInfo') or []
    ]


def update(
    ctx: base.InfraContext,
    operation: str,
    levels: dict[str, int],
    prepare: Prepare | None = None,
    modified: set[str] | None = None,
    source_vnfd: bool = False,
    save_nfv: str | None = None,
    ext_vls: list[Obj] | None = None,
    restore: bool = False,
) -> base.InfraResult:
    """Update the stack with ``operation``'s Heat input (after ``prepare``
    marked what Heat must replace or remove); the new info. ``save_nfv``:
    the work key keeping the stack's ``nfv`` from before the first try;
    ``ext_vls``: the external links after the update (default: the
    instance's); ``restore``: a rollback to the input before a failed
    update (failed groups repaired first, see the module's doc)."""
    info = common.info_of(ctx)
    work: Obj = dict(ctx.work)
    with common.heat_for(ctx) as (vim_id, heat):
        stack = common.stack_ref(heat, ctx)
        if stack is None:
            raise exceptions.OperationFailed(
                f'The stack of VNF instance {ctx.vnf_instance["id"]} is gone.'
            )
        if save_nfv:
            work.setdefault(save_nfv, standard.current_nfv(stack.parameters))
        given = userdata.stack_input(ctx, operation, stack.parameters)
        if prepare is not None:
            prepare(ctx, heat, given)
        deadline = common.stack_deadline(ctx)
        groups = failed_groups(heat, stack) if restore else []
        if groups and given.template is not None:
            tagged = marked(given.template, groups, uuid.uuid4().hex)
            _run(heat, stack, given, tagged, deadline, work)
        _run(heat, stack, given, given.template, deadline, work)
        new = common.vnf_info(
            ctx,
            heat,
            vim_id,
            stack,
            levels,
            ext_links(info) if ext_vls is None else ext_vls,
            source_vnfd,
        )
        new['metadata'] = common.with_unscalable(
            {**(info.get('metadata') or {}), **new['metadata']},
            scale_level.unscalable(new),
        )
        work['requests'] = heat.conn.counts
    return base.InfraResult(
        instantiated_vnf_info=new,
        resource_changes=common.resource_changes(info, new, modified),
        work=work,
    )
