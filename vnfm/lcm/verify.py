"""The last step before an op is COMPLETED: what vnfm will report must be
what the VIM has.

Two checks on the instantiatedVnfInfo the op leaves:

* its VNFCs per VDU (``computeResource.resourceId``) against the ones the
  infra driver finds on the VIM (servers of the stack, Pods of the
  workloads); a driver whose VIM is vnfm's own record (noop) has none to
  compare;
* its ``scaleStatus`` against its VNFC counts: when a scale or heal keeps
  the flavour, each VDU of a scaling aspect changes by what the VNFD's
  deltas between the old and the new levels say (nothing for a heal).

A mismatch fails the op (FAILED_TEMP) with a detail naming the VDU, so a
scale out that scaled nothing is never COMPLETED.
"""

from __future__ import annotations

from typing import Any

from vnfm.common import exceptions
from vnfm.drivers import scaling
from vnfm.drivers.infra import base as infra_base
from vnfm.lcm.operation import Outcome
from vnfm.lcm.run import OpRun
from vnfm.objects import vnf_instance as instance_view

Obj = dict[str, Any]
# The ops whose VNFC counts follow the aspects' levels.
_COUNTED = frozenset({'SCALE', 'SCALE_TO_LEVEL', 'HEAL'})


class StateMismatch(exceptions.OperationFailed):
    """What the op would report differs from what the VIM has."""

    title = 'VIM State Mismatch'


def check(run: OpRun, outcome: Outcome) -> None:
    """StateMismatch when the instance the op leaves differs from its VIM
    (nothing to check when the op leaves no instantiated VNF)."""
    values = outcome.instance_values or {}
    state = values.get(
        'instantiation_state', run.instance.get('instantiation_state')
    )
    info = values.get(
        'instantiated_vnf_info', run.instance.get('instantiated_vnf_info')
    )
    if state != 'INSTANTIATED' or not info or run.infra is None:
        return
    before = run.instance.get('instantiated_vnf_info') or {}
    if run.op['operation'] in _COUNTED:
        _check_counts(run.vnfd, before, info)
    if info.get('vnfState') != 'STOPPED':
        _check_vim(run, info)


def resource_ids(info: Obj) -> dict[str, list[str]]:
    """VDU id -> the resource ids of its VNFCs in an instantiatedVnfInfo."""
    out: dict[str, list[str]] = {}
    for entry in info.get('vnfcResourceInfo') or []:
        handle = entry.get('computeResource') or {}
        out.setdefault(entry.get('vduId', ''), []).append(
            str(handle.get('resourceId') or '')
        )
    return out


def _check_vim(run: OpRun, info: Obj) -> None:
    assert run.infra is not None
    reported = resource_ids(info)
    flavour = (run.target_vnfd or run.vnfd).get('flavours') or {}
    vdus = set(
        (flavour.get(info.get('flavourId') or '') or {}).get('vdus') or {}
    )
    ctx = infra_base.SyncContext(
        vnf_instance=instance_view.to_sol(
            dict(run.instance, instantiated_vnf_info=info)
        ),
        vim_connection_info=run.vim_connection_info,
        deadline=run.deadline,
    )
    actual = run.infra.vim_vnfcs(ctx, vdus | set(reported))
    if actual is None:
        return
    for vdu in sorted(set(reported) | set(actual)):
        mine, theirs = reported.get(vdu, []), actual.get(vdu, [])
        if sorted(mine) != sorted(theirs):
            raise StateMismatch(
                f'VDU {vdu}: vnfm would report {len(mine)} VNFC(s) '
                f'({_names(mine)}) but the VIM has {len(theirs)} '
                f'({_names(theirs)}); the instance record was not changed.'
            )


def _names(ids: list[str]) -> str:
    return ', '.join(sorted(ids)) or 'none'


def _check_counts(vnfd: Obj, before: Obj, after: Obj) -> None:
    """Each aspect VDU's VNFC count moved as its levels did."""
    if before.get('flavourId') != after.get('flavourId'):
        return
    flavour = (vnfd.get('flavours') or {}).get(after.get('flavourId') or '')
    if not flavour:
        return
    old, new = scaling.levels_of(before), scaling.levels_of(after)
    had, has = _counts(before), _counts(after)
    for vdu in sorted(_aspect_vdus(flavour)):
        wanted = scaling.counts_at(flavour, vdu, new) - scaling.counts_at(
            flavour, vdu, old
        )
        if has.get(vdu, 0) - had.get(vdu, 0) != wanted:
            raise StateMismatch(
                f'VDU {vdu}: scaleStatus went from {_levels(old)} to '
                f'{_levels(new)}, which {_change(wanted)}, but it has '
                f'{has.get(vdu, 0)} VNFC(s), {had.get(vdu, 0)} before: the '
                'infra driver did not produce the scaling (is the VDU in an '
                "AutoScalingGroup whose desired_capacity the package's "
                'templates take from vnfm?); the instance record was not '
                'changed.'
            )


def _aspect_vdus(flavour: Obj) -> set[str]:
    return {
        vdu
        for aspect in (flavour.get('scaling_aspects') or {}).values()
        for vdu, deltas in (aspect.get('vdu_deltas') or {}).items()
        if deltas and vdu in (flavour.get('vdus') or {})
    }


def _counts(info: Obj) -> dict[str, int]:
    return {vdu: len(ids) for vdu, ids in resource_ids(info).items()}


def _levels(levels: dict[str, int]) -> str:
    return ', '.join(f'{a} {n}' for a, n in sorted(levels.items())) or 'none'


def _change(wanted: int) -> str:
    if wanted == 0:
        return 'keeps its VNFC count'
    verb = 'adds' if wanted > 0 else 'removes'
    return f'{verb} {abs(wanted)} VNFC(s)'
