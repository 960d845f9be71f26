"""How many VNFCs of each VDU: at an instantiation level, after scaling.

A level gives a VDU's count directly (VduInstantiationLevels) or through its
aspects' scale levels (``scale_info``: the initial delta plus each step's
delta); a VDU a level does not name keeps its initial delta. Every count
stays within the VDU's vdu_profile.
"""

from __future__ import annotations

from typing import Any

from vnfm.common import exceptions
from vnfm.csar import Flavour
from vnfm.csar import ScalingAspect


def level_of(flavour: Flavour, level_id: str | None) -> dict[str, Any] | None:
    """The instantiation level a request names, else the default one."""
    if level_id and level_id not in flavour.instantiation_levels:
        known = ', '.join(sorted(flavour.instantiation_levels)) or 'none'
        raise exceptions.OperationFailed(
            f'Flavour {flavour.flavour_id} has no instantiation level '
            f'{level_id} (it has: {known}).'
        )
    chosen = level_id or flavour.default_instantiation_level
    return flavour.instantiation_levels.get(chosen) if chosen else None


def step_delta(aspect: ScalingAspect, vdu: str, step: int) -> int:
    """VNFCs of ``vdu`` that step ``step`` (0: from level 0 to 1) adds."""
    deltas = aspect.vdu_deltas.get(vdu) or {}
    if not aspect.step_deltas:
        return next(iter(deltas.values()), 0)
    name = aspect.step_deltas[min(step, len(aspect.step_deltas) - 1)]
    return deltas.get(name, 0)


def at_scale_level(
    flavour: Flavour, aspect: ScalingAspect, vdu: str, level: int
) -> int:
    """VNFCs of ``vdu`` with ``aspect`` at scale level ``level``."""
    initial = aspect.vdu_initial_deltas.get(
        vdu, flavour.vdus[vdu].initial_delta
    )
    return initial + sum(step_delta(aspect, vdu, s) for s in range(level))


def at_level(flavour: Flavour, vdu: str, level: dict[str, Any] | None) -> int:
    """VNFCs of ``vdu`` at an instantiation level (None: initial delta)."""
    if level is not None and vdu in level.get('vdu_levels', {}):
        count = int(level['vdu_levels'][vdu])
    else:
        count = flavour.vdus[vdu].initial_delta
        for aspect_id, info in ((level or {}).get('scale_info') or {}).items():
            aspect = flavour.scaling_aspects.get(aspect_id)
            if aspect is not None and vdu in aspect.vdu_deltas:
                scale = int((info or {}).get('scale_level', 0))
                count = at_scale_level(flavour, aspect, vdu, scale)
    return checked(flavour, vdu, count)


def checked(flavour: Flavour, vdu: str, count: int) -> int:
    """``count`` if the VDU's vdu_profile allows it; OperationFailed if not."""
    profile = flavour.vdus[vdu]
    if not profile.min_instances <= count <= profile.max_instances:
        raise exceptions.OperationFailed(
            f'VDU {vdu} would have {count} instances, outside its '
            f'vdu_profile ({profile.min_instances} to '
            f'{profile.max_instances}).'
        )
    return count


def scale_level(vnf_instance: dict[str, Any], aspect_id: str) -> int:
    """The aspect's current scale level (0 when the instance has none)."""
    info = vnf_instance.get('instantiatedVnfInfo') or {}
    for status in info.get('scaleStatus') or []:
        if status.get('aspectId') == aspect_id:
            return int(status.get('scaleLevel', 0))
    return 0


def vnfc_count(vnf_instance: dict[str, Any], vdu: str) -> int | None:
    """VNFCs of ``vdu`` the instance records (None: it records none)."""
    info = vnf_instance.get('instantiatedVnfInfo') or {}
    if 'vnfcResourceInfo' not in info:
        return None
    return sum(
        1 for r in info['vnfcResourceInfo'] or [] if r.get('vduId') == vdu
    )


def scaled(
    flavour: Flavour,
    vnf_instance: dict[str, Any],
    request: dict[str, Any],
) -> dict[str, int]:
    """VDU -> VNFC count after a ScaleVnfRequest, counted from the instance
    as it was before the operation (so a retry computes the same)."""
    aspect_id = request.get('aspectId')
    aspect = flavour.scaling_aspects.get(aspect_id or '')
    if aspect is None:
        raise exceptions.OperationFailed(
            f'Flavour {flavour.flavour_id} has no scaling aspect {aspect_id}.'
        )
    steps = int(request.get('numberOfSteps', 1))
    now = scale_level(vnf_instance, aspect.aspect_id)
    out = request.get('type') == 'SCALE_OUT'
    target = now + steps if out else now - steps
    if not 0 <= target <= aspect.max_scale_level:
        raise exceptions.OperationFailed(
            f'Scaling aspect {aspect.aspect_id} from level {now} by '
            f'{steps} steps would reach level {target}, outside 0 to '
            f'{aspect.max_scale_level}.'
        )
    counts = {}
    for vdu in aspect.vdu_deltas:
        lo, hi = sorted((now, target))
        change = sum(step_delta(aspect, vdu, s) for s in range(lo, hi))
        before = vnfc_count(vnf_instance, vdu)
        if before is None:
            before = at_scale_level(flavour, aspect, vdu, now)
        counts[vdu] = checked(
            flavour, vdu, before + change if out else before - change
        )
    return counts


def recorded(
    flavour: Flavour, vnf_instance: dict[str, Any], vdus: list[str]
) -> dict[str, int]:
    """VDU -> the VNFC count the instance records (a rollback's target);
    without vnfcResourceInfo, the count at its aspect's scale level."""
    counts = {}
    for vdu in vdus:
        count = vnfc_count(vnf_instance, vdu)
        if count is None:
            count = flavour.vdus[vdu].initial_delta
            for aspect in flavour.scaling_aspects.values():
                if vdu in aspect.vdu_deltas:
                    level = scale_level(vnf_instance, aspect.aspect_id)
                    count = at_scale_level(flavour, aspect, vdu, level)
        counts[vdu] = count
    return counts
