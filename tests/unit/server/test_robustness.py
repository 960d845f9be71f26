"""No input produces a 500: every route gets malformed and hostile input."""

from __future__ import annotations

import itertools

import pytest

from tests.unit.server.conftest import make_instance
from tests.unit.server.conftest import make_op
from tests.unit.server.conftest import make_package
from vnfm.server import router

BODIES = [
    b'',
    b'{',
    b'null',
    b'[]',
    b'[{}]',
    b'"text"',
    b'42',
    b'{}',
    b'{"a": 1e999}',
    b'{"n": 123456789012345678901234567890}',
    b'\xff\xfe\x00garbage',
    b'{"vnfdId": "\\u0000"}',
    b'{"flavourId": 5, "vnfdId": ["x"], "terminationType": {}}',
    '{"vnfdId": "\u00e9\u4e2d\U0001f600", "flavourId": "\u00e9"}'.encode(),
    b'[' * 5000 + b']' * 5000,
    b'{"operationalState": "ENABLED", "userDefinedData": []}',
    b'{"addressInformation": "http://[::1"}',
    b'{"addressInformation": "://x"}',
    b'{"type": "SCALE_OUT", "aspectId": "a", "numberOfSteps": '
    b'9223372036854775807}',
    b'{"callbackUri": "", "filter": null}',
    b'{"vimConnectionInfo": {"v": null}, "metadata": "x"}',
]
CONTENT_TYPES = [
    'application/json',
    'application/merge-patch+json',
    'application/zip',
    None,
]
IDS = [
    '00000000-0000-0000-0000-000000000000',
    'not-a-uuid',
    '%00',
    '%ff%fe',
    '..',
    'x' * 300,
    '%E2%82%AC',
]
QUERIES = [
    '',
    '?filter=(eq,id',
    '?filter=(eq,id,%ff)',
    '?fields=',
    '?all_fields&fields=a',
    '?nextpage_opaque_marker=zz',
    '?filter=(gt,instantiationState,5)',
    '?%ff=%fe',
    '?exclude_default&exclude_fields=x',
]


def _paths(ids: list[str]) -> list[tuple[str, str]]:
    out = []
    for path, methods in router.TABLE:
        for method in list(methods) + ['PUT', 'DELETE']:
            for id_ in ids:
                concrete = path.replace('{id}', id_).replace(
                    '{path:.+}', 'Scripts/../../etc/passwd'
                )
                out.append((method, concrete))
    return sorted(set(out))


@pytest.fixture
def existing(database):
    pkg = make_package(operational='DISABLED')
    inst = make_instance(pkg, state='INSTANTIATED')
    op = make_op(inst)
    return [pkg['id'], inst['id'], op['id']]


def test_no_body_gives_500(client, existing):
    for (method, path), body, ctype in itertools.product(
        _paths(existing + IDS[:1]), BODIES, CONTENT_TYPES
    ):
        headers = {'Version': '2.0.0'}
        resp = client.request(
            method, path, raw=body, content_type=ctype, headers=headers
        )
        assert resp.status_int < 500, (method, path, body[:60], resp.body)
        assert resp.status_int in (200, 201, 202, 204, 303) or (
            resp.content_type == 'application/problem+json'
        ), (method, path, resp.headers)


def test_no_id_or_query_gives_500(client, existing):
    for (method, path), query in itertools.product(_paths(IDS), QUERIES):
        for version in ('2.0.0', None, '2.0', '\u00e9'):
            headers = {'Version': version} if version else {}
            resp = client.request(method, path + query, headers=headers)
            assert resp.status_int < 500, (method, path, query, resp.body)


@pytest.mark.parametrize(
    'accept', ['', '*/*', 'text/html', 'garbage;;q=x', 'application/zip;q=0']
)
def test_no_accept_header_gives_500(client, existing, accept):
    for method, path in _paths(existing[:2]):
        resp = client.request(
            method, path, headers={'Version': '2.0.0', 'Accept': accept}
        )
        assert resp.status_int < 500, (method, path, resp.body)
