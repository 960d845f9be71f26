"""Change VNF flavour (SOL003 5.4.7): move an instantiated VNF to another
deployment flavour of the same VNFD.

``change_flavour_start`` is the source flavour's hook, ``change_flavour_end``
the target flavour's (each flavour's VNF node declares its own). The
instance record changes only when the op completes, so rollback needs only
the infra driver's and the hooks' undoing.
"""

from __future__ import annotations

from vnfm.drivers.infra import base as infra_base
from vnfm.lcm import merge
from vnfm.lcm.operation import Operation
from vnfm.lcm.operation import Outcome
from vnfm.lcm.operation import with_hook_changes
from vnfm.lcm.run import OpRun
from vnfm.objects.states import LcmOperation


class ChangeFlavour(Operation):
    """newFlavourId (at instantiationLevelId) between change_flavour_start
    and change_flavour_end."""

    operation = LcmOperation.CHANGE_FLAVOUR.value
    hook_op = 'change_flavour'
    infra_method = 'change_flavour'

    def call_infra(
        self, infra: infra_base.InfraDriver, ctx: infra_base.InfraContext
    ) -> infra_base.InfraResult:
        """InfraDriver.change_flavour."""
        return infra.change_flavour(ctx)

    def call_infra_rollback(
        self, infra: infra_base.InfraDriver, ctx: infra_base.InfraContext
    ) -> infra_base.InfraResult:
        """InfraDriver.rollback_change_flavour."""
        return infra.rollback_change_flavour(ctx)

    def run_end_hook(
        self, run: OpRun, result: infra_base.InfraResult | None
    ) -> None:
        """The end hook comes from the target flavour."""
        run.run_hook(
            f'{self.hook_op}_end', flavour_id=run.request['newFlavourId']
        )

    def outcome(
        self, run: OpRun, result: infra_base.InfraResult | None
    ) -> Outcome:
        """The driver's instantiatedVnfInfo (with the new flavourId); the
        request's vimConnectionInfo, extensions, vnfConfigurableProperties
        merged into the instance's."""
        assert result is not None  # needs_infra
        info = dict(
            result.instantiated_vnf_info
            or run.instance.get('instantiated_vnf_info')
            or {},
            flavourId=run.request['newFlavourId'],
        )
        return Outcome(
            instance_values={
                'instantiated_vnf_info': info,
                'vim_connection_info': run.stored_vim_connection_info,
                **merge.request_properties(run.instance, run.request),
            },
            resource_changes=result.resource_changes,
        )

    def rollback(self, run: OpRun) -> Outcome:
        """Return the VNF to the source flavour, then undo the hooks that
        ran."""
        result = self.rollback_infra(run)
        undone = run.rollback_hooks(
            [f'{self.hook_op}_start', f'{self.hook_op}_end']
        )
        return with_hook_changes(
            run, self.rolled_back_outcome(run, result), undone
        )
