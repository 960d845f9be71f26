"""Heal VNF (SOL003 5.4.9)."""

from __future__ import annotations

from vnfm.drivers.infra import base as infra_base
from vnfm.lcm.operation import Operation
from vnfm.lcm.operation import Outcome
from vnfm.lcm.run import OpRun
from vnfm.objects.states import LcmOperation


class Heal(Operation):
    """Heal VNFCs (all of them when the request names none).

    SOL003 defines no rollback of a heal: rolling it back fails with a detail
    saying to retry or fail it.
    """

    operation = LcmOperation.HEAL.value
    hook_op = 'heal'
    infra_method = 'heal'

    def call_infra(
        self, infra: infra_base.InfraDriver, ctx: infra_base.InfraContext
    ) -> infra_base.InfraResult:
        """InfraDriver.heal."""
        return infra.heal(ctx)

    def outcome(
        self, run: OpRun, result: infra_base.InfraResult | None
    ) -> Outcome:
        """The driver's instantiatedVnfInfo when it returned one (healed
        VNFCs may have new resource ids)."""
        assert result is not None  # needs_infra
        values = {}
        if result.instantiated_vnf_info is not None:
            values['instantiated_vnf_info'] = result.instantiated_vnf_info
        return Outcome(
            instance_values=values, resource_changes=result.resource_changes
        )
