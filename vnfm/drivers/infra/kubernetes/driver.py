"""KubernetesInfraDriver: CNFs on a VIM of type ETSINFV.KUBERNETES.V_1.

Requests: ``additionalParams.lcm-kubernetes-def-files`` (manifest paths in the
package) and optional ``additionalParams.namespace``; see ``resources``. Every
object is labelled ``vnfm.io/vnf-instance-id=<id>`` (VDU workloads and their
Pod templates also ``vnfm.io/vdu-id=<VDU>``); instantiatedVnfInfo.metadata
records what was deployed so later operations find it.
"""

from __future__ import annotations

from typing import Any

from vnfm.drivers.infra import base
from vnfm.drivers.infra.kubernetes import change
from vnfm.drivers.infra.kubernetes import flavour
from vnfm.drivers.infra.kubernetes import heal
from vnfm.drivers.infra.kubernetes import lifecycle
from vnfm.drivers.infra.kubernetes import operate
from vnfm.drivers.infra.kubernetes import scale
from vnfm.drivers.infra.kubernetes import sync
from vnfm.objects import infra


class KubernetesInfraDriver(base.InfraDriver):
    """Lifecycle of CNFs through the Kubernetes API."""

    capabilities = infra.KUBERNETES

    def instantiate(self, ctx: base.InfraContext) -> base.InfraResult:
        """Apply the manifests and wait until the VDU workloads are ready."""
        return lifecycle.instantiate(ctx)

    def terminate(self, ctx: base.InfraContext) -> base.InfraResult:
        """Delete every object of the instance, in reverse order."""
        return lifecycle.terminate(ctx)

    def scale(self, ctx: base.InfraContext) -> base.InfraResult:
        """Set the replicas of the aspect's VDUs to the new level's counts."""
        return scale.scale(ctx)

    def heal(self, ctx: base.InfraContext) -> base.InfraResult:
        """Replace the Pods of the chosen VNFCs (all when none is named)."""
        return heal.heal(ctx)

    def change_vnfpkg(self, ctx: base.InfraContext) -> base.InfraResult:
        """Roll the workloads to the target package's manifests."""
        return change.change_vnfpkg(ctx)

    def change_flavour(self, ctx: base.InfraContext) -> base.InfraResult:
        """Apply the target flavour's manifests, delete the source's rest."""
        return flavour.change_flavour(ctx)

    def rollback_change_flavour(
        self, ctx: base.InfraContext
    ) -> base.InfraResult:
        """Apply the source flavour's manifests again."""
        return flavour.rollback_change_flavour(ctx)

    def operate(self, ctx: base.InfraContext) -> base.InfraResult:
        """Scale every VDU workload to zero, or back to its counts."""
        return operate.operate(ctx)

    def rollback_operate(self, ctx: base.InfraContext) -> base.InfraResult:
        """Return the workloads to their state before the operate."""
        return operate.rollback_operate(ctx)

    def rollback_instantiate(self, ctx: base.InfraContext) -> base.InfraResult:
        """Delete what the failed instantiate created."""
        return lifecycle.rollback_instantiate(ctx)

    def rollback_scale(self, ctx: base.InfraContext) -> base.InfraResult:
        """Restore the instance counts before the failed scale."""
        return scale.rollback_scale(ctx)

    def rollback_change_vnfpkg(
        self, ctx: base.InfraContext
    ) -> base.InfraResult:
        """Apply the source package's manifests again."""
        return change.rollback_change_vnfpkg(ctx)

    def sync(self, ctx: base.SyncContext) -> dict[str, Any] | None:
        """instantiatedVnfInfo following Pods Kubernetes replaced itself."""
        vim_id, vim = ctx.vim_connection()
        return sync.synced_info(
            vim_id,
            vim,
            ctx.vnf_instance['id'],
            ctx.vnf_instance.get('instantiatedVnfInfo') or {},
        )

    def vim_vnfcs(
        self, ctx: base.SyncContext, vdu_ids: set[str]
    ) -> dict[str, list[str]] | None:
        """The live Pods of the instance's VDU workloads."""
        _, vim = ctx.vim_connection()
        return sync.vim_vnfcs(
            vim,
            ctx.vnf_instance['id'],
            ctx.vnf_instance.get('instantiatedVnfInfo') or {},
            vdu_ids,
        )

    def sync_vnfc_resource_info(
        self, vim_id: str, vim: dict[str, Any], instance: dict[str, Any]
    ) -> list[dict[str, Any]]:
        """vnfcResourceInfo following replaced Pods (no op in progress!)."""
        return sync.sync_vnfc_resource_info(
            vim_id,
            vim,
            instance['id'],
            instance.get('instantiatedVnfInfo') or {},
        )
