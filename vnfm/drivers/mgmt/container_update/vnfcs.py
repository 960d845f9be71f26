"""VNFCs follow their restarted Pods: ids stay, resourceIds change.

A VDU's workload is named in ``instantiatedVnfInfo.metadata.vdus`` (by the
Kubernetes infra driver). For a restarted workload, a VNFC whose Pod still
exists keeps it (a StatefulSet Pod keeps its name across a restart), one
whose Pod is gone takes one of the new Pods; a Pod left over gets a new
VNFC, a VNFC left over is removed. Every VNFC of a restarted Pod is
reported MODIFIED in ``affectedVnfcs``, with the reasons in its metadata.
"""

from __future__ import annotations

import uuid
from typing import Any

from vnfm.drivers.mgmt.container_update.manifests import Key
from vnfm.drivers.mgmt.container_update.planner import WorkloadChange

Obj = dict[str, Any]


def vdu_keys(info: Obj) -> dict[Key, str]:
    """Workload key -> VDU id."""
    out = {}
    for vdu_id, ref in (
        (info.get('metadata') or {}).get('vdus') or {}
    ).items():
        out[(ref['kind'], ref.get('namespace') or '', ref['name'])] = vdu_id
    return out


def _entry(old: Obj, pod: str) -> Obj:
    return {
        **old,
        'computeResource': {**old['computeResource'], 'resourceId': pod},
    }


def _follow_vdu(
    entries: list[Obj], pods: list[str], vdu_id: str, template: Obj
) -> list[Obj]:
    live = set(pods)
    kept = [e for e in entries if e['computeResource']['resourceId'] in live]
    taken = {e['computeResource']['resourceId'] for e in kept}
    fresh = [p for p in pods if p not in taken]
    vanished = [e for e in entries if e not in kept]
    out = {e['id']: e for e in kept}
    for e, pod in zip(vanished, fresh, strict=False):  # more or fewer
        out[e['id']] = _entry(e, pod)
    for pod in fresh[len(vanished) :]:
        new_id = str(uuid.uuid4())
        out[new_id] = {**_entry(template, pod), 'id': new_id, 'vduId': vdu_id}
    order = {e['id']: i for i, e in enumerate(entries)}
    return sorted(out.values(), key=lambda e: order.get(e['id'], len(order)))


def follow(
    info: Obj, changes: list[WorkloadChange], pods: dict[Key, list[str]]
) -> tuple[list[Obj], list[Obj]]:
    """(new vnfcResourceInfo, affectedVnfcs) after restarting ``changes``
    whose Pods are now ``pods``."""
    old = list(info.get('vnfcResourceInfo') or [])
    by_vdu = vdu_keys(info)
    new = list(old)
    affected = []
    for change in changes:
        vdu_id = by_vdu.get(change.key)
        mine = [e for e in new if e.get('vduId') == vdu_id]
        if vdu_id is None or not mine:
            continue
        followed = _follow_vdu(mine, pods.get(change.key, []), vdu_id, mine[0])
        new = [e for e in new if e.get('vduId') != vdu_id] + followed
        affected += _affected(mine, followed, change)
    first: dict[str, int] = {}
    for i, e in enumerate(old):
        first.setdefault(e.get('vduId'), i)
    return sorted(new, key=lambda e: first.get(e.get('vduId'), 0)), affected


def _affected(
    before: list[Obj], after: list[Obj], change: WorkloadChange
) -> list[Obj]:
    old_by_id = {e['id']: e for e in before}
    restarted = set(change.pods)
    out = []
    for e in after:
        prev = old_by_id.get(e['id'])
        if prev is None:
            out.append(_change(e, 'ADDED', change, None))
        elif (
            prev['computeResource']['resourceId'] in restarted
            or prev['computeResource']['resourceId']
            != e['computeResource']['resourceId']
        ):
            out.append(
                _change(
                    e,
                    'MODIFIED',
                    change,
                    prev['computeResource']['resourceId'],
                )
            )
    after_ids = {e['id'] for e in after}
    out += [
        _change(e, 'REMOVED', change, None)
        for e in before
        if e['id'] not in after_ids
    ]
    return out


def _change(
    e: Obj, change_type: str, change: WorkloadChange, previous: str | None
) -> Obj:
    meta: Obj = {'restartReasons': list(change.reasons)}
    if previous is not None:
        meta['previousResourceId'] = previous
    return {
        'id': e['id'],
        'vduId': e['vduId'],
        'changeType': change_type,
        'computeResource': e['computeResource'],
        'metadata': meta,
    }


def vnfc_info(old_info: list[Obj], resources: list[Obj]) -> list[Obj]:
    """vnfcInfo for ``resources``, keeping the entries that still apply."""
    by_resource = {i.get('vnfcResourceInfoId'): i for i in old_info}
    return [
        by_resource.get(r['id'])
        or {
            'id': f'{r["vduId"]}-{r["id"]}',
            'vduId': r['vduId'],
            'vnfcResourceInfoId': r['id'],
            'vnfcState': 'STARTED',
        }
        for r in resources
    ]
