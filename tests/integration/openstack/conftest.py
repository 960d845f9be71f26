"""Fixtures for tests against the local OpenStack (real Keystone and Heat)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from heatclient import client as heat_client

from vnfm.testing.cloudfixtures import local_cloud  # noqa: F401
from vnfm.testing.openstack.cloud import LocalCloud


@pytest.fixture
def heat_for(
    local_cloud: LocalCloud,  # noqa: F811
) -> Callable[[str], heat_client.Client]:
    """python-heatclient of a user, finding Heat through the catalog."""

    def make(user: str = 'demo') -> heat_client.Client:
        return heat_client.Client('1', session=local_cloud.session(user))

    return make
