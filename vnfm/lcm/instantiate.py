"""Instantiate VNF (SOL003 5.4.4)."""

from __future__ import annotations

import dataclasses

from vnfm.drivers.infra import base as infra_base
from vnfm.lcm import merge
from vnfm.lcm.operation import Operation
from vnfm.lcm.operation import Outcome
from vnfm.lcm.operation import with_hook_changes
from vnfm.lcm.run import OpRun
from vnfm.objects.states import InstantiationState
from vnfm.objects.states import LcmOperation


class Instantiate(Operation):
    """Create the VNF's resources; the instance becomes INSTANTIATED."""

    operation = LcmOperation.INSTANTIATE.value
    hook_op = 'instantiate'
    infra_method = 'instantiate'

    def call_infra(
        self, infra: infra_base.InfraDriver, ctx: infra_base.InfraContext
    ) -> infra_base.InfraResult:
        """InfraDriver.instantiate."""
        return infra.instantiate(ctx)

    def call_infra_rollback(
        self, infra: infra_base.InfraDriver, ctx: infra_base.InfraContext
    ) -> infra_base.InfraResult:
        """InfraDriver.rollback_instantiate."""
        return infra.rollback_instantiate(ctx)

    def outcome(
        self, run: OpRun, result: infra_base.InfraResult | None
    ) -> Outcome:
        """INSTANTIATED with the driver's instantiatedVnfInfo and the
        request's vimConnectionInfo, extensions, vnfConfigurableProperties
        merged into the instance's."""
        assert result is not None  # needs_infra
        values = {
            'instantiation_state': InstantiationState.INSTANTIATED.value,
            'instantiated_vnf_info': result.instantiated_vnf_info,
            'vim_connection_info': run.stored_vim_connection_info,
            **merge.request_properties(run.instance, run.request),
        }
        return Outcome(
            instance_values=values, resource_changes=result.resource_changes
        )

    def rollback(self, run: OpRun) -> Outcome:
        """Delete what the infra driver created; NOT_INSTANTIATED again."""
        self.rollback_infra(run)
        undone = run.rollback_hooks(['instantiate_start', 'instantiate_end'])
        outcome = with_hook_changes(run, Outcome(), undone)
        # A NOT_INSTANTIATED instance has no instantiatedVnfInfo, whatever
        # a rollback hook returned.
        values = dict(
            outcome.instance_values or {},
            instantiation_state=(InstantiationState.NOT_INSTANTIATED.value),
            instantiated_vnf_info=None,
        )
        return dataclasses.replace(outcome, instance_values=values)
