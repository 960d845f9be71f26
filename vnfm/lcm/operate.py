"""Operate VNF (SOL003 5.4.10): start or stop the VNFCs of an instance;
``instantiatedVnfInfo.vnfState`` follows."""

from __future__ import annotations

from vnfm.drivers.infra import base as infra_base
from vnfm.lcm.operation import Operation
from vnfm.lcm.operation import Outcome
from vnfm.lcm.operation import with_hook_changes
from vnfm.lcm.run import OpRun
from vnfm.objects.states import LcmOperation


class Operate(Operation):
    """changeStateTo STARTED or STOPPED, between operate_start/_end."""

    operation = LcmOperation.OPERATE.value
    hook_op = 'operate'
    infra_method = 'operate'

    def call_infra(
        self, infra: infra_base.InfraDriver, ctx: infra_base.InfraContext
    ) -> infra_base.InfraResult:
        """InfraDriver.operate."""
        return infra.operate(ctx)

    def call_infra_rollback(
        self, infra: infra_base.InfraDriver, ctx: infra_base.InfraContext
    ) -> infra_base.InfraResult:
        """InfraDriver.rollback_operate."""
        return infra.rollback_operate(ctx)

    def outcome(
        self, run: OpRun, result: infra_base.InfraResult | None
    ) -> Outcome:
        """The driver's new instantiatedVnfInfo (with the vnfState)."""
        assert result is not None  # needs_infra
        info = result.instantiated_vnf_info
        if info is None:
            info = dict(run.instance.get('instantiated_vnf_info') or {})
        info = dict(info, vnfState=run.request['changeStateTo'])
        return Outcome(
            instance_values={'instantiated_vnf_info': info},
            resource_changes=result.resource_changes,
        )

    def rollback(self, run: OpRun) -> Outcome:
        """Return the VNFCs to their state before (the instance record was
        never changed), then undo the hooks that ran."""
        self.rollback_infra(run)
        undone = run.rollback_hooks(['operate_start', 'operate_end'])
        return with_hook_changes(run, Outcome(), undone)
