"""What a controller asks of its request: may the caller act on this
resource (another project's is NotFound, not Forbidden: its existence is
not shown), which rows it may list, which LCM API it came through."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import webob

from vnfm.common import context
from vnfm.common import exceptions
from vnfm.server import policies
from vnfm.server import request as api_request


@pytest.fixture(autouse=True)
def _fresh_enforcer() -> Iterator[None]:
    policies.reset()
    yield
    policies.reset()


def _handler(req: api_request.ApiRequest) -> webob.Response:
    return webob.Response()


def make(
    project: str | None,
    *roles: str,
    api: str = api_request.VNFLCM_V2,
    path_args: dict | None = None,
) -> api_request.ApiRequest:
    req = api_request.ApiRequest.blank('/')
    req.ctx = context.RequestContext(
        project_id=project,
        roles=list(roles),
        is_admin='admin' in roles,
        overwrite=False,
    )
    req.action = api_request.Action(_handler, policies.LCM + 'show', api)
    req.path_args = path_args or {}
    return req


def test_a_reader_sees_its_own_projects_resource():
    req = make('p1', 'reader')

    assert req.allows('p1')
    req.authorize('p1')


def test_another_projects_resource_does_not_exist_for_the_caller():
    req = make('p1', 'reader', path_args={'id': 'inst-9'})

    assert not req.allows('p2')
    with pytest.raises(exceptions.NotFound) as e:
        req.authorize('p2')
    assert str(e.value) == 'inst-9 does not exist.'


def test_without_a_role_nothing_is_visible():
    with pytest.raises(exceptions.NotFound, match='The resource does not'):
        make('p1').authorize('p1')


def test_a_resource_made_without_authentication_is_the_callers():
    assert make('p1', 'reader').allows(None)


def test_lists_are_filtered_to_the_callers_project_unless_admin():
    assert make('p1', 'reader').owner_filter() == {'project_id': 'p1'}
    assert make('p1', 'admin').owner_filter() is None


def test_the_lcm_api_version_follows_the_path_family():
    assert make('p1', api=api_request.VNFLCM_V1).lcm_api_version == '1'
    assert make('p1', api=api_request.VNFLCM_V2).lcm_api_version == '2'
