"""Scale out and in by aspect: a stack update whose ``nfv`` parameter
carries the new ``desired_capacity`` of the aspect's VDUs.

Heat's AutoScalingGroup removes its failed members first and otherwise its
oldest, so a scale-in first marks the members to remove unhealthy: the
VNFCs ``additionalParams.vnfcInstanceIds`` names (vnfcInfo or
vnfcResourceInfo ids), else the newest of each VDU, as Tacker's v2 driver
does.
"""

from __future__ import annotations

import collections
from typing import Any

from vnfm.clients import openstack
from vnfm.common import exceptions
from vnfm.drivers import scaling
from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack import capacity
from vnfm.drivers.infra.openstack import common
from vnfm.drivers.infra.openstack import scalable
from vnfm.drivers.infra.openstack import stackupdate
from vnfm.drivers.infra.openstack import standard
from vnfm.drivers.infra.openstack import userdata

Obj = dict[str, Any]
REMOVE = 'vnfcInstanceIds'


def _counts(given: userdata.StackInput) -> dict[str, int]:
    vdus = (given.parameters.get('nfv') or {}).get('VDU') or {}
    return {
        v: int(p['desired_capacity'])
        for v, p in vdus.items()
        if isinstance(p, dict) and 'desired_capacity' in p
    }


def _prepare(
    ctx: base.InfraContext, heat: openstack.Heat, given: userdata.StackInput
) -> None:
    """Before a scale-in: mark the group members to remove unhealthy."""
    if ctx.request.get('type') == 'SCALE_IN':
        named = (ctx.request.get('additionalParams') or {}).get(REMOVE)
        info = common.info_of(ctx)
        _mark(
            heat,
            scaling.scale_in_victims(info, _counts(given), list(named or [])),
        )


def _mark(heat: openstack.Heat, vnfcs: list[Obj]) -> None:
    for vnfc in vnfcs:
        meta = vnfc.get('metadata') or {}
        if not meta.get('parent_stack_id'):
            raise exceptions.OperationFailed(
                f'VNFC {vnfc["id"]} of VDU {vnfc["vduId"]} is not a member '
                'of an AutoScalingGroup; it cannot be scaled in.'
            )
        heat.mark_unhealthy(
            meta['parent_stack_id'],
            meta['parent_resource_name'],
            'vnfm: removed by scale-in',
        )


def scale(ctx: base.InfraContext) -> base.InfraResult:
    """Set the aspect's VDUs to the new level's counts (refused before
    anything runs when the built-in Heat input cannot scale them)."""
    if userdata.user_data(ctx, 'scale') is None:
        scalable.check(ctx)
    flavour = scaling.flavour_of(ctx.vnfd, ctx.flavour_id)
    info = common.info_of(ctx)
    levels = scaling.scaled_levels(
        flavour, common.levels_of(info), ctx.request
    )
    result = stackupdate.update(ctx, 'scale', levels, _prepare)
    _check_counts(ctx, result)
    return result


def _check_counts(ctx: base.InfraContext, result: base.InfraResult) -> None:
    """PartialFailure (the op goes FAILED_TEMP) naming each VDU whose
    VNFCs in the stack are not as many as the scale asked for."""
    flavour = standard.flavour_of(ctx.vnfd, ctx.flavour_id)
    wanted = capacity.scaled(flavour, ctx.vnf_instance, ctx.request)
    info = result.instantiated_vnf_info or {}
    have = collections.Counter(
        r['vduId'] for r in info.get('vnfcResourceInfo') or []
    )
    wrong = [
        f'VDU {vdu} has {have[vdu]} VNFCs, not {count}'
        for vdu, count in sorted(wanted.items())
        if have[vdu] != count
    ]
    if wrong:
        raise base.PartialFailure(
            'The stack update finished but the scale did not happen: '
            + '; '.join(wrong)
            + '. Retry, roll back or fail the operation.',
            result.work,
        )


def rollback_scale(ctx: base.InfraContext) -> base.InfraResult:
    """Return the aspect's VDUs to the counts before the failed scale."""
    return stackupdate.update(
        ctx, 'scale_rollback', common.levels_of(common.info_of(ctx))
    )
