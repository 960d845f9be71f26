"""Unit tests for vnfm_testbed.k8s.podstatus (simulated kubelet reports)."""

from __future__ import annotations

import re

from vnfm_testbed.k8s import podstatus

FAILING = re.compile(r'\.invalid/|(^|/)no-such-image([:@]|$)')
T0, T1 = '2026-01-01T00:00:00Z', '2026-01-01T00:01:00Z'


def _pod(*images: str, init: tuple[str, ...] = (), owner: str = '') -> dict:
    pod = {
        'metadata': {'name': 'p', 'uid': 'u-1'},
        'spec': {
            'nodeName': 'n0',
            'containers': [
                {'name': f'c{i}', 'image': im} for i, im in enumerate(images)
            ],
            'initContainers': [
                {'name': f'i{i}', 'image': im} for i, im in enumerate(init)
            ],
        },
        'status': {'phase': 'Pending'},
    }
    if owner:
        pod['metadata']['ownerReferences'] = [{'kind': owner, 'name': 'o'}]
    return pod


def _status(pod: dict, now: str = T0) -> dict:
    return podstatus.desired_status(
        pod,
        host_ip='192.0.2.10',
        pod_ip='10.244.0.2',
        failing=FAILING,
        now=now,
    )


def _conds(status: dict) -> dict[str, str]:
    return {c['type']: c['status'] for c in status['conditions']}


def test_running_and_ready() -> None:
    status = _status(_pod('nginx:1.19'))
    assert status['phase'] == 'Running'
    assert _conds(status) == {
        'Initialized': 'True',
        'Ready': 'True',
        'ContainersReady': 'True',
        'PodScheduled': 'True',
    }
    (c,) = status['containerStatuses']
    assert c['state'] == {'running': {'startedAt': T0}}
    assert (c['ready'], c['started'], c['restartCount']) == (True, True, 0)
    assert c['imageID'].startswith('docker-pullable://nginx@sha256:')
    assert status['podIP'] == '10.244.0.2'
    assert status['hostIP'] == '192.0.2.10'


def test_failing_image_is_image_pull_backoff() -> None:
    status = _status(_pod('nginx', 'registry.example.invalid/app:1'))
    assert status['phase'] == 'Pending'
    assert _conds(status)['Ready'] == 'False'
    bad = status['containerStatuses'][1]
    assert bad['state']['waiting']['reason'] == 'ImagePullBackOff'
    assert bad['ready'] is False and bad['imageID'] == ''
    assert status['containerStatuses'][0]['ready'] is True


def test_init_containers_complete_first() -> None:
    status = _status(_pod('nginx', init=('busybox',)))
    (init,) = status['initContainerStatuses']
    assert init['state']['terminated']['reason'] == 'Completed'
    assert status['phase'] == 'Running'


def test_failing_init_container_blocks_main_containers() -> None:
    status = _status(_pod('nginx', init=('no-such-image:1', 'busybox')))
    first, second = status['initContainerStatuses']
    assert first['state']['waiting']['reason'] == 'ImagePullBackOff'
    assert second['state']['waiting']['reason'] == 'PodInitializing'
    main = status['containerStatuses'][0]
    assert main['state']['waiting']['reason'] == 'PodInitializing'
    assert _conds(status)['Initialized'] == 'False'


def test_stable_once_reported() -> None:
    pod = _pod('nginx', init=('busybox',))
    pod['status'] = _status(pod, T0)
    again = _status(pod, T1)
    assert not podstatus.needs_update(pod, again)
    assert again['containerStatuses'][0]['state']['running']['startedAt'] == T0


def test_in_place_image_change_restarts_container() -> None:
    pod = _pod('nginx')
    pod['status'] = _status(pod, T0)
    old_id = pod['status']['containerStatuses'][0]['containerID']
    pod['spec']['containers'][0]['image'] = 'tomcat'
    status = _status(pod, T1)
    assert podstatus.needs_update(pod, status)
    (c,) = status['containerStatuses']
    assert (c['image'], c['restartCount'], c['ready']) == ('tomcat', 1, True)
    assert c['state'] == {'running': {'startedAt': T1}}
    assert c['lastState']['terminated']['containerID'] == old_id
    assert c['containerID'] != old_id
    # Conditions did not change, so their transition times stay.
    times = {c['lastTransitionTime'] for c in status['conditions']}
    assert times == {T0}


def test_job_pod_succeeds() -> None:
    status = _status(_pod('busybox', owner='Job'))
    assert status['phase'] == 'Succeeded'
    (c,) = status['containerStatuses']
    assert c['state']['terminated']['exitCode'] == 0
    assert _conds(status)['Ready'] == 'False'


def test_needs_update_ignores_empty_values() -> None:
    pod = _pod('nginx')
    pod['status'] = _status(pod)
    pod['status']['containerStatuses'][0]['lastState'] = {}
    pod['status']['qosClass'] = 'BestEffort'
    assert not podstatus.needs_update(pod, _status(pod, T1))
