"""RBAC is enforced: credentials without rights are refused with 403."""

from __future__ import annotations

import pytest
from kubernetes import client

from vnfm_testbed.k8s.access import api_client
from vnfm_testbed.k8s.access import service_account_token
from vnfm_testbed.k8s.cluster import NOACCESS_USER
from vnfm_testbed.k8s.cluster import LocalCluster

from .helpers import Kubectl

pytestmark = pytest.mark.timeout(60, func_only=True)


def _status_of(call: object, *args: object) -> int:
    try:
        call(*args)  # type: ignore[operator]
    except client.ApiException as e:
        return int(e.status)
    return 200


def test_static_user_without_rights_gets_403(
    local_k8s: LocalCluster, namespace: str
) -> None:
    with api_client(local_k8s, local_k8s.user_token(NOACCESS_USER)) as api:
        core = client.CoreV1Api(api)
        assert _status_of(core.list_namespaced_pod, namespace) == 403
        assert _status_of(core.list_node) == 403


def test_bad_token_gets_401(local_k8s: LocalCluster, namespace: str) -> None:
    with api_client(local_k8s, 'not-a-token') as api:
        assert (
            _status_of(client.CoreV1Api(api).list_namespaced_pod, namespace)
            == 401
        )


def test_service_account_rights_follow_its_role_binding(
    local_k8s: LocalCluster, namespace: str
) -> None:
    bare = service_account_token(local_k8s, namespace, 'bare')
    viewer = service_account_token(
        local_k8s, namespace, 'viewer', cluster_role='view'
    )
    pod = {
        'metadata': {'name': 'p'},
        'spec': {'containers': [{'name': 'c', 'image': 'nginx'}]},
    }

    with api_client(local_k8s, bare) as api:
        assert (
            _status_of(client.CoreV1Api(api).list_namespaced_pod, namespace)
            == 403
        )
    with api_client(local_k8s, viewer) as api:
        core = client.CoreV1Api(api)
        assert _status_of(core.list_namespaced_pod, namespace) == 200
        assert _status_of(core.create_namespaced_pod, namespace, pod) == 403
        assert _status_of(core.list_namespaced_pod, 'kube-system') == 403


def test_kubectl_with_unprivileged_token_is_forbidden(
    local_k8s: LocalCluster, namespace: str
) -> None:
    proc = Kubectl(
        local_k8s, namespace, token=local_k8s.user_token(NOACCESS_USER)
    ).run('get', 'pods', check=False)
    assert proc.returncode != 0
    assert 'Forbidden' in proc.stderr
