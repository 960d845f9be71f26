"""Instantiate, terminate and the rollback of instantiate: one Heat stack
per VNF instance, named ``vnf-<instance id>``.

Instantiate records the stack in ``work`` before waiting, so a failed
create is found by rollback (which deletes it) and by retry (which updates
a failed stack with the same input, or waits for one still in progress).
The package's image files go to the VIM's image service first (``images``),
recorded in ``work`` and the instance's metadata for terminate and rollback.
"""

from __future__ import annotations

import time
from typing import Any

from vnfm.clients import openstack
from vnfm.conf import CONF
from vnfm.drivers import scaling
from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack import common
from vnfm.drivers.infra.openstack import images
from vnfm.drivers.infra.openstack import userdata

Obj = dict[str, Any]


def _stack_input(ctx: base.InfraContext, work: Obj) -> userdata.StackInput:
    """Instantiate's Heat input, naming the uploaded images by id."""
    given = userdata.stack_input(ctx, 'instantiate')
    used = work.get('images') or {}
    given.parameters = images.with_ids(given.parameters, used)
    return given


def _create_or_resume(
    ctx: base.InfraContext, heat: openstack.Heat, work: Obj
) -> openstack.Stack:
    """Create the stack (or take up a retried one) and wait for it."""
    name = common.stack_name(ctx.vnf_instance['id'])
    stack = common.stack_ref(heat, ctx)
    action = 'CREATE'
    marker = None
    if stack is None:
        given = _stack_input(ctx, work)
        stack_id = heat.create(
            name, given.template, given.files, given.parameters
        )
        stack = openstack.Stack(
            stack_id, name, 'CREATE_IN_PROGRESS', '', {}, {}
        )
    elif stack.status.endswith('_FAILED'):
        given = _stack_input(ctx, work)
        marker = heat.last_event(stack.ref)
        heat.update(stack.ref, given.template, given.files, given.parameters)
        action = 'UPDATE'
    elif stack.status.endswith('_IN_PROGRESS'):
        action = stack.status.split('_', 1)[0]
        marker = heat.last_event(stack.ref)
    else:
        action = ''
    work['stack'] = {'id': stack.id, 'name': stack.name}
    if action:
        try:
            heat.wait(stack, action, common.stack_deadline(ctx), marker)
        except openstack.OpenStackError as e:
            raise base.PartialFailure(e.detail, work) from None
    return stack


def instantiate(ctx: base.InfraContext) -> base.InfraResult:
    """Create the instance's stack from the package's HOT and wait for it."""
    work: Obj = dict(ctx.work)
    flavour = scaling.flavour_of(ctx.vnfd, ctx.flavour_id)
    levels = scaling.initial_levels(
        flavour, ctx.request.get('instantiationLevelId')
    )
    with common.heat_for(ctx) as (vim_id, heat):
        images.ensure(ctx, heat.conn, work)
        stack = _create_or_resume(ctx, heat, work)
        info = common.vnf_info(
            ctx,
            heat,
            vim_id,
            stack,
            levels,
            ctx.request.get('extVirtualLinks') or [],
        )
        work['requests'] = heat.conn.counts
    # Which CPs sit on which external VL, for the info of later operations.
    info['metadata']['ext_cpds'] = {
        vl['id']: [c['cpdId'] for c in vl.get('extCps') or []]
        for vl in ctx.request.get('extVirtualLinks') or []
    }
    if work['images']:
        # Terminate releases them.
        info['metadata']['images'] = work['images']
    # Later operations compute their Heat input with the same user data.
    params = ctx.request.get('additionalParams') or {}
    for key in (userdata.USER_DATA, userdata.USER_DATA_CLASS):
        if key in params:
            info['metadata'][key] = params[key]
    return base.InfraResult(
        instantiated_vnf_info=info,
        resource_changes=common.resource_changes({}, info),
        work=work,
    )


def _grace(request: Obj) -> int:
    """Seconds a TerminateVnfRequest waits before the stack goes."""
    if request.get('terminationType') != 'GRACEFUL':
        return 0
    timeout = request.get('gracefulTerminationTimeout')
    if timeout is None:
        return int(CONF.openstack.graceful_termination_timeout)
    return int(timeout)


def delete_stack(ctx: base.InfraContext, heat: openstack.Heat) -> None:
    """Delete the instance's stack (if any) and wait until it is gone."""
    stack = common.stack_ref(heat, ctx)
    if stack is None:
        return
    marker = None
    if not stack.status.startswith('DELETE'):
        marker = heat.last_event(stack.ref)
        heat.delete(stack.ref)
    elif stack.status == 'DELETE_FAILED':
        heat.delete(stack.ref)
    heat.wait(stack, 'DELETE', common.stack_deadline(ctx), marker)


def terminate(ctx: base.InfraContext) -> base.InfraResult:
    """GRACEFUL: wait the request's timeout first; then delete the stack
    and wait until Heat has deleted every resource."""
    grace = _grace(ctx.request)
    if grace:
        # SOL003: the VNF gets this time to stop before its resources go.
        time.sleep(min(grace, ctx.remaining()))
    used = (common.info_of(ctx).get('metadata') or {}).get('images') or {}
    with common.heat_for(ctx) as (_, heat):
        delete_stack(ctx, heat)
        images.release(heat.conn, ctx.vnf_instance['id'], used)
        counts = heat.conn.counts
    return base.InfraResult(
        resource_changes=common.resource_changes(common.info_of(ctx), {}),
        work={'requests': counts},
    )


def rollback_instantiate(ctx: base.InfraContext) -> base.InfraResult:
    """Delete the stack a failed instantiate created (if any)."""
    with common.heat_for(ctx) as (_, heat):
        delete_stack(ctx, heat)
        images.release(
            heat.conn, ctx.vnf_instance['id'], ctx.work.get('images') or {}
        )
    return base.InfraResult(work=dict(ctx.work, rolled_back=True))
