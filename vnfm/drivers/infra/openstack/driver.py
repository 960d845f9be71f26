"""OpenStackInfraDriver: VM-based VNFs on a VIM of type
ETSINFV.OPENSTACK_KEYSTONE.V_3, through one Heat stack per instance.

The package is laid out as for Tacker's v2 OpenStack driver (``BaseHOT/
<flavour>/`` top template and ``nested/``, one ``nfv`` parameter);
``userdata`` computes the stack's input, ``info`` reads
instantiatedVnfInfo back from the stack's resources.
"""

from __future__ import annotations

from typing import Any

from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack import change
from vnfm.drivers.infra.openstack import extconn
from vnfm.drivers.infra.openstack import flavour
from vnfm.drivers.infra.openstack import heal
from vnfm.drivers.infra.openstack import lifecycle
from vnfm.drivers.infra.openstack import scale
from vnfm.drivers.infra.openstack import sync
from vnfm.objects import infra


class OpenStackInfraDriver(base.InfraDriver):
    """Lifecycle of VM-based VNFs through Heat."""

    capabilities = infra.OPENSTACK

    def instantiate(self, ctx: base.InfraContext) -> base.InfraResult:
        """Create the instance's stack and wait for CREATE_COMPLETE."""
        return lifecycle.instantiate(ctx)

    def terminate(self, ctx: base.InfraContext) -> base.InfraResult:
        """Delete the instance's stack and wait until it is gone."""
        return lifecycle.terminate(ctx)

    def rollback_instantiate(self, ctx: base.InfraContext) -> base.InfraResult:
        """Delete the stack a failed instantiate left."""
        return lifecycle.rollback_instantiate(ctx)

    def scale(self, ctx: base.InfraContext) -> base.InfraResult:
        """Update the stack to the aspect's new desired capacities."""
        return scale.scale(ctx)

    def heal(self, ctx: base.InfraContext) -> base.InfraResult:
        """Replace the servers of the chosen VNFCs (all when none named)."""
        return heal.heal(ctx)

    def change_vnfpkg(self, ctx: base.InfraContext) -> base.InfraResult:
        """Update the stack to the target package's HOT and images."""
        return change.change_vnfpkg(ctx)

    def rollback_scale(self, ctx: base.InfraContext) -> base.InfraResult:
        """Update the stack back to the counts before the failed scale."""
        return scale.rollback_scale(ctx)

    def rollback_change_vnfpkg(
        self, ctx: base.InfraContext
    ) -> base.InfraResult:
        """Update the stack back to the source package."""
        return change.rollback_change_vnfpkg(ctx)

    def change_flavour(self, ctx: base.InfraContext) -> base.InfraResult:
        """Update the stack to the target flavour's HOT and parameters."""
        return flavour.change_flavour(ctx)

    def rollback_change_flavour(
        self, ctx: base.InfraContext
    ) -> base.InfraResult:
        """Update the stack back to the source flavour."""
        return flavour.rollback_change_flavour(ctx)

    def change_ext_conn(self, ctx: base.InfraContext) -> base.InfraResult:
        """Update the stack to put the request's CPs on new networks."""
        return extconn.change_ext_conn(ctx)

    def rollback_change_ext_conn(
        self, ctx: base.InfraContext
    ) -> base.InfraResult:
        """Update the stack back to the CPs' old networks."""
        return extconn.rollback_change_ext_conn(ctx)

    def sync(self, ctx: base.SyncContext) -> dict[str, Any] | None:
        """instantiatedVnfInfo following servers Heat replaced by itself."""
        return sync.synced_info(ctx)

    def vim_vnfcs(
        self, ctx: base.SyncContext, vdu_ids: set[str]
    ) -> dict[str, list[str]] | None:
        """The servers of the instance's stack, per VDU."""
        return sync.vim_vnfcs(ctx, vdu_ids)
