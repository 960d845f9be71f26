"""The plan of a container update: a pure function of three inputs.

``plan(current, new, live)``: the objects of the current package, those of
the new package (both placed in the instance's namespace, by
``manifests``), and the instance's live objects (ConfigMaps, Secrets,
workloads, ReplicaSets and Pods, as read in bulk). It decides:

* **ConfigMaps and Secrets to replace**: those whose content (ConfigMap
  ``data``/``binaryData``, Secret ``type``/``data``/``stringData``,
  ``immutable``) differs from the LIVE object, so an unchanged one is never
  written and a re-run after a failure replaces only what is still
  different. A missing one is created. An immutable one
  (``immutable: true`` on the live object) cannot be updated: Kubernetes
  refuses the write, so it is deleted and created again (a new uid), and so
  is a Secret whose ``type`` changes. ``immutable`` itself may change in
  the new package: false to true is an update Kubernetes accepts (patched
  with the new content), true to false is a delete and create. Rollback
  restores the recorded content, ``immutable`` included, by the same rules.
  Caveat of real nodes: a kubelet stops watching an immutable object once
  it has read it, so a node that cached the old one may hand it to the
  restarted Pods while any Pod on that node still uses it; content meant
  to change belongs in mutable objects, or in immutable ones with new
  names (Change Current VNF Package).
  Their kind, namespace and name cannot change: a ConfigMap/Secret of
  the current package missing from the new one, or a new one, is refused
  (Modify VNF Information does not add or remove objects; Change Current
  VNF Package does).
* **Workloads to restart** (Pod, Deployment, ReplicaSet, DaemonSet,
  StatefulSet): those whose images (per container name, containers and
  initContainers) differ from the live ones, those that use a ConfigMap or
  Secret being replaced (see ``references``), and those whose Pod template
  annotation ``vnfm.io/config-hash`` is not the new one (a hash of the
  content of every ConfigMap/Secret of the package they use and of their
  images). A workload without the annotation runs the current package, so
  its hash is computed from the current package: an unchanged workload is
  not touched and a re-run is a no-op. ConfigMaps/Secrets the package does
  not define (created outside the VNF) are not hashed: vnfm does not manage
  them.
* **How**: Deployments, and DaemonSets and StatefulSets with RollingUpdate,
  get the new images and annotation in their Pod template and roll
  natively. OnDelete StatefulSets/DaemonSets and ReplicaSets get the new
  template, then their out-of-date Pods are evicted one at a time. A bare
  Pod is deleted and created again from the new manifest.

**Other changes in a manifest are refused, never dropped**: apart from
container images (and ``spec.replicas``, which the VNFD's scaling governs,
not the manifest), a workload manifest of the new package must equal the
current one, and any other object (Service, Job, CronJob, ...) must be
unchanged; otherwise the update fails before anything is changed, naming
the object and the fields. Applying arbitrary spec changes (selectors,
volumes, ports) is what Change Current VNF Package is for; silently
ignoring them (as Tacker does) leaves a package that does not describe
what runs.

Only reported (in ``Plan.notes``): ephemeral containers using a replaced
ConfigMap/Secret (they cannot be restarted), Jobs and CronJobs using one
(Jobs run to completion; a CronJob's next run reads the new content).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable
from typing import Any

from vnfm.clients import kubernetes as k8s
from vnfm.drivers.mgmt.container_update import content
from vnfm.drivers.mgmt.container_update import references
from vnfm.drivers.mgmt.container_update.manifests import BadUpdate
from vnfm.drivers.mgmt.container_update.manifests import Key
from vnfm.drivers.mgmt.container_update.manifests import describe
from vnfm.drivers.mgmt.container_update.manifests import key

Obj = dict[str, Any]
ROLLOUT, EVICT, RECREATE = 'rollout', 'evict', 'recreate'
_MAX_PATHS = 5


@dataclasses.dataclass
class ConfigChange:
    """A ConfigMap or Secret to bring to the new content."""

    key: Key
    action: str  # content.action: create | patch | recreate
    desired: Obj  # the new manifest (placed)
    live: Obj | None  # the live object (None: it does not exist)


@dataclasses.dataclass
class WorkloadChange:
    """A workload whose Pods restart."""

    key: Key
    method: str  # ROLLOUT | EVICT | RECREATE
    desired: Obj  # the new manifest (placed)
    images: dict[str, str]  # <list>/<container> -> new image
    config_hash: str | None  # None: no annotation (rollback)
    reasons: list[str]
    pods: list[str]  # Pods that restart (live names)
    template_stale: bool  # the live template must be patched
    previous_images: dict[str, str]  # the live ones, for rollback
    previous_hash: str | None  # the live annotation, for rollback


@dataclasses.dataclass
class Plan:
    """What a container update does."""

    configs: list[ConfigChange] = dataclasses.field(default_factory=list)
    workloads: list[WorkloadChange] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)

    def report(self) -> Obj:
        """What changes, for users (no ConfigMap/Secret content)."""
        return {
            'configMapsAndSecrets': [
                {
                    'kind': c.key[0],
                    'namespace': c.key[1],
                    'name': c.key[2],
                    'action': c.action,
                }
                for c in self.configs
            ],
            'workloads': [
                {
                    'kind': w.key[0],
                    'namespace': w.key[1],
                    'name': w.key[2],
                    'method': w.method,
                    'reasons': w.reasons,
                    'restartedPods': w.pods,
                }
                for w in self.workloads
            ],
            'notes': list(self.notes),
        }


def _stripped(obj: Obj) -> Obj:
    """An object without what a container update may change."""
    out = copy.deepcopy(obj)
    if out.get('kind') in references.WORKLOAD_KINDS:
        (out.get('spec') or {}).pop('replicas', None)
        spec = references.pod_spec(out)
        for list_name in references.CONTAINER_LISTS:
            for c in spec.get(list_name) or []:
                if isinstance(c, dict):
                    c.pop('image', None)
    return out


def diff_paths(a: Any, b: Any, path: str = '') -> list[str]:
    """Dotted paths where two JSON values differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[str] = []
        for k in sorted(set(a) | set(b), key=str):
            out += diff_paths(
                a.get(k), b.get(k), f'{path}.{k}' if path else str(k)
            )
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            out += diff_paths(x, y, f'{path}[{i}]')
        return out
    return [] if a == b else [path or '(the whole object)']


def check_same_objects(current: dict[Key, Obj], new: dict[Key, Obj]) -> None:
    """BadUpdate unless both packages define the same objects, with only
    images and ConfigMap/Secret content changed."""
    gone, added = (
        sorted(set(current) - set(new)),
        sorted(set(new) - set(current)),
    )
    if gone or added:
        parts = []
        if gone:
            parts.append(
                'missing from the new package: '
                + ', '.join(describe(k) for k in gone)
            )
        if added:
            parts.append(
                'new in the new package: '
                + ', '.join(describe(k) for k in added)
            )
        raise BadUpdate(
            f'{"; ".join(parts)}. A container update keeps the kind, '
            'namespace and name of every object (ConfigMaps and Secrets '
            'included); adding, removing or renaming objects needs Change '
            'Current VNF Package.'
        )
    for k in sorted(current):
        if k[0] in references.CONFIG_KINDS:
            continue
        paths = diff_paths(_stripped(current[k]), _stripped(new[k]))
        if paths:
            what = (
                'only container images may change in a workload'
                if k[0] in references.WORKLOAD_KINDS
                else 'it must be unchanged'
            )
            raise BadUpdate(
                f'{describe(k)} differs in {", ".join(paths[:_MAX_PATHS])}'
                f'{" ..." if len(paths) > _MAX_PATHS else ""}: {what} '
                '(use Change Current VNF Package to apply other changes).'
            )


def _used(spec: Obj, namespace: str, objs: dict[Key, Obj]) -> dict:
    """(kind, name) -> content digest of the package's objects used."""
    out = {}
    for kind, name in references.config_refs(spec):
        obj = objs.get((kind, namespace, name))
        if obj is not None:
            out[(kind, name)] = content.digest(content.normal(obj))
    return out


def _hash_of(obj: Obj, objs: dict[Key, Obj]) -> str:
    spec = references.pod_spec(obj)
    return content.config_hash(
        _used(spec, key(obj)[1], objs), references.images(spec)
    )


def _annotation(obj: Obj) -> str | None:
    meta = (references.pod_template(obj) or {}).get('metadata') or {}
    return (meta.get('annotations') or {}).get(content.HASH_ANNOTATION)


def method_of(obj: Obj) -> str:
    """How a workload's Pods are restarted."""
    kind = obj['kind']
    strategy = ((obj.get('spec') or {}).get('updateStrategy') or {}).get(
        'type'
    )
    if kind == 'Pod':
        return RECREATE
    if kind == 'ReplicaSet' or strategy == 'OnDelete':
        return EVICT
    return ROLLOUT


def _reasons(
    live: Obj, desired_images: dict[str, str], replaced: set[tuple[str, str]]
) -> list[str]:
    have = references.images(references.pod_spec(live))
    out = [
        f'image of {c}: {have.get(c) or "(none)"} -> {i}'
        for c, i in sorted(desired_images.items())
        if have.get(c) != i
    ]
    out += [
        f'uses {kind} {name}, replaced'
        for kind, name in sorted(
            references.config_refs(references.pod_spec(live)) & replaced
        )
    ]
    return out


def _workload(
    k: Key,
    new_obj: Obj,
    current_obj: Obj,
    live: Obj,
    pods: list[Obj],
    new: dict[Key, Obj],
    current: dict[Key, Obj],
    replaced: set[tuple[str, str]],
) -> WorkloadChange | None:
    """The change of one workload, or None when it is up to date."""
    spec = references.pod_spec(new_obj)
    images = references.images(spec)
    wanted = _hash_of(new_obj, new)
    baseline = _hash_of(current_obj, current)
    reasons = _reasons(live, images, replaced)
    live_hash = _annotation(live) or baseline
    if live_hash != wanted and not reasons:
        reasons.append(
            'its ConfigMaps/Secrets or images changed since it '
            'was last restarted'
        )
    stale = bool(reasons)
    method = method_of(live)
    if method == EVICT:
        restart = [
            p
            for p in pods
            if (_annotation(p) or baseline) != wanted
            or references.images(references.pod_spec(p)) != images
            or references.config_refs(references.pod_spec(p)) & replaced
        ]
        stale = (
            references.images(references.pod_spec(live)) != images
            or live_hash != wanted
        )
        if not restart and not stale:
            return None
        reasons = reasons or ['some Pods still run an older template']
    elif not stale:
        return None
    else:
        restart = pods
    return WorkloadChange(
        key=k,
        method=method,
        desired=new_obj,
        images=images,
        config_hash=wanted,
        reasons=reasons,
        pods=[p['metadata']['name'] for p in restart],
        template_stale=stale,
        previous_images=references.images(references.pod_spec(live)),
        previous_hash=_annotation(live),
    )


def _job_pod_spec(obj: Obj) -> Obj:
    spec = obj.get('spec') or {}
    if obj['kind'] == 'CronJob':
        spec = (spec.get('jobTemplate') or {}).get('spec') or {}
    return (spec.get('template') or {}).get('spec') or {}


def _notes(
    objs: dict[Key, Obj],
    live_by_key: dict[Key, Obj],
    replaced: set[tuple[str, str]],
) -> list[str]:
    notes = []
    for k, obj in sorted(objs.items()):
        if k[0] in references.WORKLOAD_KINDS:
            spec = references.pod_spec(live_by_key.get(k) or obj)
            for kind, name in sorted(
                references.ephemeral_refs(spec) & replaced
            ):
                notes.append(
                    f'{describe(k)}: only ephemeral containers use '
                    f'{kind} {name}; they are not restarted.'
                )
        elif k[0] in ('Job', 'CronJob'):
            used = references.config_refs(_job_pod_spec(obj)) & replaced
            for kind, name in sorted(used):
                notes.append(
                    f'{describe(k)} uses {kind} {name}: not '
                    'restarted (a Job runs to completion; a '
                    "CronJob's next run reads the new content)."
                )
    return notes


def plan(
    current: dict[Key, Obj], new: dict[Key, Obj], live: Iterable[Obj]
) -> Plan:
    """What to replace and whom to restart (BadUpdate if refused)."""
    check_same_objects(current, new)
    live_objs = list(live)
    live_by_key = {key(o): o for o in live_objs}
    result = Plan()
    for k in sorted(new):
        if k[0] in references.CONFIG_KINDS:
            action = content.action(new[k], live_by_key.get(k))
            if action:
                result.configs.append(
                    ConfigChange(k, action, new[k], live_by_key.get(k))
                )
    replaced = {(c.key[0], c.key[2]) for c in result.configs}
    for k in sorted(
        new,
        key=lambda k: (
            references.WORKLOAD_KINDS.index(k[0])
            if k[0] in references.WORKLOAD_KINDS
            else -1,
            k,
        ),
    ):
        if k[0] not in references.WORKLOAD_KINDS:
            continue
        workload = live_by_key.get(k)
        if workload is None:
            raise BadUpdate(
                f'{describe(k)} does not exist on the cluster; '
                'heal the VNF instance before updating it.'
            )
        change = _workload(
            k,
            new[k],
            current[k],
            workload,
            k8s.pods_of(workload, live_objs),
            new,
            current,
            replaced,
        )
        if change is not None:
            result.workloads.append(change)
    result.notes = _notes(new, live_by_key, replaced)
    return result
