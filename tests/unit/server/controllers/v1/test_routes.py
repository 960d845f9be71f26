"""/vnflcm/v1 serves what /vnflcm/v2 serves (Tacker's v1 API 1.3.0 has the
same resources, but change_vnfpkg), through the v1 pipeline."""

from __future__ import annotations

import pytest

from vnfm.server import policies
from vnfm.server import router
from vnfm.server.controllers.v1 import routes
from vnfm.server.request import VERSIONS
from vnfm.server.request import VNFLCM_V1

V1 = {
    (path, method): action
    for path, methods in routes.ROUTES
    for method, action in methods.items()
}
V2 = {
    (path, method)
    for path, methods in router.TABLE
    for method in methods
    if path.startswith('/vnflcm/v2/')
}


def test_every_v1_route_is_under_vnflcm_v1():
    assert all(path.startswith('/vnflcm/v1/') for path, _ in V1)


def test_v1_serves_the_same_resources_and_methods_as_v2():
    """But Change current VNF package, new in SOL003 v3 (API 2.0.0)."""
    as_v2 = {(p.replace('/vnflcm/v1/', '/vnflcm/v2/'), m) for p, m in V1}

    assert V2 - as_v2 == {
        ('/vnflcm/v2/vnf_instances/{id}/change_vnfpkg', 'POST')
    }
    assert as_v2 <= V2


@pytest.mark.parametrize('route', sorted(V1), ids=lambda r: f'{r[1]} {r[0]}')
def test_each_v1_route_goes_through_the_v1_pipeline(route):
    action = V1[route]

    expected_api = VERSIONS if route[0].endswith('api_versions') else VNFLCM_V1
    assert action.api == expected_api
    assert action.policy in {r.name for r in policies.list_rules()}


def test_the_v1_routes_are_in_the_api():
    table = {(p, m) for p, methods in router.TABLE for m in methods}

    assert set(V1) <= table
