"""Workloads and their Pods: readiness, Pods by owner references, deletion.

Waits are watch-driven (``Informer``): they return on the event that makes
them true and fail at once on a Pod stuck in ImagePullBackOff, CrashLoopBackOff
or the like, with ``Pod <name>: <Reason> (<message>)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from vnfm.clients.kubernetes import errors, status
from vnfm.clients.kubernetes.client import KubeClient, ref
from vnfm.clients.kubernetes.watcher import Informer, WatchSpec, key

Obj = dict[str, Any]


def _uid(obj: Obj) -> str:
    return (obj.get('metadata') or {}).get('uid', '')


def _owned(objs: Iterable[Obj], owner_uids: set[str]) -> list[Obj]:
    return [
        o
        for o in objs
        if any(
            r.get('uid') in owner_uids
            for r in (o.get('metadata') or {}).get('ownerReferences') or []
        )
    ]


def pods_of(workload: Obj, objects: Iterable[Obj]) -> list[Obj]:
    """Live (not terminating) Pods of a workload, found by owner references.

    Deployment → its ReplicaSets → their Pods; other controllers own their Pods
    directly; a bare Pod is its own. Sorted by creation time, then name.
    """
    objs = list(objects)
    kind = workload.get('kind')
    if kind == 'Pod':
        mine = [
            o
            for o in objs
            if o.get('kind') == 'Pod' and key(o) == key(workload)
        ]
    else:
        owners = {_uid(workload)}
        if kind == 'Deployment':
            owners = {
                _uid(rs)
                for rs in _owned(
                    (o for o in objs if o.get('kind') == 'ReplicaSet'), owners
                )
            }
        mine = _owned((o for o in objs if o.get('kind') == 'Pod'), owners)
    live = [p for p in mine if not p['metadata'].get('deletionTimestamp')]
    return sorted(
        live,
        key=lambda p: (
            p['metadata'].get('creationTimestamp', ''),
            p['metadata']['name'],
        ),
    )


def desired_pods(workload: Obj) -> int | None:
    """How many Pods a ready workload has (None: not counted, e.g. Jobs)."""
    kind, spec = workload.get('kind'), workload.get('spec') or {}
    if kind == 'Pod':
        return 1
    if kind in ('Deployment', 'ReplicaSet', 'StatefulSet'):
        return 1 if spec.get('replicas') is None else int(spec['replicas'])
    if kind == 'DaemonSet':
        return int(
            (workload.get('status') or {}).get('desiredNumberScheduled') or 0
        )
    return None


def watch_specs(workloads: Iterable[Obj], selector: str) -> list[WatchSpec]:
    """What an Informer must watch to judge these workloads and their Pods."""
    specs: list[WatchSpec] = []
    for w in workloads:
        ns = w['metadata'].get('namespace')
        specs.append(WatchSpec(w['apiVersion'], w['kind'], ns, selector))
        specs.append(WatchSpec('v1', 'Pod', ns, selector))
        if w['kind'] == 'Deployment':
            specs.append(WatchSpec('apps/v1', 'ReplicaSet', ns, selector))
    return specs


class ReadyCheck:
    """Predicate: every workload ready, its Pods all Ready, none failing."""

    def __init__(
        self,
        informer: Informer,
        workloads: list[Obj],
        absent_pods: Iterable[str] = (),
    ) -> None:
        self.informer = informer
        self.keys = [key(w) for w in workloads]
        # uids, not names: a StatefulSet's new Pod has the old one's name.
        self.absent = set(absent_pods)

    def __call__(self) -> tuple[bool, str]:
        objects = list(self.informer.objects.values())
        for k in self.keys:
            live = self.informer.objects.get(k)
            if live is None:
                return False, f'{k[0]} {k[1]}/{k[2]} does not exist yet'
            pods = pods_of(live, objects)
            for pod in pods:
                failure = status.pod_failure(pod)
                if failure:
                    raise errors.WorkloadFailed(f'{ref(live)}: {failure}')
            failure = (
                status.job_failure(live) if live['kind'] == 'Job' else None
            )
            if failure:
                raise errors.WorkloadFailed(failure)
            ready, why = status.readiness(live)
            if not ready:
                return False, f'{ref(live)}: {why}'
            ok, why = self._pods_ready(live, pods)
            if not ok:
                return False, f'{ref(live)}: {why}'
        return True, ''

    def _pods_ready(self, live: Obj, pods: list[Obj]) -> tuple[bool, str]:
        gone = [p for p in pods if _uid(p) in self.absent]
        if gone:
            return (
                False,
                f"Pod {gone[0]['metadata']['name']} (uid {_uid(gone[0])}) "
                'is still there',
            )
        want = desired_pods(live)
        if want is None:
            return True, ''
        ready = [p for p in pods if status.pod(p)[0]]
        if len(ready) != want or len(pods) != want:
            return (
                False,
                f'{len(ready)} of {want} Pods ready ({len(pods)} live)',
            )
        return True, ''


def wait_ready(
    kube: KubeClient,
    workloads: list[Obj],
    selector: str,
    deadline: float,
    absent_pods: Iterable[str] = (),
) -> dict[tuple, list[Obj]]:
    """Wait until the workloads are ready, without the Pods whose uids are
    ``absent_pods``; their Pods by workload key."""
    workloads = [
        w for w in workloads if status.has_readiness(w.get('kind', ''))
    ]
    if not workloads:
        return {}
    with Informer(kube, watch_specs(workloads, selector)) as informer:
        check = ReadyCheck(informer, workloads, absent_pods)
        informer.wait(check, deadline, 'workloads to become ready')
        objects = list(informer.objects.values())
        return {
            key(w): pods_of(informer.objects[key(w)], objects)
            for w in workloads
        }


def list_pods(
    kube: KubeClient, workloads: list[Obj], selector: str
) -> dict[tuple, list[Obj]]:
    """Current live Pods of each workload (one list per kind and namespace)."""
    objects: list[Obj] = []
    seen = set()
    for spec in watch_specs(workloads, selector):
        if spec not in seen:
            seen.add(spec)
            objects += kube.list(
                spec.api_version,
                spec.kind,
                spec.namespace,
                spec.label_selector,
            )[0]
    by_key = {key(o): o for o in objects}
    return {
        key(w): pods_of(by_key[key(w)], objects) if key(w) in by_key else []
        for w in workloads
    }


def delete_and_wait(
    kube: KubeClient,
    objs: list[Obj],
    selector: str | None,
    deadline: float,
    grace_period: int | None = None,
    propagation: str = 'Foreground',
) -> list[Obj]:
    """Delete objects in the given order and wait until all are gone."""
    deleted = [
        o
        for o in objs
        if kube.delete(
            o['apiVersion'],
            o['kind'],
            o['metadata']['name'],
            o['metadata'].get('namespace'),
            propagation,
            grace_period,
        )
    ]
    wait_gone(kube, deleted, selector, deadline)
    return deleted


def wait_gone(
    kube: KubeClient, objs: list[Obj], selector: str | None, deadline: float
) -> None:
    """Wait until none of ``objs`` exists (watched, not polled).

    An object given with its uid is gone once only another object of its
    name exists (a controller may re-create a deleted one).
    """
    if not objs:
        return
    specs = [
        WatchSpec(
            o['apiVersion'],
            o['kind'],
            o['metadata'].get('namespace'),
            selector,
        )
        for o in objs
        if o['kind'] != 'Namespace'
    ]
    uids = {key(o): _uid(o) for o in objs}
    namespaces = [o for o in objs if o['kind'] == 'Namespace']
    with Informer(kube, specs) as informer:

        def check() -> tuple[bool, str]:
            left = sorted(
                k
                for k, uid in uids.items()
                if k in informer.objects
                and uid in ('', _uid(informer.objects[k]))
            )
            if left:
                return (
                    False,
                    f'{left[0][0]} {left[0][1]}/{left[0][2]} still exists',
                )
            return True, ''

        informer.wait(check, deadline, 'deleted objects to disappear')
    for ns in namespaces:  # namespaces are cluster-scoped: watch by name
        _wait_namespace_gone(kube, ns['metadata']['name'], deadline)


def _wait_namespace_gone(kube: KubeClient, name: str, deadline: float) -> None:
    spec = WatchSpec('v1', 'Namespace', None, None)
    with Informer(kube, [spec]) as informer:
        informer.wait(
            lambda: (
                ('Namespace', '', name) not in informer.objects,
                f'Namespace {name} still exists',
            ),
            deadline,
            f'Namespace {name} to disappear',
        )
