"""What the simulated kubelet reports: statuses, pull failures, init."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kubernetes import client

from .helpers import Kubectl
from .helpers import eventually

pytestmark = pytest.mark.timeout(60, func_only=True)

MANIFESTS = Path(__file__).parent / 'manifests'


def test_failing_image_shows_image_pull_backoff(
    namespace: str, kubectl: Kubectl
) -> None:
    kubectl('apply', '-f', str(MANIFESTS / 'failing-pod.yaml'))

    def waiting_reason() -> str:
        statuses = (
            kubectl.json('get', 'pod', 'broken')['status'].get(
                'containerStatuses'
            )
            or []
        )
        return (
            statuses[0]['state'].get('waiting', {}).get('reason', '')
            if statuses
            else ''
        )

    assert eventually(waiting_reason, 'a waiting reason') == 'ImagePullBackOff'
    pod = kubectl.json('get', 'pod', 'broken')
    assert pod['status']['phase'] == 'Pending'
    assert pod['status']['containerStatuses'][0]['ready'] is False
    ready = {c['type']: c['status'] for c in pod['status']['conditions']}[
        'Ready'
    ]
    assert ready == 'False'
    assert 'ImagePullBackOff' in kubectl(
        'get', 'pod', 'broken', '--no-headers'
    )


def test_running_pod_status_is_complete(
    k8s_api: client.ApiClient, namespace: str
) -> None:
    core = client.CoreV1Api(k8s_api)
    pod = _run_pod_full_with_init_and_two_containers(core, namespace)
    status = pod.status
    assert status.pod_ip.startswith('10.244.')
    assert status.host_ip.startswith('192.0.2.')
    assert status.start_time is not None
    assert {c.type: c.status for c in status.conditions} == {
        'Initialized': 'True',
        'Ready': 'True',
        'ContainersReady': 'True',
        'PodScheduled': 'True',
    }
    _assert_init_completed_and_app_running(status)
    node = core.read_node(pod.spec.node_name)
    assert status.host_ip in {a.address for a in node.status.addresses}


def _run_pod_full_with_init_and_two_containers(
    core: client.CoreV1Api, namespace: str
) -> Any:
    """Pod full (init container setup; app nginx:1.19 and side), once
    Running."""
    core.create_namespaced_pod(
        namespace,
        {
            'metadata': {'name': 'full'},
            'spec': {
                'initContainers': [{'name': 'setup', 'image': 'busybox'}],
                'containers': [
                    {'name': 'app', 'image': 'nginx:1.19'},
                    {'name': 'side', 'image': 'envoy'},
                ],
            },
        },
    )
    return eventually(
        lambda: (
            (p := core.read_namespaced_pod('full', namespace)).status.phase
            == 'Running'
            and p
        ),
        'pod full Running',
    )


def _assert_init_completed_and_app_running(status: Any) -> None:
    init = status.init_container_statuses[0]
    assert (init.name, init.state.terminated.reason, init.ready) == (
        'setup',
        'Completed',
        True,
    )
    by_name = {c.name: c for c in status.container_statuses}
    assert set(by_name) == {'app', 'side'}
    app = by_name['app']
    assert app.image == 'nginx:1.19' and app.image_id.startswith(
        'docker-pullable://nginx@sha256:'
    )
    assert app.ready and app.started and app.restart_count == 0
    assert app.state.running.started_at is not None


def test_failing_init_container_blocks_the_pod(
    k8s_api: client.ApiClient, namespace: str
) -> None:
    core = client.CoreV1Api(k8s_api)
    core.create_namespaced_pod(
        namespace,
        {
            'metadata': {'name': 'blocked'},
            'spec': {
                'initContainers': [
                    {'name': 'setup', 'image': 'no-such-image:1'}
                ],
                'containers': [{'name': 'app', 'image': 'nginx'}],
            },
        },
    )

    def init_reason() -> str:
        statuses = core.read_namespaced_pod(
            'blocked', namespace
        ).status.init_container_statuses
        return (
            statuses[0].state.waiting.reason
            if statuses and statuses[0].state.waiting
            else ''
        )

    assert (
        eventually(init_reason, 'init container waiting') == 'ImagePullBackOff'
    )
    pod = core.read_namespaced_pod('blocked', namespace)
    assert pod.status.phase == 'Pending'
    assert (
        pod.status.container_statuses[0].state.waiting.reason
        == 'PodInitializing'
    )
