"""Instance counts per VDU from the VNFD (levels, aspects, deltas) and
the VNFCs a heal or scale-in names: shared by the infra and mgmt drivers."""

from __future__ import annotations

from typing import Any

from vnfm.common import exceptions


class ScaleNotPossible(exceptions.OperationFailed):
    """The requested scale leaves the VNFD's bounds."""

    title = 'Scale Not Possible'


def flavour_of(vnfd: dict[str, Any], flavour_id: str | None) -> dict[str, Any]:
    """The flavour dict of a Vnfd.to_dict(); OperationFailed if absent."""
    flavour = (vnfd.get('flavours') or {}).get(flavour_id or '')
    if flavour is None:
        raise exceptions.OperationFailed(
            f'Flavour {flavour_id!r} is not in VNFD {vnfd.get("vnfd_id")}; '
            'it has '
            f'{", ".join(sorted(vnfd.get("flavours") or {})) or "none"}.'
        )
    return flavour


def initial_levels(
    flavour: dict[str, Any], level_id: str | None
) -> dict[str, int]:
    """Scale level of each aspect at an instantiation level."""
    level = _level(flavour, level_id)
    info = level.get('scale_info') or {}
    return {
        a: int((info.get(a) or {}).get('scale_level', 0))
        for a in flavour.get('scaling_aspects') or {}
    }


def _level(flavour: dict[str, Any], level_id: str | None) -> dict[str, Any]:
    levels = flavour.get('instantiation_levels') or {}
    if level_id and level_id not in levels:
        raise exceptions.OperationFailed(
            f'instantiationLevelId {level_id!r} is not in flavour '
            f'{flavour.get("flavour_id")}; it has '
            f'{", ".join(sorted(levels)) or "none"}.'
        )
    return (
        levels.get(
            level_id or flavour.get('default_instantiation_level') or ''
        )
        or {}
    )


def initial_counts(
    flavour: dict[str, Any], level_id: str | None
) -> dict[str, int]:
    """Instances of each VDU at instantiation."""
    vdu_levels = _level(flavour, level_id).get('vdu_levels') or {}
    levels = initial_levels(flavour, level_id)
    out = {}
    for vdu_id in flavour.get('vdus') or {}:
        if vdu_id in vdu_levels:
            out[vdu_id] = int(vdu_levels[vdu_id])
        else:
            out[vdu_id] = counts_at(flavour, vdu_id, levels)
    return out


def counts_at(
    flavour: dict[str, Any], vdu_id: str, levels: dict[str, int]
) -> int:
    """Instances of a VDU at aspect levels: initial + step deltas."""
    vdu = flavour['vdus'][vdu_id]
    count = int(vdu.get('initial_delta', vdu.get('min_instances', 1)))
    for aspect_id, aspect in (flavour.get('scaling_aspects') or {}).items():
        deltas = (aspect.get('vdu_deltas') or {}).get(vdu_id)
        if not deltas:
            continue
        count = int(
            (aspect.get('vdu_initial_deltas') or {}).get(vdu_id, count)
        )
        steps = aspect.get('step_deltas') or list(deltas)
        for step in range(levels.get(aspect_id, 0)):
            name = steps[min(step, len(steps) - 1)]
            count += int(deltas.get(name, 0))
    return count


def scaled_levels(
    flavour: dict[str, Any], levels: dict[str, int], request: dict[str, Any]
) -> dict[str, int]:
    """Aspect levels after a ScaleVnfRequest (ScaleNotPossible)."""
    aspect_id = request['aspectId']  # required by the API schema
    aspect = (flavour.get('scaling_aspects') or {}).get(aspect_id)
    if aspect is None:
        raise ScaleNotPossible(
            f'Aspect {aspect_id!r} is not in flavour '
            f'{flavour.get("flavour_id")}.'
        )
    steps = int(request.get('numberOfSteps', 1))
    sign = 1 if request.get('type') == 'SCALE_OUT' else -1
    level = levels.get(aspect_id, 0) + sign * steps
    top = int(aspect.get('max_scale_level', 0))
    if not 0 <= level <= top:
        raise ScaleNotPossible(
            f'{request.get("type")} of aspect {aspect_id} by {steps} '
            f'step(s) gives scale level {level}, outside 0..{top} '
            f'(current level {levels.get(aspect_id, 0)}).'
        )
    return {**levels, aspect_id: level}


def check_bounds(flavour: dict[str, Any], counts: dict[str, int]) -> None:
    """ScaleNotPossible if a VDU leaves min/max_number_of_instances."""
    for vdu_id, n in counts.items():
        vdu = flavour['vdus'][vdu_id]
        lo, hi = (
            int(vdu.get('min_instances', 0)),
            int(vdu.get('max_instances', n)),
        )
        if not lo <= n <= hi:
            raise ScaleNotPossible(
                f'VDU {vdu_id} would have {n} instances, outside its '
                'vdu_profile '
                f'{lo}..{hi}.'
            )


def scale_status(
    flavour: dict[str, Any], levels: dict[str, int]
) -> dict[str, Any]:
    """scaleStatus and maxScaleLevels of instantiatedVnfInfo."""
    aspects = flavour.get('scaling_aspects') or {}
    return {
        'scaleStatus': [
            {'aspectId': a, 'scaleLevel': levels.get(a, 0)}
            for a in sorted(aspects)
        ],
        'maxScaleLevels': [
            {
                'aspectId': a,
                'scaleLevel': int(aspects[a].get('max_scale_level', 0)),
            }
            for a in sorted(aspects)
        ],
    }


def heal_targets(info: dict[str, Any], wanted: list[str]) -> list[dict]:
    """The vnfcResourceInfo entries a HealVnfRequest's vnfcInstanceId names
    (all of them when it names none).

    SOL003 v3.3.1 names VNFCs by vnfcInfo id, SOL003 v2.6.1 by
    vnfcResourceInfo id: both are accepted. OperationFailed names unknown ids.
    """
    entries = info.get('vnfcResourceInfo') or []
    if not wanted:
        return list(entries)
    by_id = {e['id']: e for e in entries}
    for vnfc in info.get('vnfcInfo') or []:
        entry = by_id.get(vnfc.get('vnfcResourceInfoId'))
        if entry is not None:
            by_id.setdefault(vnfc['id'], entry)
    unknown = [w for w in wanted if w not in by_id]
    if unknown:
        raise exceptions.OperationFailed(
            f'vnfcInstanceId {", ".join(unknown)} is not a VNFC of this VNF '
            'instance.'
        )
    return list({by_id[w]['id']: by_id[w] for w in wanted}.values())


def scale_in_victims(
    info: dict[str, Any], counts: dict[str, int], named: list[str]
) -> list[dict[str, Any]]:
    """The vnfcResourceInfo entries a scale-in to ``counts`` (VDU id ->
    instances left) removes: those ``named`` (vnfcInfo or vnfcResourceInfo
    ids) first, then the newest of each VDU, as Tacker's v2 driver chooses
    (Heat's AutoScalingGroup removes the members marked unhealthy)."""
    chosen = heal_targets(info, named) if named else []
    out = []
    for vdu_id, count in sorted(counts.items()):
        mine = [
            e
            for e in info.get('vnfcResourceInfo') or []
            if e['vduId'] == vdu_id
        ]
        excess = len(mine) - count
        if excess <= 0:
            continue
        picked = [e for e in chosen if e['vduId'] == vdu_id][:excess]
        rest = sorted(
            (e for e in mine if e not in picked),
            key=lambda e: (e.get('metadata') or {}).get('creation_time') or '',
        )
        out += picked + rest[len(rest) - (excess - len(picked)) :]
    return out


def levels_of(info: dict[str, Any]) -> dict[str, int]:
    """Current aspect levels from an instantiatedVnfInfo's scaleStatus."""
    return {
        s['aspectId']: int(s['scaleLevel'])
        for s in info.get('scaleStatus') or []
    }
