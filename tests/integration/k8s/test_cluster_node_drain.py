"""kubernetes_cluster's Node removal against the local control plane: the
Node found by its address, cordoned, its Pods evicted (a
PodDisruptionBudget holds, bounded), then deleted."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

import pytest
from kubernetes import client

from tests.integration.container_update.conftest import vim_info
from vnfm.clients import kubernetes as k8s
from vnfm.conf import CONF
from vnfm.drivers.mgmt.kubernetes_cluster import drain
from vnfm_testbed.k8s import nodes as simnodes
from vnfm_testbed.k8s import podstatus
from vnfm_testbed.k8s.cluster import LocalCluster

ADDRESS = '198.18.0.99'
NODE = 'vm-worker-99'


@pytest.fixture
def vm_node(k8s_api: client.ApiClient) -> Iterator[str]:
    """A Node of a VM at ADDRESS (no kubelet plays it)."""
    core = client.CoreV1Api(k8s_api)
    core.create_node(simnodes.node_body(NODE, 99))  # type: ignore[arg-type]
    status = simnodes.node_status(NODE, ADDRESS, podstatus.now_rfc3339())
    core.patch_node_status(
        NODE,
        {'status': status},
        _content_type='application/merge-patch+json',
    )
    yield NODE
    with contextlib.suppress(client.ApiException):
        core.delete_node(NODE)


@pytest.fixture
def short_evictions() -> Iterator[None]:
    CONF.set_override('eviction_timeout', 2, group='kubernetes')
    yield
    CONF.clear_override('eviction_timeout', group='kubernetes')


def test_drain_respects_the_budget_then_deletes_the_node(
    local_k8s: LocalCluster,
    k8s_api: client.ApiClient,
    namespace: str,
    vm_node: str,
    short_evictions: None,
) -> None:
    core = client.CoreV1Api(k8s_api)
    _run_ready_pod_web_0_on(core, namespace, vm_node)
    budget = {
        'apiVersion': 'policy/v1beta1',
        'kind': 'PodDisruptionBudget',
        'metadata': {'name': 'web', 'namespace': namespace},
        'spec': {
            'minAvailable': 1,
            'selector': {'matchLabels': {'app': 'web'}},
        },
    }
    with k8s.KubeClient(vim_info(local_k8s)) as kube:
        kube.create(budget)
        deadline = time.monotonic() + 60

        with pytest.raises(k8s.EvictionBlocked, match=f'{namespace}/web-0'):
            drain.remove_node(kube, ADDRESS, deadline)

        assert core.read_node(vm_node).spec.unschedulable is True
        assert core.read_namespaced_pod('web-0', namespace)

        kube.delete('policy/v1beta1', 'PodDisruptionBudget', 'web', namespace)
        assert drain.remove_node(kube, ADDRESS, deadline) == vm_node
        assert drain.remove_node(kube, ADDRESS, deadline) is None

    assert vm_node not in [n.metadata.name for n in core.list_node().items]
    left = core.read_namespaced_pod('web-0', namespace)
    assert left.metadata.deletion_timestamp is not None  # evicted
    core.delete_namespaced_pod('web-0', namespace, grace_period_seconds=0)


def _run_ready_pod_web_0_on(
    core: client.CoreV1Api, namespace: str, node: str
) -> None:
    """Pod web-0 (app=web) on ``node``, Running and Ready (a Pending Pod
    ignores budgets)."""
    pod = {
        'apiVersion': 'v1',
        'kind': 'Pod',
        'metadata': {'name': 'web-0', 'labels': {'app': 'web'}},
        'spec': {
            'nodeName': node,
            'containers': [{'name': 'c', 'image': 'web:1'}],
        },
    }
    core.create_namespaced_pod(namespace, pod)  # type: ignore[arg-type]
    now = podstatus.now_rfc3339()
    ready = {'type': 'Ready', 'status': 'True', 'lastTransitionTime': now}
    core.patch_namespaced_pod_status(  # a Pending Pod ignores budgets
        'web-0',
        namespace,
        {'status': {'phase': 'Running', 'conditions': [ready]}},
    )
