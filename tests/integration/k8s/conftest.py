"""Fixtures for tests against the local Kubernetes control plane."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from kubernetes import client

from vnfm_testbed.k8s.access import api_client
from vnfm_testbed.k8s.cluster import LocalCluster
from vnfm_testbed.k8s.fixtures import local_k8s  # noqa: F401

from .helpers import Kubectl


@pytest.fixture
def k8s_api(local_k8s: LocalCluster) -> Iterator[client.ApiClient]:  # noqa: F811
    """An admin ApiClient of the official client."""
    with api_client(local_k8s) as api:
        yield api


@pytest.fixture
def namespace(
    k8s_api: client.ApiClient,
    local_k8s: LocalCluster,  # noqa: F811
) -> Iterator[str]:
    """A fresh namespace, deleted (with everything in it) after the test."""
    name = local_k8s.create_namespace(f't-{uuid.uuid4().hex[:8]}')
    core = client.CoreV1Api(k8s_api)
    yield name
    core.delete_namespace(name)


@pytest.fixture
def kubectl(local_k8s: LocalCluster, namespace: str) -> Kubectl:  # noqa: F811
    """kubectl 1.20 with the admin kubeconfig, in the test's namespace."""
    return Kubectl(local_k8s, namespace)
