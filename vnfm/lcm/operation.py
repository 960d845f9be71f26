"""The shape every LCM operation shares: grant, ``<op>_start`` hook, the
infra driver call, ``<op>_end`` hook, then the instance changes that are
committed with the op's final state in one transaction."""

from __future__ import annotations

import dataclasses
from typing import Any

from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.drivers.infra import base as infra_base
from vnfm.lcm import cancel
from vnfm.lcm import grant
from vnfm.lcm import merge
from vnfm.lcm import vims
from vnfm.lcm.run import OpRun
from vnfm.objects import vnf_instance as instance_view

INFRA_STEP = 'infra'
# Hook change keys -> instance columns (see vnfm.drivers.mgmt.base).
_HOOK_COLUMNS = {
    'instantiatedVnfInfo': 'instantiated_vnf_info',
    'metadata': 'metadata',
    'extensions': 'extensions',
    'vnfConfigurableProperties': 'vnf_configurable_properties',
    'vimConnectionInfo': 'vim_connection_info',
}


@dataclasses.dataclass
class Outcome:
    """What an operation changes when it ends."""

    instance_values: dict[str, Any] | None = None
    resource_changes: dict[str, Any] | None = None
    changed_info: dict[str, Any] | None = None
    # VIM rows to write (None: delete), by id; see ``vnfm.lcm.vims``.
    vims: dict[str, dict | None] | None = None
    changed_ext_connectivity: list[dict[str, Any]] | None = None


class Operation:
    """One LCM operation. Subclasses set the names and the changes."""

    operation = ''
    hook_op = ''  # hooks are <hook_op>_start / <hook_op>_end
    # The InfraDriver method ``call_infra`` calls (named in its errors);
    # '' for an operation without one.
    infra_method = ''
    needs_grant = True

    @property
    def needs_infra(self) -> bool:
        """Whether the op calls an infra driver."""
        return bool(self.infra_method)

    def forward(self, run: OpRun) -> Outcome:
        """Run the operation (again, on retry: finished steps are kept)."""
        if self.needs_grant:
            grant.grant(run)
        run.run_hook(f'{self.hook_op}_start')
        result = self.infra_step(run) if self.needs_infra else None
        self.run_end_hook(run, result)
        outcome = self.outcome(run, result)
        return with_hook_changes(run, outcome)

    def run_end_hook(
        self, run: OpRun, result: infra_base.InfraResult | None
    ) -> None:
        """The ``<op>_end`` hook (subclasses choose its package); it sees
        the instance with the instantiatedVnfInfo the infra driver left."""
        instance = None
        if result is not None and result.instantiated_vnf_info is not None:
            instance = dict(
                run.instance,
                instantiation_state='INSTANTIATED',
                instantiated_vnf_info=result.instantiated_vnf_info,
            )
        run.run_hook(f'{self.hook_op}_end', instance=instance)

    def outcome(
        self, run: OpRun, result: infra_base.InfraResult | None
    ) -> Outcome:
        """The changes of a successful run."""
        raise NotImplementedError

    def after_commit(self, run: OpRun) -> None:
        """Work done after the op's commit (default: none)."""

    def rollback(self, run: OpRun) -> Outcome:
        """Undo a failed run; default: SOL003 defines no rollback."""
        raise exceptions.OperationFailed(
            f'Rollback of {self.operation} is not defined by SOL003; retry '
            'the operation to finish it, or fail it.'
        )

    def infra_context(
        self, run: OpRun, **kwargs: Any
    ) -> infra_base.InfraContext:
        """The InfraContext of this run."""
        step = run.steps().get(INFRA_STEP, {})
        work = (step.get('result') or {}).get('work') or step.get('work')
        return infra_base.InfraContext(
            operation=run.op['operation'],
            vnf_instance=instance_view.to_sol(run.instance),
            request=run.request,
            vnfd=run.vnfd,
            flavour_id=run.flavour_id,
            vim_connection_info=run.vim_connection_info,
            package=run.files,
            deadline=run.deadline,
            work=work or {},
            target_vnfd=run.target_vnfd,
            target_package=run.target_files,
            op_id=run.op['id'],
            **kwargs,
        )

    def call_infra(
        self, infra: infra_base.InfraDriver, ctx: infra_base.InfraContext
    ) -> infra_base.InfraResult:
        """The operation's infra driver call (``infra_method``)."""
        raise NotImplementedError

    def call_infra_rollback(
        self, infra: infra_base.InfraDriver, ctx: infra_base.InfraContext
    ) -> infra_base.InfraResult:
        """The infra driver call that undoes ``call_infra``."""
        raise NotImplementedError

    def infra_step(self, run: OpRun) -> infra_base.InfraResult:
        """Call the infra driver once (skipped on retry when done)."""
        infra = run.infra
        assert infra is not None  # selected for every op that needs_infra

        def call() -> dict:
            ctx = self.infra_context(run)
            try:
                return self.call_infra(infra, ctx).to_dict()
            except infra_base.PartialFailure as e:
                run.steps()[INFRA_STEP]['work'] = e.work
                raise

        result = run.step(INFRA_STEP, _named(self.infra_method, call))
        return infra_base.InfraResult.from_dict(result or {})

    def rollback_infra(self, run: OpRun) -> infra_base.InfraResult | None:
        """Undo the infra step (``call_infra_rollback``) if it ever
        started; what the driver returned."""
        if run.step_state(INFRA_STEP) is None:
            return None
        cancel.check(run.op['id'], f'before rollback_{self.infra_method}')
        assert run.infra is not None  # the infra step started
        return self.call_infra_rollback(run.infra, self.infra_context(run))

    def rolled_back_outcome(
        self, run: OpRun, result: infra_base.InfraResult | None
    ) -> Outcome:
        """The instantiatedVnfInfo the driver's rollback left (its VNFCs
        may be new resources, e.g. Pods a rollback recreated); nothing
        when the driver gave none."""
        if result is None or result.instantiated_vnf_info is None:
            return Outcome()
        info = dict(
            result.instantiated_vnf_info,
            flavourId=(run.instance.get('instantiated_vnf_info') or {}).get(
                'flavourId'
            )
            or result.instantiated_vnf_info.get('flavourId'),
        )
        return Outcome(instance_values={'instantiated_vnf_info': info})


def _named(method: str, call: Any) -> Any:
    """Prefix infra errors with the step, so the op's error says where."""

    def wrapped() -> dict:
        try:
            return call()
        except exceptions.VnfmError as e:
            if not e.detail.startswith('infra driver'):
                e.detail = f'infra driver {method}: {e.detail}'
                e.args = (e.detail,)
            raise

    return wrapped


def with_hook_changes(
    run: OpRun, outcome: Outcome, hook_changes: list[dict] | None = None
) -> Outcome:
    """The outcome with the hooks' changes merged in: those of the hooks
    that ran forward, or ``hook_changes`` (what rollback hooks returned)."""
    values = dict(outcome.instance_values or {})
    resources = dict(outcome.resource_changes or {})
    if hook_changes is None:
        hook_changes = run.hook_changes()
    for changes in hook_changes:
        for key, column in _HOOK_COLUMNS.items():
            if key in changes:
                current = values.get(column, run.instance.get(column))
                values[column] = _merged(column, current, changes[key])
        for key, items in (changes.get('resourceChanges') or {}).items():
            resources[key] = list(resources.get(key, [])) + list(items)
    registry = vims.rows(
        vims.collect(hook_changes), run.instance.get('project_id')
    )
    return dataclasses.replace(
        outcome,
        instance_values=values or outcome.instance_values,
        resource_changes=resources or None,
        vims={**(outcome.vims or {}), **registry} or None,
    )


def _merged(column: str, current: object, patch: object) -> object:
    """``patch`` merged into a column; vimConnectionInfo secrets a hook
    returns in clear are sealed before they are stored."""
    if column != 'vim_connection_info':
        return merge.merge_patch(current, patch)
    return crypto.seal_vim_connection_info(
        merge.merge_patch(crypto.unseal_vim_connection_info(current), patch)
    )
