"""pytest fixtures for the local Kubernetes control plane.

Use from a conftest.py::

    from vnfm_testbed.k8s.fixtures import local_k8s  # noqa: F401
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from vnfm_testbed import prereqs
from vnfm_testbed.k8s import k8sbuild
from vnfm_testbed.k8s.cluster import LocalCluster

#: Static users of every test cluster, with their groups (no RBAC bindings).
TEST_USERS = {'vnfm-viewer': ['vnfm:viewers']}


@pytest.fixture(scope='session')
def local_k8s(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[LocalCluster]:
    """A running Kubernetes 1.20 control plane with a simulated kubelet;
    its tests skip without one only outside CI and tools/run-tests, or when
    ``VNFM_SKIP_K8S=1`` outside CI (vnfm_testbed.prereqs)."""
    try:
        k8sbuild.ensure_built()
    except k8sbuild.BuildUnavailable as e:
        prereqs.missing(
            f'local Kubernetes unavailable: {e}', opt_out=k8sbuild.SKIP_ENV
        )
    cluster = LocalCluster(
        tmp_path_factory.mktemp('localk8s'),
        nodes=int(os.environ.get('VNFM_K8S_NODES', '2')),
        pod_ready_delay=0.2,
        extra_users=TEST_USERS,
        name='vnfmtest',
        die_with_parent=True,
    )
    cluster.start(timeout=120)
    try:
        yield cluster
    finally:
        cluster.stop()
