"""Workloads and their Pods: readiness, Pods by owner references, deletion.

Waits are watch-driven (``Informer``): they return on the event that makes
them true and fail at once on a Pod stuck in ImagePullBackOff, CrashLoopBackOff
or the like, with ``Pod <name>: <Reason> (<message>)``.

A rollback waits differently (``ForcedRollback``): once a workload's Pod
template is reverted, a Pod made from the bad template is not a failure of
the workload but something to remove. A StatefulSet never replaces a Pod
that is not Running and Ready, whatever its template (Kubernetes documents
the remedy as a "forced rollback": delete those Pods), and nothing replaces
the Pods of an OnDelete workload or a ReplicaSet; so such Pods that are not
Ready are deleted, and their controller creates them again from the
reverted template. A Deployment's controller scales the bad ReplicaSet down
by itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from vnfm.clients.kubernetes import errors
from vnfm.clients.kubernetes import status
from vnfm.clients.kubernetes.client import KubeClient
from vnfm.clients.kubernetes.client import ref
from vnfm.clients.kubernetes.watcher import Informer
from vnfm.clients.kubernetes.watcher import WatchSpec
from vnfm.clients.kubernetes.watcher import key

Obj = dict[str, Any]
REVISION_LABEL = 'controller-revision-hash'
DEPLOYMENT_REVISION = 'deployment.kubernetes.io/revision'
_CONTAINER_LISTS = ('initContainers', 'containers')


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


def _observed(workload: Obj) -> bool:
    meta, st = workload.get('metadata') or {}, workload.get('status') or {}
    return int(st.get('observedGeneration') or 0) >= int(
        meta.get('generation') or 0
    )


def _images(pod_spec: Obj) -> dict[str, str]:
    return {
        f'{lst}/{c.get("name")}': c.get('image', '')
        for lst in _CONTAINER_LISTS
        for c in pod_spec.get(lst) or []
    }


def _differs_from_template(workload: Obj, pod: Obj) -> bool:
    """Images or vnfm's annotations of the Pod differ from the template's."""
    template = (workload.get('spec') or {}).get('template') or {}
    if _images(template.get('spec') or {}) != _images(pod.get('spec') or {}):
        return True
    want = (template.get('metadata') or {}).get('annotations') or {}
    have = (pod.get('metadata') or {}).get('annotations') or {}
    keys = {k for k in set(want) | set(have) if k.startswith('vnfm.io/')}
    return any(want.get(k) != have.get(k) for k in keys)


def outdated(workload: Obj, pod: Obj, objects: Iterable[Obj]) -> bool:
    """Tell whether a Pod was made from a template its workload no longer
    has (by controller revision where the kind has one)."""
    kind, st = workload.get('kind'), workload.get('status') or {}
    if kind == 'Pod':
        return False
    labels = (pod.get('metadata') or {}).get('labels') or {}
    if (
        kind == 'StatefulSet'
        and st.get('updateRevision')
        and _observed(workload)
        and REVISION_LABEL in labels
    ):
        return labels[REVISION_LABEL] != st['updateRevision']
    if kind == 'Deployment':
        want = _annotations(workload).get(DEPLOYMENT_REVISION)
        owners = _owners(pod, objects)
        if want and owners:
            return all(
                _annotations(rs).get(DEPLOYMENT_REVISION) != want
                for rs in owners
            )
    return _differs_from_template(workload, pod)


def _annotations(obj: Obj) -> dict[str, str]:
    return (obj.get('metadata') or {}).get('annotations') or {}


def _owners(pod: Obj, objects: Iterable[Obj]) -> list[Obj]:
    uids = {
        r.get('uid')
        for r in (pod.get('metadata') or {}).get('ownerReferences') or []
    }
    return [o for o in objects if _uid(o) in uids]


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
        tolerate_outdated: bool = False,
    ) -> None:
        self.informer = informer
        self.keys = [key(w) for w in workloads]
        # uids, not names: a StatefulSet's new Pod has the old one's name.
        self.absent = set(absent_pods)
        # A rollback: failing Pods of an older template are to be replaced,
        # not a failure.
        self.tolerate_outdated = tolerate_outdated

    def __call__(self) -> tuple[bool, str]:
        objects = list(self.informer.objects.values())
        for k in self.keys:
            live = self.informer.objects.get(k)
            if live is None:
                return False, f'{k[0]} {k[1]}/{k[2]} does not exist yet'
            if self.tolerate_outdated and not _observed(live):
                return False, f'{ref(live)}: new generation not observed yet'
            pods = pods_of(live, objects)
            for pod in pods:
                failure = status.pod_failure(pod)
                if failure and not self._tolerated(live, pod, objects):
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

    def _tolerated(self, live: Obj, pod: Obj, objects: list[Obj]) -> bool:
        if _uid(pod) in self.absent:
            return True
        return self.tolerate_outdated and outdated(live, pod, objects)

    def _pods_ready(self, live: Obj, pods: list[Obj]) -> tuple[bool, str]:
        gone = [p for p in pods if _uid(p) in self.absent]
        if gone:
            return (
                False,
                f'Pod {gone[0]["metadata"]["name"]} (uid {_uid(gone[0])}) '
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


class ForcedRollback:
    """Predicate of a rollback's wait: ``ReadyCheck`` that tolerates Pods of
    an older template and deletes those not Ready (see the module)."""

    def __init__(
        self,
        kube: KubeClient,
        informer: Informer,
        workloads: list[Obj],
        grace_period: int | None = None,
        absent_pods: Iterable[str] = (),
    ) -> None:
        self.kube, self.informer = kube, informer
        self.grace_period = grace_period
        self.ready = ReadyCheck(
            informer, workloads, absent_pods, tolerate_outdated=True
        )
        self.deleted: set[str] = set()

    def __call__(self) -> tuple[bool, str]:
        objects = list(self.informer.objects.values())
        for k in self.ready.keys:
            live = self.informer.objects.get(k)
            if live is None or live['kind'] in ('Deployment', 'Pod'):
                continue
            if not _observed(live):
                continue
            for pod in pods_of(live, objects):
                self._remove_if_stuck(live, pod, objects)
        return self.ready()

    def _remove_if_stuck(
        self, live: Obj, pod: Obj, objects: list[Obj]
    ) -> None:
        if _uid(pod) in self.deleted or status.pod(pod)[0]:
            return
        if not outdated(live, pod, objects):
            return
        meta = pod['metadata']
        self.kube.delete(
            'v1',
            'Pod',
            meta['name'],
            meta.get('namespace'),
            'Background',
            self.grace_period,
        )
        self.deleted.add(_uid(pod))


def wait_ready(
    kube: KubeClient,
    workloads: list[Obj],
    selector: str,
    deadline: float,
    absent_pods: Iterable[str] = (),
    forced_rollback: bool = False,
) -> dict[tuple, list[Obj]]:
    """Wait until the workloads are ready, without the Pods whose uids are
    ``absent_pods``; their Pods by workload key. ``forced_rollback``: the
    templates were just reverted (see ``ForcedRollback``)."""
    workloads = [
        w for w in workloads if status.has_readiness(w.get('kind', ''))
    ]
    if not workloads:
        return {}
    with Informer(kube, watch_specs(workloads, selector)) as informer:
        check: Callable[[], tuple[bool, str]] = (
            ForcedRollback(kube, informer, workloads, None, absent_pods)
            if forced_rollback
            else ReadyCheck(informer, workloads, absent_pods)
        )
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
