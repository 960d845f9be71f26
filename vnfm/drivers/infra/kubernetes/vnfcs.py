"""vnfcResourceInfo and vnfcInfo from live Pods, with stable VNFC ids.

A VNFC id is ``uuid5(instance id, VDU, ordinal)``. When Pods come and go
(heal, rolling update, a Pod replaced by its controller) an entry whose Pod
vanished is given a new Pod of the same VDU: its id stays, its
``computeResource.resourceId`` follows the Pod. New Pods beyond that get new
ids (smallest unused ordinal); entries left without a Pod are removed.
"""

from __future__ import annotations

import uuid
from typing import Any

_NS = uuid.UUID('0b7e2f5c-8d1a-4c3e-9f60-5a4b3c2d1e0f')


def vnfc_id(instance_id: str, vdu_id: str, ordinal: int) -> str:
    """The id of the ``ordinal``-th VNFC of a VDU."""
    return str(uuid.uuid5(_NS, f'{instance_id}/{vdu_id}/{ordinal}'))


def _new_id(instance_id: str, vdu_id: str, used: set[str]) -> str:
    n = 0
    while vnfc_id(instance_id, vdu_id, n) in used:
        n += 1
    return vnfc_id(instance_id, vdu_id, n)


def match_vdu(
    instance_id: str,
    vdu_id: str,
    old: list[dict[str, Any]],
    pod_names: list[str],
    resource: dict[str, str],
) -> list[dict[str, Any]]:
    """The VDU's vnfcResourceInfo for ``pod_names``, keeping ids of ``old``.

    ``resource`` has ``vimConnectionId`` and ``kind`` (of the workload).
    """
    live = set(pod_names)
    kept = [e for e in old if e['computeResource']['resourceId'] in live]
    taken = {e['computeResource']['resourceId'] for e in kept}
    fresh = [p for p in pod_names if p not in taken]
    vanished = [
        e for e in old if e['computeResource']['resourceId'] not in live
    ]
    out: dict[str, dict[str, Any]] = {e['id']: e for e in old}
    for entry in vanished:
        out.pop(entry['id'])
    for entry, pod in zip(vanished, fresh, strict=False):  # more or fewer
        out[entry['id']] = _entry(entry['id'], vdu_id, pod, resource)
    for entry in kept:
        out[entry['id']] = _entry(
            entry['id'],
            vdu_id,
            entry['computeResource']['resourceId'],
            resource,
        )
    used = {e['id'] for e in old}
    for pod in fresh[len(vanished) :]:
        new_id = _new_id(instance_id, vdu_id, used)
        used.add(new_id)
        out[new_id] = _entry(new_id, vdu_id, pod, resource)
    order = {e['id']: i for i, e in enumerate(old)}
    return sorted(
        out.values(),
        key=lambda e: (
            order.get(e['id'], len(order)),
            e['computeResource']['resourceId'],
        ),
    )


def _entry(
    vnfc: str, vdu_id: str, pod: str, resource: dict[str, str]
) -> dict[str, Any]:
    return {
        'id': vnfc,
        'vduId': vdu_id,
        'computeResource': {
            'vimConnectionId': resource['vimConnectionId'],
            'resourceId': pod,
            'vimLevelResourceType': resource['kind'],
        },
    }


def build(
    instance_id: str,
    old: list[dict[str, Any]],
    pods_by_vdu: dict[str, list[str]],
    kinds: dict[str, str],
    vim_id: str,
) -> list[dict[str, Any]]:
    """vnfcResourceInfo of every VDU, in VDU order, keeping ids of ``old``."""
    out: list[dict[str, Any]] = []
    for vdu_id in sorted(pods_by_vdu):
        mine = [e for e in old if e.get('vduId') == vdu_id]
        out += match_vdu(
            instance_id,
            vdu_id,
            mine,
            pods_by_vdu[vdu_id],
            {'vimConnectionId': vim_id, 'kind': kinds[vdu_id]},
        )
    return out
