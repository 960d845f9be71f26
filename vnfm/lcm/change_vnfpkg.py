"""Change current VNF package (SOL003 5.4.11a)."""

from __future__ import annotations

from vnfm.drivers.infra import base as infra_base
from vnfm.lcm import package_usage
from vnfm.lcm.operation import Operation
from vnfm.lcm.operation import Outcome
from vnfm.lcm.operation import with_hook_changes
from vnfm.lcm.run import OpRun
from vnfm.objects.states import LcmOperation


class ChangeVnfpkg(Operation):
    """Move an instantiated VNF to the package of the request's vnfdId.

    ``change_current_package_start`` runs from the source package,
    ``change_current_package_end`` from the target package.
    """

    operation = LcmOperation.CHANGE_VNFPKG.value
    hook_op = 'change_current_package'
    infra_method = 'change_vnfpkg'

    def call_infra(
        self, infra: infra_base.InfraDriver, ctx: infra_base.InfraContext
    ) -> infra_base.InfraResult:
        """InfraDriver.change_vnfpkg."""
        return infra.change_vnfpkg(ctx)

    def call_infra_rollback(
        self, infra: infra_base.InfraDriver, ctx: infra_base.InfraContext
    ) -> infra_base.InfraResult:
        """InfraDriver.rollback_change_vnfpkg."""
        return infra.rollback_change_vnfpkg(ctx)

    def run_end_hook(
        self, run: OpRun, result: infra_base.InfraResult | None
    ) -> None:
        """The end hook comes from the target package."""
        run.run_hook(f'{self.hook_op}_end', target=True)

    def outcome(
        self, run: OpRun, result: infra_base.InfraResult | None
    ) -> Outcome:
        """The target package's identity and the new instantiatedVnfInfo."""
        assert result is not None and run.target_package is not None
        values = package_usage.identity_of(run.target_package)
        values['vim_connection_info'] = run.stored_vim_connection_info
        if result.instantiated_vnf_info is not None:
            values['instantiated_vnf_info'] = result.instantiated_vnf_info
        return Outcome(
            instance_values=values, resource_changes=result.resource_changes
        )

    def after_commit(self, run: OpRun) -> None:
        """Usage states of the source and target packages."""
        package_usage.refresh(
            [
                run.package['id'],
                run.target_package and run.target_package['id'],
            ]
        )

    def rollback(self, run: OpRun) -> Outcome:
        """Return the VNF to the source package (the driver undoes what it
        changed); the instance record was never changed, so only what
        rollback hooks return is applied."""
        result = self.rollback_infra(run)
        undone = run.rollback_hooks(
            [f'{self.hook_op}_start', f'{self.hook_op}_end']
        )
        return with_hook_changes(
            run, self.rolled_back_outcome(run, result), undone
        )
