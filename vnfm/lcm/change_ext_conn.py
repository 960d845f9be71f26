"""Change external VNF connectivity (SOL003 5.4.11): put the VNF's
external CPs on the networks of the request's extVirtualLinks.

Between ``change_external_connectivity_start`` and ``_end`` (Tacker's
hook names). The instance record changes only when the op completes
(its extVirtualLinkInfo from the driver, the request's
vimConnectionInfo merged), so rollback needs only the infra driver's and
the hooks' undoing.
"""

from __future__ import annotations

from vnfm.drivers.infra import base as infra_base
from vnfm.lcm.operation import Operation
from vnfm.lcm.operation import Outcome
from vnfm.lcm.operation import with_hook_changes
from vnfm.lcm.run import OpRun
from vnfm.objects.states import LcmOperation


class ChangeExtConn(Operation):
    """extVirtualLinks between change_external_connectivity_start/_end."""

    operation = LcmOperation.CHANGE_EXT_CONN.value
    hook_op = 'change_external_connectivity'
    infra_method = 'change_ext_conn'

    def call_infra(
        self, infra: infra_base.InfraDriver, ctx: infra_base.InfraContext
    ) -> infra_base.InfraResult:
        """InfraDriver.change_ext_conn."""
        return infra.change_ext_conn(ctx)

    def call_infra_rollback(
        self, infra: infra_base.InfraDriver, ctx: infra_base.InfraContext
    ) -> infra_base.InfraResult:
        """InfraDriver.rollback_change_ext_conn."""
        return infra.rollback_change_ext_conn(ctx)

    def outcome(
        self, run: OpRun, result: infra_base.InfraResult | None
    ) -> Outcome:
        """The driver's instantiatedVnfInfo; changedExtConnectivity = the
        extVirtualLinkInfo of the links the request names."""
        assert result is not None  # needs_infra
        info = result.instantiated_vnf_info or dict(
            run.instance.get('instantiated_vnf_info') or {}
        )
        named = {vl['id'] for vl in run.request['extVirtualLinks']}
        return Outcome(
            instance_values={
                'instantiated_vnf_info': info,
                'vim_connection_info': run.stored_vim_connection_info,
            },
            resource_changes=result.resource_changes,
            changed_ext_connectivity=[
                vl
                for vl in info.get('extVirtualLinkInfo') or []
                if vl.get('id') in named
            ],
        )

    def rollback(self, run: OpRun) -> Outcome:
        """Put the CPs back on their old networks, then undo the hooks
        that ran."""
        result = self.rollback_infra(run)
        undone = run.rollback_hooks(
            [f'{self.hook_op}_start', f'{self.hook_op}_end']
        )
        return with_hook_changes(
            run, self.rolled_back_outcome(run, result), undone
        )
