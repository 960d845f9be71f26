"""Scale VNF (SOL003 5.4.5)."""

from __future__ import annotations

from vnfm.drivers.infra import base as infra_base
from vnfm.lcm.operation import Operation
from vnfm.lcm.operation import Outcome
from vnfm.lcm.operation import with_hook_changes
from vnfm.lcm.run import OpRun
from vnfm.objects.states import LcmOperation


class Scale(Operation):
    """Scale one aspect out or in by numberOfSteps."""

    operation = LcmOperation.SCALE.value
    hook_op = 'scale'
    infra_method = 'scale'

    def call_infra(
        self, infra: infra_base.InfraDriver, ctx: infra_base.InfraContext
    ) -> infra_base.InfraResult:
        """InfraDriver.scale."""
        return infra.scale(ctx)

    def call_infra_rollback(
        self, infra: infra_base.InfraDriver, ctx: infra_base.InfraContext
    ) -> infra_base.InfraResult:
        """InfraDriver.rollback_scale."""
        return infra.rollback_scale(ctx)

    def outcome(
        self, run: OpRun, result: infra_base.InfraResult | None
    ) -> Outcome:
        """The driver's new instantiatedVnfInfo."""
        assert result is not None  # needs_infra
        values = {}
        if result.instantiated_vnf_info is not None:
            values['instantiated_vnf_info'] = result.instantiated_vnf_info
        return Outcome(
            instance_values=values, resource_changes=result.resource_changes
        )

    def rollback(self, run: OpRun) -> Outcome:
        """Undo a scale-out (the driver removes what it added); the
        instance record was never changed, so only what rollback hooks
        return is applied."""
        self.rollback_infra(run)
        undone = run.rollback_hooks(['scale_start', 'scale_end'])
        return with_hook_changes(run, Outcome(), undone)
