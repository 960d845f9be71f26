"""What an update overwrote, kept for its rollback.

Before changing anything the driver records, in the hook's ``work`` (kept
with the op occurrence, also when the hook fails), the live content of each
ConfigMap/Secret it replaces (Secrets encrypted with vnfm's key, never in
clear) and the live images of each workload it restarts. A retry keeps
what the first attempt recorded: that is the state before the operation.
Rollback restores the current package's objects with those contents and
images.
"""

from __future__ import annotations

import copy
from typing import Any

from vnfm.common import crypto
from vnfm.drivers.mgmt.container_update import content
from vnfm.drivers.mgmt.container_update import references
from vnfm.drivers.mgmt.container_update.manifests import Key
from vnfm.drivers.mgmt.container_update.planner import Plan

Obj = dict[str, Any]
KEY = 'snapshot'


def _name(k: Key) -> str:
    return '/'.join(k)


def _key(name: str) -> Key:
    kind, namespace, obj_name = name.split('/', 2)
    return kind, namespace, obj_name


def record(work: Obj, plan: Plan) -> bool:
    """Add what ``plan`` overwrites to ``work`` (first record wins);
    whether anything was added."""
    snap = work.setdefault(
        KEY, {'configs': {}, 'images': {}, 'annotations': {}}
    )
    added = False
    for c in plan.configs:
        name = _name(c.key)
        if name in snap['configs']:
            continue
        if c.live is None:
            snap['configs'][name] = {'absent': True}
        elif c.key[0] == 'Secret':
            snap['configs'][name] = {
                'sealed': crypto.encrypt(content.normal(c.live))
            }
        else:
            snap['configs'][name] = {'content': content.normal(c.live)}
        added = True
    for w in plan.workloads:
        if _name(w.key) not in snap['images']:
            snap['images'][_name(w.key)] = dict(w.previous_images)
            snap['annotations'][_name(w.key)] = w.previous_hash
            added = True
    return added


def restore_annotations(plan: Plan, work: Obj) -> None:
    """Give the rollback's workloads their recorded annotation (none when
    they had none), so a Deployment returns to its previous ReplicaSet."""
    recorded = (work.get(KEY) or {}).get('annotations') or {}
    for w in plan.workloads:
        if _name(w.key) in recorded:
            w.config_hash = recorded[_name(w.key)]


def _content_of(entry: Obj) -> Obj | None:
    if entry.get('absent'):
        return None
    if 'sealed' in entry:
        return crypto.decrypt(entry['sealed'])
    return entry['content']


def _set_images(obj: Obj, images: dict[str, str]) -> None:
    spec = references.pod_spec(obj)
    for list_name in references.CONTAINER_LISTS:
        for c in spec.get(list_name) or []:
            image = images.get(f'{list_name}/{c.get("name")}')
            if image:
                c['image'] = image


def restore(current: dict[Key, Obj], work: Obj) -> dict[Key, Obj]:
    """The objects to restore: the current package's, with the recorded
    contents and images. A ConfigMap/Secret the update had to create (it
    was missing) gets the current package's content."""
    snap = work.get(KEY) or {}
    out = copy.deepcopy(current)
    for name, entry in (snap.get('configs') or {}).items():
        k = _key(name)
        previous = _content_of(entry)
        if k in out and previous is not None:
            out[k] = content.as_manifest(out[k], previous)
    for name, images in (snap.get('images') or {}).items():
        k = _key(name)
        if k in out:
            _set_images(out[k], images)
    return out


def taken(work: Obj) -> bool:
    """Whether an update recorded anything (so changed something)."""
    snap = work.get(KEY) or {}
    return bool(snap.get('configs') or snap.get('images'))
