"""vnfcInfo and resourceChanges.affectedVnfcs from vnfcResourceInfo
entries, the same for every infra driver."""

from __future__ import annotations

from typing import Any

# The metadata key of a VNFC's index among its VDU's (Tacker's).
VDU_IDX = 'vdu_idx'


def vnfc_info(resources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """vnfcInfo for vnfcResourceInfo entries (a VNFC's index,
    ``vdu_idx``, kept in its metadata)."""
    out = []
    for r in resources:
        entry = {
            'id': f'{r["vduId"]}-{r["id"]}',
            'vduId': r['vduId'],
            'vnfcResourceInfoId': r['id'],
            'vnfcState': 'STARTED',
        }
        index = (r.get('metadata') or {}).get(VDU_IDX)
        if index is not None:
            entry['metadata'] = {VDU_IDX: index}
        out.append(entry)
    return out


def affected(
    old: list[dict[str, Any]],
    new: list[dict[str, Any]],
    modified: set[str] | None = None,
) -> dict[str, Any]:
    """resourceChanges.affectedVnfcs: ADDED, REMOVED and MODIFIED."""
    old_by_id = {e['id']: e for e in old}
    new_ids = {e['id'] for e in new}
    out = []
    for e in new:
        before = old_by_id.get(e['id'])
        if before is None:
            out.append(_change(e, 'ADDED'))
        elif (
            e['id'] in (modified or set())
            or before['computeResource']['resourceId']
            != e['computeResource']['resourceId']
        ):
            out.append(_change(e, 'MODIFIED'))
    out += [_change(e, 'REMOVED') for e in old if e['id'] not in new_ids]
    return {'affectedVnfcs': out}


def _change(entry: dict[str, Any], change_type: str) -> dict[str, Any]:
    return {
        'id': entry['id'],
        'vduId': entry['vduId'],
        'changeType': change_type,
        'computeResource': entry['computeResource'],
    }
