"""The local control plane itself: versions, nodes, endpoints."""

from __future__ import annotations

import pytest
from kubernetes import client

from vnfm_testbed.k8s.cluster import LocalCluster

from .helpers import Kubectl

pytestmark = pytest.mark.timeout(60, func_only=True)


def test_server_and_kubectl_are_1_20(
    local_k8s: LocalCluster, kubectl: Kubectl
) -> None:
    versions = kubectl.json('version')
    assert versions['serverVersion']['gitVersion'] == 'v1.20.2'
    assert versions['clientVersion']['gitVersion'] == 'v1.20.2'
    assert local_k8s.endpoint.startswith('https://127.0.0.1:')


def test_nodes_registered_ready_and_untainted(
    k8s_api: client.ApiClient, local_k8s: LocalCluster
) -> None:
    nodes = client.CoreV1Api(k8s_api).list_node().items
    assert len(nodes) == local_k8s.nodes
    for node in nodes:
        ready = {c.type: c.status for c in node.status.conditions}['Ready']
        assert ready == 'True'
        assert not node.spec.taints
        assert node.status.allocatable['pods'] == '110'
        assert node.status.node_info.kubelet_version == 'v1.20.2'


def test_kubectl_get_nodes(kubectl: Kubectl, local_k8s: LocalCluster) -> None:
    out = kubectl('get', 'nodes', '--no-headers')
    assert out.count(' Ready ') == local_k8s.nodes


def test_tls_verified_with_cluster_ca(local_k8s: LocalCluster) -> None:
    status, body = local_k8s.get('/readyz')
    assert (status, body) == (200, b'ok')
