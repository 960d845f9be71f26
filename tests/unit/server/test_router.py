"""The route table: every route names a known policy and a body rule that
fits it; an unknown path is a 404, a wrong method a 405 saying which are
allowed, a malformed id a 404."""

from __future__ import annotations

import pytest

from vnfm.common import exceptions
from vnfm.server import policies
from vnfm.server import router
from vnfm.server.request import JSON_BODY
from vnfm.server.request import NO_BODY
from vnfm.server.request import ZIP_BODY

ROUTES = [
    (path, method, action)
    for path, methods in router.TABLE
    for method, action in methods.items()
]
RULES = {rule.name for rule in policies.list_rules()}


@pytest.mark.parametrize(
    'path,method,action', ROUTES, ids=[f'{m} {p}' for p, m, _ in ROUTES]
)
def test_every_route_names_a_registered_policy(path, method, action):
    assert action.policy in RULES


@pytest.mark.parametrize(
    'path,method,action', ROUTES, ids=[f'{m} {p}' for p, m, _ in ROUTES]
)
def test_bodies_only_where_the_method_takes_one(path, method, action):
    assert action.body in (NO_BODY, JSON_BODY, ZIP_BODY)
    if method in ('GET', 'DELETE'):
        assert action.body == NO_BODY
    if action.body == JSON_BODY:
        assert action.consumes, 'a JSON body names the types it takes'


def test_no_path_and_method_is_routed_twice():
    pairs = [(path, method) for path, method, _ in ROUTES]

    assert len(pairs) == len(set(pairs))


def test_a_route_matches_with_its_id():
    action, args = router.build().match(
        'GET', '/vnflcm/v2/vnf_instances/a1b2-c3'
    )

    assert action.policy == policies.LCM + 'show'
    assert args == {'id': 'a1b2-c3'}


def test_an_unknown_path_is_a_404_naming_it():
    with pytest.raises(exceptions.NotFound) as e:
        router.build().match('GET', '/vnflcm/v2/no_such_resources')

    assert str(e.value) == 'No resource at /vnflcm/v2/no_such_resources.'


def test_a_very_long_path_is_a_404_quoting_only_its_start():
    path = '/vnflcm/v2/' + 'x' * 5000

    with pytest.raises(exceptions.NotFound) as e:
        router.build().match('GET', path)

    assert len(str(e.value)) < 300


def test_a_wrong_method_is_a_405_with_the_allowed_ones():
    with pytest.raises(exceptions.MethodNotAllowed) as e:
        router.build().match('PUT', '/vnflcm/v2/vnf_instances')

    assert e.value.headers == {'Allow': 'GET, POST'}
    assert str(e.value) == (
        'PUT is not allowed on /vnflcm/v2/vnf_instances; allowed: GET, POST.'
    )


@pytest.mark.parametrize('bad_id', ['a b', "x'y", 'ü', 'a' * 256])
def test_an_id_that_cannot_be_one_is_a_404(bad_id):
    with pytest.raises(exceptions.NotFound, match='No resource with id'):
        router.build().match('GET', f'/vnflcm/v2/vnf_instances/{bad_id}')
