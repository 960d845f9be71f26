"""What a kubelet would report for a Pod: pure functions over Pod dicts."""

from __future__ import annotations

import datetime
import hashlib
from typing import Any, Protocol

Status = dict[str, Any]


class ImageCheck(Protocol):
    """Tells which images fail to pull (a compiled pattern is one)."""

    def search(self, image: str) -> Any:
        """Truthy when ``image`` cannot be pulled."""


_OUR_KEYS = (
    'phase',
    'conditions',
    'hostIP',
    'podIP',
    'podIPs',
    'startTime',
    'containerStatuses',
    'initContainerStatuses',
)


def now_rfc3339() -> str:
    """Current UTC time in the API's second-precision RFC 3339 form."""
    return datetime.datetime.now(datetime.timezone.utc).strftime(
        '%Y-%m-%dT%H:%M:%SZ'
    )


def _digest(*parts: str) -> str:
    return hashlib.sha256('\0'.join(parts).encode()).hexdigest()


def image_id(image: str) -> str:
    """A stable fake digest reference for ``image``."""
    repo = (
        image.split('@', 1)[0].rsplit(':', 1)[0]
        if '/' in image or ':' in image
        else image
    )
    return f'docker-pullable://{repo}@sha256:{_digest(image)}'


def is_job_pod(pod: dict[str, Any]) -> bool:
    """Tell whether the Pod belongs to a Job (it runs to completion)."""
    owners = pod.get('metadata', {}).get('ownerReferences') or []
    return any(o.get('kind') == 'Job' for o in owners)


def _waiting(reason: str, message: str = '') -> dict[str, Any]:
    waiting = {'reason': reason}
    if message:
        waiting['message'] = message
    return {'waiting': waiting}


def _container_status(
    container: dict[str, Any],
    prev: dict[str, Any] | None,
    pod_uid: str,
    state: dict[str, Any],
    ready: bool,
    now: str,
) -> dict[str, Any]:
    """Status of one container; a changed image counts as a restart."""
    image = container.get('image', '')
    restarts = int(prev.get('restartCount', 0)) if prev else 0
    status: dict[str, Any] = {'name': container['name'], 'image': image}
    prev_state = (prev or {}).get('state', {})
    if (
        prev
        and prev.get('image') == image
        and 'running' in prev_state
        and 'running' in state
    ):
        state = prev_state  # nothing changed: keep startedAt
        last = prev.get('lastState') or {}
    elif prev and prev.get('image') != image and 'running' in prev_state:
        restarts += (
            1  # in-place image update: the kubelet restarts the container
        )
        last = {
            'terminated': {
                'exitCode': 0,
                'reason': 'Completed',
                'startedAt': prev_state['running'].get('startedAt', now),
                'finishedAt': now,
                'containerID': prev.get('containerID', ''),
            }
        }
    else:
        last = (prev or {}).get('lastState') or {}
    status.update(
        ready=ready,
        restartCount=restarts,
        state=state,
        lastState=last,
        started='running' in state,
    )
    if 'waiting' not in state:
        status['imageID'] = image_id(image)
        status['containerID'] = 'containerd://' + _digest(
            pod_uid, container['name'], str(restarts)
        )
    else:
        status['imageID'] = ''
    return status


def _condition(
    prev: list[dict[str, Any]],
    ctype: str,
    ok: bool,
    now: str,
    reason: str = '',
) -> dict[str, Any]:
    status = 'True' if ok else 'False'
    old = next((c for c in prev if c.get('type') == ctype), None)
    cond = {'type': ctype, 'status': status, 'lastProbeTime': None}
    cond['lastTransitionTime'] = (
        old['lastTransitionTime']
        if old
        and old.get('status') == status
        and old.get('lastTransitionTime')
        else now
    )
    if reason and not ok:
        cond['reason'] = reason
    return cond


def desired_status(
    pod: dict[str, Any],
    *,
    host_ip: str,
    pod_ip: str,
    failing: ImageCheck,
    now: str | None = None,
) -> Status:
    """The status a kubelet would write for ``pod`` after pulling images."""
    now = now or now_rfc3339()
    spec, current = pod.get('spec', {}), pod.get('status') or {}
    uid = pod.get('metadata', {}).get('uid', '')
    prev_init = {
        c['name']: c for c in current.get('initContainerStatuses') or []
    }
    prev_main = {c['name']: c for c in current.get('containerStatuses') or []}
    done = {
        'terminated': {
            'exitCode': 0,
            'reason': 'Completed',
            'startedAt': now,
            'finishedAt': now,
        }
    }

    init_statuses, blocked = [], ''
    for c in spec.get('initContainers') or []:
        if blocked:
            state = _waiting('PodInitializing')
        elif failing.search(c.get('image', '')):
            blocked = 'ImagePullBackOff'
            state = _waiting(
                blocked, f'Back-off pulling image "{c.get("image", "")}"'
            )
        else:
            old = prev_init.get(c['name'], {}).get('state', {})
            state = old if 'terminated' in old else done
        init_statuses.append(
            _container_status(
                c, prev_init.get(c['name']), uid, state, not blocked, now
            )
        )

    job = is_job_pod(pod)
    main_statuses = []
    for c in spec.get('containers') or []:
        if blocked:
            state = _waiting('PodInitializing')
        elif failing.search(c.get('image', '')):
            state = _waiting(
                'ImagePullBackOff',
                f'Back-off pulling image "{c.get("image", "")}"',
            )
        elif job:
            old = prev_main.get(c['name'], {}).get('state', {})
            state = old if 'terminated' in old else done
        else:
            state = {'running': {'startedAt': now}}
        main_statuses.append(
            _container_status(
                c,
                prev_main.get(c['name']),
                uid,
                state,
                'running' in state,
                now,
            )
        )

    all_ready = all(s['ready'] for s in main_statuses)
    if (
        job
        and all('terminated' in s['state'] for s in main_statuses)
        and main_statuses
    ):
        phase, not_ready_reason = 'Succeeded', 'PodCompleted'
    else:
        phase = (
            'Running'
            if all('running' in s['state'] for s in main_statuses)
            else 'Pending'
        )
        not_ready_reason = 'ContainersNotReady'
    prev_conds = current.get('conditions') or []
    conditions = [
        _condition(
            prev_conds,
            'Initialized',
            not blocked,
            now,
            'ContainersNotInitialized',
        ),
        _condition(
            prev_conds,
            'Ready',
            all_ready and phase == 'Running',
            now,
            not_ready_reason,
        ),
        _condition(
            prev_conds,
            'ContainersReady',
            all_ready and phase == 'Running',
            now,
            not_ready_reason,
        ),
        _condition(prev_conds, 'PodScheduled', True, now),
    ]
    ip = current.get('podIP') or pod_ip
    status: Status = {
        'phase': phase,
        'conditions': conditions,
        'hostIP': host_ip,
        'podIP': ip,
        'podIPs': [{'ip': ip}],
        'startTime': current.get('startTime') or now,
        'containerStatuses': main_statuses,
    }
    if init_statuses:
        status['initContainerStatuses'] = init_statuses
    return status


def _normalise(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _normalise(v)
            for k, v in value.items()
            if v not in (None, {}, [])
        }
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    return value


def needs_update(pod: dict[str, Any], desired: Status) -> bool:
    """Tell whether ``desired`` differs from the Pod's current status."""
    current = pod.get('status') or {}
    return any(
        _normalise(current.get(k)) != _normalise(desired.get(k))
        for k in _OUR_KEYS
    )
