"""A stack update of a running instance (scale, heal, their rollbacks):
Heat input from ``userdata`` over the stack's current parameters, waited on
by its events, instantiatedVnfInfo read again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vnfm.clients import openstack
from vnfm.common import exceptions
from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack import common
from vnfm.drivers.infra.openstack import standard
from vnfm.drivers.infra.openstack import userdata

Obj = dict[str, Any]
Prepare = Callable[
    [base.InfraContext, openstack.Heat, userdata.StackInput], None
]


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
) -> base.InfraResult:
    """Update the stack with ``operation``'s Heat input (after ``prepare``
    marked what Heat must replace or remove); the new info. ``save_nfv``:
    the work key keeping the stack's ``nfv`` from before the first try;
    ``ext_vls``: the external links after the update (default: the
    instance's)."""
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
        marker = heat.last_event(stack.ref)
        heat.update(stack.ref, given.template, given.files, given.parameters)
        try:
            heat.wait(stack, 'UPDATE', common.stack_deadline(ctx), marker)
        except openstack.OpenStackError as e:
            raise base.PartialFailure(e.detail, work) from None
        new = common.vnf_info(
            ctx,
            heat,
            vim_id,
            stack,
            levels,
            ext_links(info) if ext_vls is None else ext_vls,
            source_vnfd,
        )
        new['metadata'] = {**(info.get('metadata') or {}), **new['metadata']}
        work['requests'] = heat.conn.counts
    return base.InfraResult(
        instantiated_vnf_info=new,
        resource_changes=common.resource_changes(info, new, modified),
        work=work,
    )
