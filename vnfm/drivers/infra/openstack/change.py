"""Change current VNF package: a stack update to the target package's HOT,
its images and flavours (for the VDUs ``vdu_params`` names, every VDU when
it names none; ``userdata`` computes the input), and back on rollback."""

from __future__ import annotations

from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack import common
from vnfm.drivers.infra.openstack import stackupdate


def change_vnfpkg(ctx: base.InfraContext) -> base.InfraResult:
    """Update the stack to the target package."""
    levels = common.levels_of(common.info_of(ctx))
    return stackupdate.update(ctx, 'change_vnfpkg', levels)


def rollback_change_vnfpkg(ctx: base.InfraContext) -> base.InfraResult:
    """Update the stack back to the source package."""
    levels = common.levels_of(common.info_of(ctx))
    return stackupdate.update(
        ctx,
        'change_vnfpkg_rollback',
        levels,
        source_vnfd=True,
        restore=True,
    )
