"""Is an object ready? Pure functions over API JSON, rollout-status style.

``readiness(obj)`` answers (ready, why-not) for the kinds that have a
rollout (Deployment, StatefulSet, DaemonSet, ReplicaSet), Pods and Jobs;
other kinds are ready once they exist. ``pod_failure(pod)`` names a state a
Pod does not leave by itself (image pull back-off, crash loop...), so a
wait can fail at once instead of running into its deadline.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

# Waiting reasons that mean "this will not become ready without a change".
FATAL_WAITING = frozenset(
    (
        'ImagePullBackOff',
        'ErrImagePull',
        'CrashLoopBackOff',
        'InvalidImageName',
        'ErrImageNeverPull',
        'CreateContainerConfigError',
        'CreateContainerError',
        'RunContainerError',
    )
)

Obj = dict[str, Any]
Ready = tuple[bool, str]


def _rollout(check: Callable[[Obj, Obj], Ready]) -> Callable[[Obj], Ready]:
    """A controller's readiness rule, run once the controller has observed
    the object's latest generation (``check`` gets the object and its
    status)."""

    @functools.wraps(check)
    def ready(obj: Obj) -> Ready:
        meta, st = obj.get('metadata') or {}, obj.get('status') or {}
        if int(st.get('observedGeneration') or 0) < int(
            meta.get('generation') or 0
        ):
            return (
                False,
                'waiting for the controller to observe the new generation',
            )
        return check(obj, st)

    return ready


def _replicas(obj: Obj) -> int:
    value = (obj.get('spec') or {}).get('replicas')
    return 1 if value is None else int(value)


def _replicas_ready(obj: Obj, st: Obj) -> Ready:
    want, ready = _replicas(obj), int(st.get('readyReplicas') or 0)
    if ready < want or int(st.get('replicas') or 0) != want:
        return False, f'{ready} of {want} replicas ready'
    return True, ''


@_rollout
def deployment(obj: Obj, st: Obj) -> Ready:
    """kubectl rollout status for a Deployment."""
    for cond in st.get('conditions') or []:
        if (
            cond.get('type') == 'Progressing'
            and cond.get('reason') == 'ProgressDeadlineExceeded'
        ):
            return (
                False,
                f'progress deadline exceeded: {cond.get("message", "")}',
            )
    want, updated = _replicas(obj), int(st.get('updatedReplicas') or 0)
    if updated < want:
        return False, f'{updated} of {want} replicas updated'
    if int(st.get('replicas') or 0) > updated:
        return (
            False,
            f'{int(st["replicas"]) - updated} old replicas pending '
            'termination',
        )
    if int(st.get('availableReplicas') or 0) < updated:
        return (
            False,
            f'{int(st.get("availableReplicas") or 0)} of {updated} updated '
            'replicas available',
        )
    return True, ''


@_rollout
def statefulset(obj: Obj, st: Obj) -> Ready:
    """kubectl rollout status for a StatefulSet (RollingUpdate)."""
    ready = _replicas_ready(obj, st)
    if not ready[0]:
        return ready
    strategy = ((obj.get('spec') or {}).get('updateStrategy') or {}).get(
        'type'
    )
    if strategy != 'OnDelete' and st.get('updateRevision') != st.get(
        'currentRevision'
    ):
        return (
            False,
            f'{int(st.get("updatedReplicas") or 0)} of {_replicas(obj)} '
            'replicas updated',
        )
    return True, ''


@_rollout
def daemonset(obj: Obj, st: Obj) -> Ready:
    """kubectl rollout status for a DaemonSet."""
    want = int(st.get('desiredNumberScheduled') or 0)
    updated = int(st.get('updatedNumberScheduled') or 0)
    available = int(st.get('numberAvailable') or 0)
    if updated < want or available < want:
        return (
            False,
            f'{available} of {want} scheduled Pods available '
            f'({updated} updated)',
        )
    return True, ''


@_rollout
def replicaset(obj: Obj, st: Obj) -> Ready:
    """A ReplicaSet is ready when all its replicas are ready."""
    return _replicas_ready(obj, st)


def pod(obj: dict[str, Any]) -> Ready:
    """A Pod is ready when its Ready condition is True (or it Succeeded)."""
    st = obj.get('status') or {}
    if st.get('phase') == 'Succeeded':
        return True, ''
    for cond in st.get('conditions') or []:
        if cond.get('type') == 'Ready':
            if cond.get('status') == 'True':
                return True, ''
            return False, cond.get('reason') or 'not Ready'
    return False, f'phase {st.get("phase") or "Pending"}'


def job(obj: dict[str, Any]) -> Ready:
    """A Job is ready when it is Complete."""
    for cond in (obj.get('status') or {}).get('conditions') or []:
        if cond.get('type') == 'Complete' and cond.get('status') == 'True':
            return True, ''
    return False, 'not complete'


_BY_KIND = {
    'Deployment': deployment,
    'StatefulSet': statefulset,
    'DaemonSet': daemonset,
    'ReplicaSet': replicaset,
    'Pod': pod,
    'Job': job,
}


def has_readiness(kind: str) -> bool:
    """Tell whether objects of ``kind`` have a readiness to wait for."""
    return kind in _BY_KIND


def readiness(obj: dict[str, Any]) -> Ready:
    """(ready, why not) of any object; kinds without a rollout are ready."""
    check = _BY_KIND.get(obj.get('kind', ''))
    return check(obj) if check else (True, '')


def pod_failure(obj: dict[str, Any]) -> str | None:
    """``Pod <name>: <Reason> (<message>)`` if the Pod is stuck, else None."""
    st = obj.get('status') or {}
    name = (obj.get('metadata') or {}).get('name')
    if st.get('phase') == 'Failed':
        why = ' '.join(str(st[k]) for k in ('reason', 'message') if st.get(k))
        return f'Pod {name}: Failed ({why or "phase Failed"})'
    for cs in (st.get('initContainerStatuses') or []) + (
        st.get('containerStatuses') or []
    ):
        waiting = (cs.get('state') or {}).get('waiting') or {}
        if waiting.get('reason') in FATAL_WAITING:
            message = waiting.get('message') or f'container {cs.get("name")}'
            return f'Pod {name}: {waiting["reason"]} ({message})'
    return None


def job_failure(obj: dict[str, Any]) -> str | None:
    """``Job <name>: <reason> (<message>)`` if the Job failed, else None."""
    for cond in (obj.get('status') or {}).get('conditions') or []:
        if cond.get('type') == 'Failed' and cond.get('status') == 'True':
            return (
                f'Job {obj["metadata"]["name"]}: '
                f'{cond.get("reason", "Failed")} '
                f'({cond.get("message", "")})'
            )
    return None
