"""Controllers converge against the simulated kubelet."""

from __future__ import annotations

from pathlib import Path

import pytest
from kubernetes import client
from kubernetes import watch

from .helpers import Kubectl
from .helpers import eventually
from .helpers import is_ready

pytestmark = pytest.mark.timeout(90, func_only=True)

MANIFESTS = Path(__file__).parent / 'manifests'


def _deployment(name: str, replicas: int, image: str = 'nginx:1.19') -> dict:
    labels = {'app': name}
    return {
        'metadata': {'name': name},
        'spec': {
            'replicas': replicas,
            'selector': {'matchLabels': labels},
            'template': {
                'metadata': {'labels': labels},
                'spec': {'containers': [{'name': 'app', 'image': image}]},
            },
        },
    }


def _ready_names(kubectl: Kubectl, selector: str, count: int) -> set[str]:
    pods = kubectl.pods(selector)
    names = {p['metadata']['name'] for p in pods if is_ready(p)}
    return names if len(names) == count == len(pods) else set()


def test_deployment_available_then_rolls_to_new_template(
    k8s_api: client.ApiClient,
    namespace: str,
    kubectl: Kubectl,
) -> None:
    apps = client.AppsV1Api(k8s_api)
    apps.create_namespaced_deployment(namespace, _deployment('web', 3))

    def available() -> bool:
        dep = apps.read_namespaced_deployment('web', namespace)
        conds = {c.type: c.status for c in dep.status.conditions or []}
        return (
            conds.get('Available') == 'True'
            and dep.status.available_replicas == 3
        )

    eventually(available, 'Deployment web Available with 3 replicas')
    first = eventually(
        lambda: _ready_names(kubectl, 'app=web', 3), '3 ready web pods'
    )

    apps.patch_namespaced_deployment(
        'web',
        namespace,
        {
            'spec': {
                'template': {
                    'spec': {
                        'containers': [{'name': 'app', 'image': 'nginx:1.20'}]
                    }
                }
            }
        },
    )
    kubectl.run('rollout', 'status', 'deployment/web', '--timeout=60s')
    second = eventually(
        lambda: _ready_names(kubectl, 'app=web', 3),
        '3 ready web pods after rollout',
    )
    assert not first & second
    images = {
        p['status']['containerStatuses'][0]['image']
        for p in kubectl.pods('app=web')
    }
    assert images == {'nginx:1.20'}
    assert len(kubectl.json('get', 'replicasets', '-l=app=web')['items']) == 2


def test_rollout_restart_and_scale(
    k8s_api: client.ApiClient, namespace: str, kubectl: Kubectl
) -> None:
    client.AppsV1Api(k8s_api).create_namespaced_deployment(
        namespace, _deployment('api', 2)
    )
    kubectl.run('rollout', 'status', 'deployment/api', '--timeout=60s')
    before = eventually(
        lambda: _ready_names(kubectl, 'app=api', 2), '2 ready api pods'
    )

    kubectl('rollout', 'restart', 'deployment/api')
    kubectl.run('rollout', 'status', 'deployment/api', '--timeout=60s')
    after = eventually(
        lambda: _ready_names(kubectl, 'app=api', 2), '2 restarted api pods'
    )
    assert not before & after

    kubectl('scale', 'deployment/api', '--replicas=4')
    eventually(lambda: _ready_names(kubectl, 'app=api', 4), '4 ready api pods')
    kubectl('scale', 'deployment/api', '--replicas=1')
    eventually(lambda: _ready_names(kubectl, 'app=api', 1), '1 api pod left')
    eventually(
        lambda: '1/1' in kubectl('get', 'deployment', 'api', '--no-headers'),
        'status 1/1',
    )


def test_replicaset_replaces_a_deleted_pod(
    namespace: str, kubectl: Kubectl
) -> None:
    kubectl('apply', '-f', str(MANIFESTS / 'cnf' / 'configmaps.yaml'))
    kubectl('apply', '-f', str(MANIFESTS / 'cnf' / 'replicaset.yaml'))
    kubectl('scale', 'replicaset/vdu2-update', '--replicas=2')
    names = eventually(
        lambda: _ready_names(kubectl, 'app=vdu2-update', 2),
        '2 ready vdu2 pods',
    )

    victim = sorted(names)[0]
    kubectl('delete', 'pod', victim, '--wait=true', '--timeout=30s')
    now = eventually(
        lambda: _ready_names(kubectl, 'app=vdu2-update', 2),
        'a replacement pod',
    )
    assert victim not in now
    assert len(now - names) == 1


def test_statefulset_pods_come_up_in_order(
    k8s_api: client.ApiClient,
    namespace: str,
    kubectl: Kubectl,
) -> None:
    core = client.CoreV1Api(k8s_api)
    start_rv = core.list_namespaced_pod(namespace).metadata.resource_version
    kubectl('apply', '-f', str(MANIFESTS / 'statefulset.yaml'))

    created: list[str] = []
    ready_when_next_created: list[bool] = []
    ready: set[str] = set()
    for event in watch.Watch().stream(
        core.list_namespaced_pod,
        namespace,
        resource_version=start_rv,
        timeout_seconds=60,
    ):
        pod = event['object']
        name = pod.metadata.name
        if name not in created:
            ready_when_next_created.append(
                bool(created) and created[-1] in ready
            )
            created.append(name)
        if any(
            c.type == 'Ready' and c.status == 'True'
            for c in pod.status.conditions or []
        ):
            ready.add(name)
        if len(ready) == 3:
            break
    assert created == ['db-0', 'db-1', 'db-2']
    assert ready_when_next_created == [False, True, True]
    kubectl.run('rollout', 'status', 'statefulset/db', '--timeout=30s')


def test_delete_cascades_in_foreground(
    k8s_api: client.ApiClient, namespace: str, kubectl: Kubectl
) -> None:
    apps = client.AppsV1Api(k8s_api)
    apps.create_namespaced_deployment(namespace, _deployment('gone', 2))
    eventually(lambda: _ready_names(kubectl, 'app=gone', 2), '2 ready pods')

    apps.delete_namespaced_deployment(
        'gone', namespace, propagation_policy='Foreground'
    )
    # In the foreground the Deployment stays until its dependents are gone.
    eventually(
        lambda: not kubectl.json('get', 'deployments')['items'],
        'deployment deleted',
    )
    assert not kubectl.pods('app=gone')
    assert not kubectl.json('get', 'replicasets')['items']


def test_kubectl_delete_cascades(namespace: str, kubectl: Kubectl) -> None:
    kubectl('create', 'deployment', 'cascade', '--image=nginx', '--replicas=2')
    kubectl.run('rollout', 'status', 'deployment/cascade', '--timeout=60s')
    kubectl(
        'delete',
        'deployment',
        'cascade',
        '--cascade=true',
        '--wait=true',
        '--timeout=30s',
    )
    eventually(
        lambda: not kubectl.pods('app=cascade'),
        'pods of the deleted deployment gone',
    )


def test_job_runs_to_completion(namespace: str, kubectl: Kubectl) -> None:
    kubectl('create', 'job', 'once', '--image=busybox')
    kubectl.run(
        'wait', '--for=condition=complete', 'job/once', '--timeout=60s'
    )
    pod = kubectl.pods('job-name=once')[0]
    assert pod['status']['phase'] == 'Succeeded'
