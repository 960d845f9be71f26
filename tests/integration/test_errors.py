"""Bad requests over HTTP: every error is an application/problem+json
ProblemDetails with the HTTP status and a detail saying what is wrong."""

from __future__ import annotations

import uuid

import pytest

pytestmark = pytest.mark.timeout(60)

JSON = {'Content-Type': 'application/json'}


def _problem(r, status: int, *words: str) -> dict:
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers['Content-Type'].startswith('application/problem+json'), (
        r.headers
    )
    problem = r.json()
    assert problem['status'] == status, problem
    assert isinstance(problem['detail'], str) and problem['detail'], problem
    for word in words:
        assert word.lower() in problem['detail'].lower(), problem
    return problem


def test_malformed_json(api) -> None:
    r = api.lcm('POST', '/vnf_instances', data=b'{"vnfdId": ', headers=JSON)
    _problem(r, 400)


def test_schema_violation_names_the_field(api) -> None:
    r = api.lcm('POST', '/vnf_instances', json={'vnfdId': 42})
    _problem(r, 400, 'vnfdId')
    r = api.lcm('POST', '/vnf_instances', json={'vnfInstanceName': 'x'})
    _problem(r, 400, 'vnfdId')


def test_unknown_ids(api) -> None:
    missing = str(uuid.uuid4())
    _problem(api.lcm('GET', f'/vnf_instances/{missing}'), 404)
    _problem(api.lcm('GET', f'/vnf_lcm_op_occs/{missing}'), 404)
    _problem(
        api.lcm(
            'POST',
            f'/vnf_instances/{missing}/instantiate',
            json=api.instantiate_request(),
        ),
        404,
    )
    _problem(
        api.request(
            'GET', f'/vnfpkgm/v1/vnf_packages/{missing}', version=None
        ),
        404,
    )


def test_wrong_method(api) -> None:
    _problem(api.lcm('PUT', '/vnf_instances', json={}), 405)
    _problem(api.lcm('DELETE', '/vnf_lcm_op_occs'), 405)


def test_version_header(api) -> None:
    _problem(api.lcm('GET', '/vnf_instances', version=None), 400, 'Version')
    _problem(api.lcm('GET', '/vnf_instances', version='9.9.9'), 406)


def test_accept_and_content_type(api) -> None:
    _problem(
        api.lcm('GET', '/vnf_instances', headers={'Accept': 'text/html'}), 406
    )
    r = api.lcm(
        'POST',
        '/vnf_instances',
        data=b'vnfdId=x',
        headers={'Content-Type': 'text/plain'},
    )
    _problem(r, 415)


def test_wrong_state(api, pkg_v1) -> None:
    inst_id = api.create_instance(api.V1_VNFD_ID, 'errors')
    r = api.lcm(
        'POST',
        f'/vnf_instances/{inst_id}/terminate',
        json={'terminationType': 'FORCEFUL'},
    )
    _problem(r, 409, 'NOT_INSTANTIATED')
    op_id = api.start(inst_id, 'instantiate', api.instantiate_request())
    api.wait_op(op_id, 'COMPLETED')
    # Deleting an instantiated instance, retrying a completed op: 409.
    _problem(api.lcm('DELETE', f'/vnf_instances/{inst_id}'), 409)
    _problem(api.lcm('POST', f'/vnf_lcm_op_occs/{op_id}/retry'), 409)


def test_nul_character_is_400(api, pkg_v1) -> None:
    # PostgreSQL refuses U+0000 in text: this was a 500 (found by the
    # schema fuzzing, tests/integration/test_schema_fuzz.py).
    r = api.lcm('POST', '/vnf_instances', json={'vnfdId': 'a\x00b'})
    _problem(r, 400, 'U+0000')
    pkg = f'/vnfpkgm/v1/vnf_packages/{pkg_v1["id"]}'
    r = api.request(
        'PATCH', pkg, version=None, json={'userDefinedData': {'k': '\x00'}}
    )
    _problem(r, 400, 'userDefinedData/k')
