"""The no-op infra driver: creates nothing, records every call, succeeds.

It serves vimType ``VNFM.NOOP.V_1`` and builds an instantiatedVnfInfo the
way a real driver would (one vnfcResourceInfo per VDU instance, scaleStatus
per aspect), so the whole LCM path can be exercised without a cloud.
``additionalParams.noop_fail: <method>`` in a request makes that method fail
(for tests and demos of retry/rollback).
"""

from __future__ import annotations

import threading
import uuid
from typing import Any

from vnfm.common import exceptions
from vnfm.drivers.infra import base
from vnfm.objects import infra

VIM_TYPE = infra.NOOP.vim_types[0]
_NS = uuid.UUID('6f1d5b8e-7a0c-4b8e-9a53-1f0e1b2c3d4e')


class NoopInfraDriver(base.InfraDriver):
    """Pretends to run VNFs; keeps the calls it got in ``calls``."""

    capabilities = infra.NOOP

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls: list[dict[str, Any]] = []

    def _record(self, method: str, ctx: base.InfraContext) -> dict:
        call = {
            'method': method,
            'operation': ctx.operation,
            'vnfInstanceId': ctx.vnf_instance.get('id'),
            'vimConnectionIds': sorted(ctx.vim_connection_info),
        }
        with self._lock:
            self.calls.append(call)
        params = ctx.request.get('additionalParams') or {}
        if params.get('noop_fail') == method:
            raise exceptions.OperationFailed(
                f'noop infra driver: {method} failed on request '
                '(additionalParams.noop_fail).'
            )
        return call

    def instantiate(self, ctx: base.InfraContext) -> base.InfraResult:
        """An instantiatedVnfInfo for the flavour and instantiation level."""
        call = self._record('instantiate', ctx)
        flavour = _flavour(ctx.vnfd, ctx.flavour_id)
        counts = _initial_counts(
            flavour, ctx.request.get('instantiationLevelId')
        )
        levels = _initial_levels(
            flavour, ctx.request.get('instantiationLevelId')
        )
        vnfcs = _vnfcs(ctx, counts)
        info = _vnf_info(ctx.flavour_id, flavour, levels, vnfcs)
        return base.InfraResult(
            instantiated_vnf_info=info,
            resource_changes=_changes(vnfcs, 'ADDED'),
            work={'call': call},
        )

    def terminate(self, ctx: base.InfraContext) -> base.InfraResult:
        """Nothing to delete."""
        call = self._record('terminate', ctx)
        old = (ctx.vnf_instance.get('instantiatedVnfInfo') or {}).get(
            'vnfcResourceInfo', []
        )
        return base.InfraResult(
            resource_changes=_changes(old, 'REMOVED'), work={'call': call}
        )

    def scale(self, ctx: base.InfraContext) -> base.InfraResult:
        """Add or remove VNFCs by the aspect's deltas."""
        call = self._record('scale', ctx)
        info = dict(ctx.vnf_instance.get('instantiatedVnfInfo') or {})
        flavour = _flavour(ctx.vnfd, info.get('flavourId'))
        aspect_id = ctx.request.get('aspectId')
        aspect = flavour.get('scaling_aspects', {}).get(aspect_id)
        if aspect is None:
            raise exceptions.OperationFailed(
                f'Aspect {aspect_id!r} is not in flavour '
                f'{info.get("flavourId")!r} of the VNFD.'
            )
        steps = int(ctx.request.get('numberOfSteps', 1))
        sign = 1 if ctx.request.get('type') == 'SCALE_OUT' else -1
        levels = {
            s['aspectId']: s['scaleLevel'] for s in info.get('scaleStatus', [])
        }
        level = levels.get(aspect_id, 0) + sign * steps
        if not 0 <= level <= aspect.get('max_scale_level', 0):
            raise exceptions.OperationFailed(
                f'Scale level {level} of aspect {aspect_id} is outside 0..'
                f'{aspect.get("max_scale_level", 0)}.'
            )
        levels[aspect_id] = level
        old = list(info.get('vnfcResourceInfo', []))
        counts = _counts(old)
        for vdu, deltas in aspect.get('vdu_deltas', {}).items():
            per_step = sum(deltas.values()) // max(len(deltas), 1)
            counts[vdu] = max(counts.get(vdu, 0) + sign * steps * per_step, 0)
        vnfcs = _vnfcs(ctx, counts)
        info.update(_vnf_info(info.get('flavourId'), flavour, levels, vnfcs))
        return base.InfraResult(
            instantiated_vnf_info=info,
            work={'call': call},
            resource_changes=_diff(old, vnfcs),
        )

    def heal(self, ctx: base.InfraContext) -> base.InfraResult:
        """Report the VNFCs asked for (all when none is named) healed."""
        call = self._record('heal', ctx)
        info = ctx.vnf_instance.get('instantiatedVnfInfo') or {}
        healed = base.heal_targets(
            info, list(ctx.request.get('vnfcInstanceId') or [])
        )
        return base.InfraResult(
            resource_changes=_changes(healed, 'MODIFIED'), work={'call': call}
        )

    def change_vnfpkg(self, ctx: base.InfraContext) -> base.InfraResult:
        """Keep the VNFCs; nothing runs that could change."""
        call = self._record('change_vnfpkg', ctx)
        info = ctx.vnf_instance.get('instantiatedVnfInfo') or {}
        vnfcs = info.get('vnfcResourceInfo', [])
        return base.InfraResult(
            instantiated_vnf_info=dict(info),
            resource_changes=_changes(vnfcs, 'MODIFIED'),
            work={'call': call},
        )

    def change_flavour(self, ctx: base.InfraContext) -> base.InfraResult:
        """The VNFCs of the new flavour at the instantiation level asked
        for (its default level when none is)."""
        call = self._record('change_flavour', ctx)
        flavour_id = ctx.request['newFlavourId']
        flavour = _flavour(ctx.vnfd, flavour_id)
        level_id = ctx.request.get('instantiationLevelId')
        info = dict(ctx.vnf_instance.get('instantiatedVnfInfo') or {})
        old = list(info.get('vnfcResourceInfo', []))
        vnfcs = _vnfcs(ctx, _initial_counts(flavour, level_id))
        levels = _initial_levels(flavour, level_id)
        info.update(_vnf_info(flavour_id, flavour, levels, vnfcs))
        return base.InfraResult(
            instantiated_vnf_info=info,
            work={'call': call},
            resource_changes=_diff(old, vnfcs),
        )

    def rollback_change_flavour(
        self, ctx: base.InfraContext
    ) -> base.InfraResult:
        """Nothing was changed."""
        return base.InfraResult(
            work={'call': self._record('rollback_change_flavour', ctx)}
        )

    def operate(self, ctx: base.InfraContext) -> base.InfraResult:
        """Report every VNFC in the state asked for."""
        call = self._record('operate', ctx)
        state = ctx.request.get('changeStateTo')
        info = dict(ctx.vnf_instance.get('instantiatedVnfInfo') or {})
        info['vnfState'] = state
        info['vnfcInfo'] = [
            dict(v, vnfcState=state) for v in info.get('vnfcInfo') or []
        ]
        return base.InfraResult(
            instantiated_vnf_info=info,
            work={'call': call},
            resource_changes=_changes(
                info.get('vnfcResourceInfo', []), 'MODIFIED'
            ),
        )

    def rollback_operate(self, ctx: base.InfraContext) -> base.InfraResult:
        """Nothing was changed."""
        return base.InfraResult(
            work={'call': self._record('rollback_operate', ctx)}
        )

    def rollback_instantiate(self, ctx: base.InfraContext) -> base.InfraResult:
        """Nothing was created."""
        return base.InfraResult(
            work={'call': self._record('rollback_instantiate', ctx)}
        )

    def rollback_scale(self, ctx: base.InfraContext) -> base.InfraResult:
        """Nothing was changed."""
        return base.InfraResult(
            work={'call': self._record('rollback_scale', ctx)}
        )

    def rollback_change_vnfpkg(
        self, ctx: base.InfraContext
    ) -> base.InfraResult:
        """Nothing was changed."""
        return base.InfraResult(
            work={'call': self._record('rollback_change_vnfpkg', ctx)}
        )


def _flavour(vnfd: dict, flavour_id: str | None) -> dict:
    flavour = (vnfd.get('flavours') or {}).get(flavour_id)
    if flavour is None:
        raise exceptions.OperationFailed(
            f'Flavour {flavour_id!r} is not in the VNFD; it has '
            f'{", ".join(sorted(vnfd.get("flavours") or {})) or "none"}.'
        )
    return flavour


def _level(flavour: dict, level_id: str | None) -> dict:
    level_id = level_id or flavour.get('default_instantiation_level')
    return (flavour.get('instantiation_levels') or {}).get(level_id) or {}


def _initial_counts(flavour: dict, level_id: str | None) -> dict[str, int]:
    vdu_levels = _level(flavour, level_id).get('vdu_levels', {})
    return {
        name: vdu_levels.get(name, vdu.get('initial_delta', 1))
        for name, vdu in flavour.get('vdus', {}).items()
    }


def _initial_levels(flavour: dict, level_id: str | None) -> dict[str, int]:
    scale_info = _level(flavour, level_id).get('scale_info', {})
    return {
        aspect: scale_info.get(aspect, {}).get('scale_level', 0)
        for aspect in flavour.get('scaling_aspects', {})
    }


def _counts(vnfcs: list[dict]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for vnfc in vnfcs:
        counts[vnfc['vduId']] = counts.get(vnfc['vduId'], 0) + 1
    return counts


def _vnfcs(ctx: base.InfraContext, counts: dict[str, int]) -> list[dict]:
    vim_id = ctx.vim_connection()[0]
    instance_id = ctx.vnf_instance.get('id', '')
    return [
        {
            'id': str(uuid.uuid5(_NS, f'{instance_id}/{vdu}/{n}')),
            'vduId': vdu,
            'computeResource': {
                'vimConnectionId': vim_id,
                'resourceId': f'noop-{vdu}-{n}',
                'vimLevelResourceType': 'noop',
            },
        }
        for vdu, count in sorted(counts.items())
        for n in range(count)
    ]


def _vnf_info(
    flavour_id: str | None,
    flavour: dict,
    levels: dict[str, int],
    vnfcs: list[dict],
) -> dict:
    aspects = flavour.get('scaling_aspects', {})
    return {
        'flavourId': flavour_id,
        'vnfState': 'STARTED',
        'scaleStatus': [
            {'aspectId': a, 'scaleLevel': levels.get(a, 0)}
            for a in sorted(aspects)
        ],
        'maxScaleLevels': [
            {'aspectId': a, 'scaleLevel': aspects[a].get('max_scale_level', 0)}
            for a in sorted(aspects)
        ],
        'vnfcResourceInfo': vnfcs,
        'vnfcInfo': [
            {
                'id': f'{v["vduId"]}-{v["id"]}',
                'vduId': v['vduId'],
                'vnfcResourceInfoId': v['id'],
                'vnfcState': 'STARTED',
            }
            for v in vnfcs
        ],
    }


def _changes(vnfcs: list[dict], change_type: str) -> dict:
    return {
        'affectedVnfcs': [
            {
                'id': v['id'],
                'vduId': v['vduId'],
                'changeType': change_type,
                'computeResource': v['computeResource'],
            }
            for v in vnfcs
        ]
    }


def _diff(old: list[dict], new: list[dict]) -> dict:
    old_ids = {v['id'] for v in old}
    new_ids = {v['id'] for v in new}
    added = _changes([v for v in new if v['id'] not in old_ids], 'ADDED')
    removed = _changes([v for v in old if v['id'] not in new_ids], 'REMOVED')
    return {'affectedVnfcs': added['affectedVnfcs'] + removed['affectedVnfcs']}
