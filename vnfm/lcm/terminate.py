"""Terminate VNF (SOL003 5.4.8)."""

from __future__ import annotations

from vnfm.drivers.infra import base as infra_base
from vnfm.lcm.operation import Operation
from vnfm.lcm.operation import Outcome
from vnfm.lcm.run import OpRun
from vnfm.objects.states import InstantiationState
from vnfm.objects.states import LcmOperation


class Terminate(Operation):
    """Delete the VNF's resources; the instance is NOT_INSTANTIATED again.

    SOL003 defines no rollback of a termination: rolling it back fails with
    a detail saying to retry or fail it (the default of ``Operation``).
    """

    operation = LcmOperation.TERMINATE.value
    hook_op = 'terminate'
    infra_method = 'terminate'

    def call_infra(
        self, infra: infra_base.InfraDriver, ctx: infra_base.InfraContext
    ) -> infra_base.InfraResult:
        """InfraDriver.terminate."""
        return infra.terminate(ctx)

    def outcome(
        self, run: OpRun, result: infra_base.InfraResult | None
    ) -> Outcome:
        """NOT_INSTANTIATED, no instantiatedVnfInfo; vimConnectionInfo is
        kept for a later instantiation."""
        return Outcome(
            instance_values={
                'instantiation_state': (
                    InstantiationState.NOT_INSTANTIATED.value
                ),
                'instantiated_vnf_info': None,
            },
            resource_changes=result.resource_changes if result else None,
        )
