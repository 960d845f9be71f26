"""Heal: the servers of the chosen VNFCs (every VNFC when the request names
none) are marked unhealthy, then one stack update replaces them. Their
VNFC ids stay (they follow the place in the stack, see ``info``) and their
volumes, separate resources, are kept."""

from __future__ import annotations

from vnfm.clients import openstack
from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack import common
from vnfm.drivers.infra.openstack import stackupdate
from vnfm.drivers.infra.openstack import userdata


def _targets(ctx: base.InfraContext) -> list[dict]:
    return base.heal_targets(
        common.info_of(ctx), list(ctx.request.get('vnfcInstanceId') or [])
    )


def _prepare(
    ctx: base.InfraContext, heat: openstack.Heat, given: userdata.StackInput
) -> None:
    """Mark the servers to replace unhealthy."""
    for vnfc in _targets(ctx):
        meta = vnfc.get('metadata') or {}
        heat.mark_unhealthy(
            meta['stack_id'], meta['resource_name'], 'vnfm: healed'
        )


def heal(ctx: base.InfraContext) -> base.InfraResult:
    """Replace the servers of the chosen VNFCs by one stack update."""
    modified = {v['id'] for v in _targets(ctx)}
    return stackupdate.update(
        ctx,
        'heal',
        common.levels_of(common.info_of(ctx)),
        _prepare,
        modified,
    )
