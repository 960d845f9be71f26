"""pytest fixtures for the local OpenStack (Keystone and Heat).

Use from a conftest.py::

    from vnfm_testbed.openstack.cloudfixtures import local_cloud  # noqa: F401
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from vnfm_testbed.openstack.cloud import LocalCloud


@pytest.fixture(scope='session')
def local_cloud(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[LocalCloud]:
    """A running Keystone, heat-api and heat-engine, own databases and vhost.

    A cloud that cannot be built or started fails the tests that use it:
    tools/run-tests installs everything it needs.
    """
    with started_cloud(tmp_path_factory.mktemp('localcloud')) as cloud:
        yield cloud


@contextlib.contextmanager
def started_cloud(state_dir: Path) -> Iterator[LocalCloud]:
    """A cloud of a fresh name in ``state_dir``, started, stopped after."""
    cloud = LocalCloud(
        state_dir, name=f't{uuid.uuid4().hex[:8]}', die_with_parent=True
    )
    cloud.start(timeout=300)
    try:
        yield cloud
    finally:
        cloud.stop()
