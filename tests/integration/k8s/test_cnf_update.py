"""Seed 003's scenario with kubectl: apply a CNF, update it, delete it."""

from __future__ import annotations

from pathlib import Path

import pytest

from vnfm_testbed.k8s.cluster import LocalCluster

from .helpers import Kubectl
from .helpers import eventually
from .helpers import is_ready

pytestmark = pytest.mark.timeout(120, func_only=True)

CNF = Path(__file__).parent / 'manifests' / 'cnf'
BARE_PODS = ('env-test', 'env-test2', 'volume-test', 'volume-test2')


def _all_ready(kubectl: Kubectl, expected: int) -> list[dict]:
    pods = kubectl.pods()
    ready = [p for p in pods if is_ready(p)]
    return ready if len(ready) == expected == len(pods) else []


def test_apply_update_delete_cnf(
    kubectl: Kubectl, local_k8s: LocalCluster
) -> None:
    _apply_until_all_ready(kubectl, local_k8s)
    # The update: new config, and new images everywhere.
    _patch_config(kubectl)
    _roll_deployment_to_a_new_image(kubectl)
    _roll_daemonset_to_a_new_image(kubectl)
    _bare_pod_restarts_with_a_new_image(kubectl)
    # Delete it all; garbage collection cascades to ReplicaSets and Pods.
    kubectl('delete', '-f', str(CNF), '--wait=true', '--timeout=60s')
    eventually(lambda: not kubectl.pods(), 'every CNF pod deleted')
    assert not kubectl.json('get', 'replicasets')['items']


def _apply_until_all_ready(kubectl: Kubectl, local_k8s: LocalCluster) -> None:
    """``kubectl apply`` the CNF: every Pod Running and Ready, every
    rollout done, its ConfigMaps and Secrets there."""
    out = kubectl('apply', '-f', str(CNF))
    assert 'deployment.apps/vdu1-update created' in out
    assert 'daemonset.apps/daemonset-vdu5 created' in out

    # 4 bare Pods, 2 Deployments, 1 ReplicaSet and a DaemonSet Pod per node.
    expected = len(BARE_PODS) + 2 + 1 + local_k8s.nodes
    eventually(
        lambda: _all_ready(kubectl, expected), 'all CNF pods Running and Ready'
    )
    for deploy in ('vdu1-update', 'deployment2-vdu6'):
        kubectl.run(
            'rollout', 'status', f'deployment/{deploy}', '--timeout=30s'
        )
    kubectl.run(
        'rollout', 'status', 'daemonset/daemonset-vdu5', '--timeout=30s'
    )
    assert (
        kubectl.json('get', 'replicaset', 'vdu2-update')['status'][
            'readyReplicas'
        ]
        == 1
    )
    assert 'cm-data3' in kubectl('get', 'configmaps')
    assert 'secret-data3' in kubectl('get', 'secrets')


def _patch_config(kubectl: Kubectl) -> None:
    """A merge patch of a ConfigMap is read back."""
    kubectl(
        'patch',
        'configmap',
        'cm-data',
        '--type=merge',
        '-p',
        '{"data": {"cmKey1.txt": "configmap2 data2\\nfoo2\\nbar2\\n"}}',
    )
    assert (
        'configmap2'
        in kubectl.json('get', 'configmap', 'cm-data')['data']['cmKey1.txt']
    )


def _roll_deployment_to_a_new_image(kubectl: Kubectl) -> None:
    """A Deployment rolls to the new image: a new Pod, the old one gone."""
    old_vdu1 = {p['metadata']['name'] for p in kubectl.pods('app=vdu1-update')}
    kubectl('set', 'image', 'deployment/vdu1-update', 'nginx=tomcat')
    kubectl.run('rollout', 'status', 'deployment/vdu1-update', '--timeout=30s')
    new_vdu1 = eventually(
        lambda: [
            p
            for p in kubectl.pods('app=vdu1-update')
            if p['metadata']['name'] not in old_vdu1
        ],
        'a new vdu1-update pod',
    )
    assert new_vdu1[0]['spec']['containers'][0]['image'] == 'tomcat'
    eventually(
        lambda: len(kubectl.pods('app=vdu1-update')) == 1,
        'old vdu1-update pod gone',
    )


def _roll_daemonset_to_a_new_image(kubectl: Kubectl) -> None:
    """Every Pod of a DaemonSet runs the new image after its rollout."""
    kubectl('set', 'image', 'daemonset/daemonset-vdu5', 'nginx=tomcat')
    kubectl.run(
        'rollout', 'status', 'daemonset/daemonset-vdu5', '--timeout=30s'
    )
    ds_pods = kubectl.pods('app=daemonset-vdu5')
    assert {p['spec']['containers'][0]['image'] for p in ds_pods} == {'tomcat'}


def _bare_pod_restarts_with_a_new_image(kubectl: Kubectl) -> None:
    """A bare Pod's image changes in place: the kubelet restarts the
    container."""
    kubectl('set', 'image', 'pod/env-test', 'nginx=tomcat')

    def restarted() -> dict | None:
        status = kubectl.json('get', 'pod', 'env-test')['status'][
            'containerStatuses'
        ][0]
        return (
            status
            if status['image'] == 'tomcat' and status['restartCount'] == 1
            else None
        )

    status = eventually(restarted, 'env-test restarted with the new image')
    assert status['ready'] and 'running' in status['state']
    assert 'terminated' in status['lastState']
    assert ' 1 ' in kubectl('get', 'pod', 'env-test', '--no-headers')
