"""The request pipeline: routing, version, media types, limits, errors."""

from __future__ import annotations

import pytest

from tests.unit.server.conftest import json_of
from vnfm.conf import CONF
from vnfm.server import app as api_app


def _problem(resp, status):
    assert resp.status_int == status, resp.body
    assert resp.content_type == 'application/problem+json'
    body = json_of(resp)
    assert body['status'] == status
    return body['detail']


def test_unknown_path_is_404(client):
    _problem(client.request('GET', '/nothing/here'), 404)


def test_wrong_method_is_405_with_allow(client):
    resp = client.lcm('PUT', '/vnf_instances')
    _problem(resp, 405)
    assert resp.headers['Allow'] == 'GET, POST'


def test_v2_requires_version_header(client):
    resp = client.request('GET', '/vnflcm/v2/vnf_instances')
    assert 'Version' in _problem(resp, 400)


def test_v2_unsupported_version_is_406(client):
    resp = client.request(
        'GET', '/vnflcm/v2/vnf_instances', headers={'Version': '9.9.9'}
    )
    _problem(resp, 406)


def test_v2_malformed_version_is_400(client):
    resp = client.request(
        'GET', '/vnflcm/v2/vnf_instances', headers={'Version': 'latest'}
    )
    _problem(resp, 400)


def test_v2_answers_carry_version(client):
    resp = client.lcm('GET', '/vnf_instances')
    assert resp.status_int == 200
    assert resp.headers['Version'] == '2.0.0'
    assert resp.content_type == 'application/json'


def test_vnfpkgm_needs_no_version(client):
    assert client.pkg('GET', '/vnf_packages').status_int == 200


def test_wrong_content_type_is_415(client):
    resp = client.lcm(
        'POST',
        '/vnf_instances',
        raw=b'vnfdId=x',
        content_type='application/x-www-form-urlencoded',
    )
    assert 'Content-Type' in _problem(resp, 415)


def test_unacceptable_accept_is_406(client):
    resp = client.lcm('GET', '/vnf_instances', headers={'Accept': 'text/html'})
    _problem(resp, 406)


def test_wildcard_accept_is_fine(client):
    resp = client.lcm('GET', '/vnf_instances', headers={'Accept': '*/*'})
    assert resp.status_int == 200


def test_body_over_limit_is_413(client):
    CONF.set_override('max_request_body_size', 1024, group='api')
    try:
        resp = client.lcm('POST', '/vnf_instances', {'vnfdId': 'x' * 2000})
        _problem(resp, 413)
    finally:
        CONF.clear_override('max_request_body_size', group='api')


def test_malformed_json_is_400(client):
    resp = client.lcm(
        'POST',
        '/vnf_instances',
        raw=b'{"vnfdId": ',
        content_type='application/json',
    )
    assert 'not valid JSON' in _problem(resp, 400)


def test_empty_body_is_400(client):
    resp = client.lcm(
        'POST', '/vnf_instances', raw=b'', content_type='application/json'
    )
    assert 'empty' in _problem(resp, 400)


def test_schema_error_names_the_field(client):
    resp = client.lcm('POST', '/vnf_instances', {'vnfdId': 5})
    assert _problem(resp, 400) == "vnfdId: 5 is not of type 'string'"


def test_missing_field_is_named(client):
    resp = client.lcm('POST', '/vnf_instances', {})
    assert _problem(resp, 400) == 'vnfdId: is a required property'


def test_unexpected_error_is_500_without_internals(client, monkeypatch):
    from vnfm.db import api as db

    def boom(*a, **kw):
        raise RuntimeError('secret internal detail')

    monkeypatch.setattr(db, 'instance_scan', boom)
    resp = client.lcm('GET', '/vnf_instances')
    detail = _problem(resp, 500)
    assert 'secret' not in detail


def test_non_id_path_is_404_without_query(client):
    _problem(client.lcm('GET', '/vnf_instances/a%00b'), 404)
    _problem(client.lcm('GET', '/vnf_instances/' + 'a' * 300), 404)


def test_keystone_strategy_wraps_auth_token(database):
    CONF.set_override('auth_strategy', 'keystone', group='api')
    try:
        app = api_app.build_app(rpc=object())
        assert type(app).__name__ == 'AuthProtocol'
    finally:
        CONF.clear_override('auth_strategy', group='api')


def test_keystone_context_from_headers(database, rpc):
    """Without a confirmed identity the app refuses; with one, a member
    only sees its project."""
    from tests.unit.server.conftest import Client
    from vnfm.server import policies

    CONF.set_override('auth_strategy', 'keystone', group='api')
    policies.reset()
    try:
        client = Client(api_app.Application(rpc))
        _problem(client.lcm('GET', '/vnf_instances'), 401)
        headers = {
            'X-Identity-Status': 'Confirmed',
            'X-User-Id': 'u1',
            'X-Project-Id': 'p1',
            # Keystone puts the implied role reader in a member's token.
            'X-Roles': 'member,reader',
        }
        resp = client.lcm('GET', '/vnf_instances', headers=headers)
        assert resp.status_int == 200
    finally:
        CONF.clear_override('auth_strategy', group='api')
        policies.reset()


def test_keystone_401_is_problem_details_with_www_authenticate(database, rpc):
    """keystonemiddleware passes the request on (delay_auth_decision), the
    app answers a ProblemDetails 401, the middleware adds where to get a
    token."""
    from keystonemiddleware.auth_token import _opts  # noqa: F401 (options)

    from tests.unit.server.conftest import Client

    CONF.set_override('auth_strategy', 'keystone', group='api')
    CONF.set_override(
        'www_authenticate_uri',
        'http://keystone.example/v3',
        group='keystone_authtoken',
    )
    try:
        client = Client(api_app.build_app(rpc=rpc))
        resp = client.lcm('GET', '/vnf_instances')
        assert 'X-Auth-Token' in _problem(resp, 401)
        assert resp.headers['WWW-Authenticate'] == (
            'Keystone uri="http://keystone.example/v3"'
        )
    finally:
        CONF.clear_override('auth_strategy', group='api')
        CONF.clear_override('www_authenticate_uri', group='keystone_authtoken')


def test_keystone_reader_is_forbidden_to_create(keystone_client):
    from tests.unit.server.conftest import identity

    reader = identity('p1', 'reader')
    resp = keystone_client.lcm(
        'POST', '/vnf_instances', {'vnfdId': 'x'}, headers=reader
    )
    assert 'create' in _problem(resp, 403)
    resp = keystone_client.lcm('GET', '/vnf_instances', headers=reader)
    assert resp.status_int == 200


def test_keystone_token_without_a_project_is_403(keystone_client):
    from tests.unit.server.conftest import identity

    # A domain-scoped token: roles, no project.
    headers = identity('', 'member', 'reader')
    del headers['X-Project-Id']
    headers['X-Domain-Id'] = 'default'
    resp = keystone_client.lcm(
        'POST', '/vnf_instances', {'vnfdId': 'x'}, headers=headers
    )
    assert 'project-scoped' in _problem(resp, 403)
    resp = keystone_client.lcm('GET', '/vnf_instances', headers=headers)
    assert 'project-scoped' in _problem(resp, 403)


@pytest.mark.parametrize(
    'body, where',
    [
        (b'{"vnfdId": "a\\u0000b"}', 'vnfdId'),
        (b'{"vnfdId": "x", "metadata": {"k\\u0000": 1}}', 'metadata'),
        (
            b'{"vnfdId": "x", "metadata": {"k": ["ok", "\\u0000"]}}',
            'metadata/k/1',
        ),
    ],
)
def test_nul_in_a_string_is_400(client, body, where):
    # PostgreSQL cannot store U+0000 in text or jsonb: refused up front.
    resp = client.lcm(
        'POST', '/vnf_instances', raw=body, content_type='application/json'
    )
    detail = _problem(resp, 400)
    assert 'U+0000' in detail and detail.startswith(where), detail
