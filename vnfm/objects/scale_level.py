"""Scale VNF to Level (SOL003 5.4.6): the target scale level of each aspect
and the per-aspect steps that reach it, from the VNFD model's flavour.

The API checks a request with these before it records the op (a 4xx, not
a failed op); the LCM driver computes the same steps when it runs it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class LevelError(ValueError):
    """The request names an unknown level or aspect, or a level out of
    range; ``unknown_level`` tells an unknown instantiationLevelId."""

    def __init__(self, detail: str, unknown_level: bool = False) -> None:
        super().__init__(detail)
        self.detail = detail
        self.unknown_level = unknown_level


def current_levels(info: Mapping[str, Any] | None) -> dict[str, int]:
    """The scale level of each aspect in an instantiatedVnfInfo."""
    return {
        s['aspectId']: int(s.get('scaleLevel', 0))
        for s in (info or {}).get('scaleStatus') or []
        if isinstance(s, dict) and 'aspectId' in s
    }


def target_levels(
    flavour: Mapping[str, Any],
    current: Mapping[str, int],
    request: Mapping[str, Any],
) -> dict[str, int]:
    """The aspect levels a ScaleVnfToLevelRequest asks for (aspects it does
    not name keep their level); LevelError if it cannot be reached."""
    aspects = flavour.get('scaling_aspects') or {}
    target = {a: int(current.get(a, 0)) for a in aspects}
    level_id = request.get('instantiationLevelId')
    if level_id is not None:
        levels = flavour.get('instantiation_levels') or {}
        if level_id not in levels:
            raise LevelError(
                f'instantiationLevelId {level_id} is not a level of flavour '
                f'{flavour.get("flavour_id")}; it has '
                f'{", ".join(sorted(levels)) or "none"}.',
                unknown_level=True,
            )
        info = (levels[level_id] or {}).get('scale_info') or {}
        wanted = {
            a: int((info.get(a) or {}).get('scale_level', 0)) for a in aspects
        }
    else:
        wanted = {
            s['aspectId']: int(s['scaleLevel'])
            for s in request.get('scaleInfo') or []
        }
    for aspect_id, level in wanted.items():
        if aspect_id not in aspects:
            raise LevelError(
                f'scaleInfo: aspectId {aspect_id} is not a scaling aspect of '
                f'flavour {flavour.get("flavour_id")}; it has '
                f'{", ".join(sorted(aspects)) or "none"}.'
            )
        top = int(aspects[aspect_id].get('max_scale_level', 0))
        if not 0 <= level <= top:
            raise LevelError(
                f'scale level {level} of aspect {aspect_id} is outside '
                f'0..{top} (its maximum scale level).'
            )
        target[aspect_id] = level
    return target


def steps(
    current: Mapping[str, int], target: Mapping[str, int]
) -> list[dict[str, Any]]:
    """The ScaleVnfRequests that take ``current`` to ``target``, one per
    aspect that changes: scale-ins first, so the peak stays low."""
    out = []
    for aspect_id in sorted(target):
        delta = target[aspect_id] - int(current.get(aspect_id, 0))
        if delta:
            out.append(
                {
                    'type': 'SCALE_OUT' if delta > 0 else 'SCALE_IN',
                    'aspectId': aspect_id,
                    'numberOfSteps': abs(delta),
                }
            )
    return sorted(out, key=lambda s: s['type'] != 'SCALE_IN')


#: The key of instantiatedVnfInfo.metadata where an infra driver names the
#: aspects it cannot scale on the instance's VIM (aspect id -> why); the API
#: refuses a scale of them before it records the op.
UNSCALABLE = 'unscalableAspects'


def unscalable(info: Mapping[str, Any] | None) -> dict[str, str]:
    """The aspects an instance's infra driver cannot scale, with why."""
    meta = (info or {}).get('metadata') or {}
    found = meta.get(UNSCALABLE) if isinstance(meta, Mapping) else None
    if not isinstance(found, Mapping):
        return {}
    return {str(a): str(why) for a, why in found.items()}
