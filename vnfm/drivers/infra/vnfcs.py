"""vnfcInfo and resourceChanges.affectedVnfcs from vnfcResourceInfo
entries, the same for every infra driver."""

from __future__ import annotations

from typing import Any


def vnfc_info(resources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """vnfcInfo for vnfcResourceInfo entries."""
    return [
        {
            'id': f'{r["vduId"]}-{r["id"]}',
            'vduId': r['vduId'],
            'vnfcResourceInfoId': r['id'],
            'vnfcState': 'STARTED',
        }
        for r in resources
    ]


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
