"""Scale VNF to Level (SOL003 5.4.6), built on Scale VNF: the steps per
aspect are computed from the VNFD, then each runs as the infra driver's
scale, in one op occurrence. Each aspect's scale is a step of its own, so
a retry skips the aspects done and a rollback undoes them latest first."""

from __future__ import annotations

import dataclasses
from typing import Any

from vnfm.common import exceptions
from vnfm.db import rows
from vnfm.drivers.infra import base as infra_base
from vnfm.lcm import cancel
from vnfm.lcm.operation import Outcome
from vnfm.lcm.operation import with_hook_changes
from vnfm.lcm.run import OpRun
from vnfm.lcm.scale import Scale
from vnfm.objects import scale_level
from vnfm.objects.states import LcmOperation

STEP_PREFIX = 'infra:scale:'


class ScaleToLevel(Scale):
    """Scale every aspect to the level asked (by instantiationLevelId or
    scaleInfo); the scale hooks run around it."""

    operation = LcmOperation.SCALE_TO_LEVEL.value

    def infra_step(self, run: OpRun) -> infra_base.InfraResult:
        """One infra scale per aspect that changes, in the order
        ``scale_level.steps`` gives."""
        info = dict(run.instance.get('instantiated_vnf_info') or {})
        current = scale_level.current_levels(info)
        requests = scale_level.steps(current, _target(run, current))
        instance = run.instance
        changes: dict[str, list] = {}
        for request in requests:
            ctx = self._aspect_context(run, instance, request)
            name = STEP_PREFIX + request['aspectId']
            result = infra_base.InfraResult.from_dict(
                run.step(name, _scale_call(run, name, ctx), request=request)
                or {}
            )
            if result.instantiated_vnf_info is not None:
                instance = instance.copy()
                instance['instantiated_vnf_info'] = (
                    result.instantiated_vnf_info
                )
            for key, items in (result.resource_changes or {}).items():
                changes[key] = changes.get(key, []) + list(items)
        return infra_base.InfraResult(
            instantiated_vnf_info=instance.get('instantiated_vnf_info'),
            resource_changes=changes or None,
        )

    def _aspect_context(
        self, run: OpRun, instance: rows.InstanceRow, request: dict
    ) -> infra_base.InfraContext:
        name = STEP_PREFIX + request['aspectId']
        step = run.steps().get(name, {})
        work = (step.get('result') or {}).get('work') or step.get('work')
        ctx = self.infra_context(run)
        # The driver sees the instance as the earlier aspects left it.
        view = dict(
            ctx.vnf_instance,
            instantiatedVnfInfo=instance.get('instantiated_vnf_info'),
        )
        return dataclasses.replace(
            ctx,
            vnf_instance=view,
            work=work or {},
            request=dict(
                request,
                additionalParams=run.request.get('additionalParams') or {},
            ),
        )

    def rollback(self, run: OpRun) -> Outcome:
        """Undo each aspect's scale that started, latest first; the
        instance record was never changed."""
        started = [
            (name, s)
            for name, s in run.steps().items()
            if name.startswith(STEP_PREFIX)
        ]
        for name, step in reversed(started):
            cancel.check(run.op['id'], f'before rolling back {name}')
            ctx = self._aspect_context(run, run.instance, step['request'])
            assert run.infra is not None  # scale needs an infra driver
            run.infra.rollback_scale(ctx)
        undone = run.rollback_hooks(['scale_start', 'scale_end'])
        return with_hook_changes(run, Outcome(), undone)


def _scale_call(run: OpRun, name: str, ctx: infra_base.InfraContext) -> Any:
    """The infra scale of one aspect; a partial failure's work is kept in
    the step for rollback."""

    def call() -> dict:
        assert run.infra is not None  # scale needs an infra driver
        try:
            return run.infra.scale(ctx).to_dict()
        except infra_base.PartialFailure as e:
            run.steps()[name]['work'] = e.work
            raise

    return call


def _target(run: OpRun, current: dict[str, int]) -> dict[str, Any]:
    """The target levels; OperationFailed if the VNFD does not allow them
    (the API checked already, unless the package changed meanwhile)."""
    flavour = (run.vnfd.get('flavours') or {}).get(run.flavour_id or '')
    if flavour is None:
        raise exceptions.OperationFailed(
            f'Flavour {run.flavour_id} is not in the VNFD of the instance.'
        )
    try:
        return scale_level.target_levels(flavour, current, run.request)
    except scale_level.LevelError as e:
        raise exceptions.OperationFailed(e.detail) from None
