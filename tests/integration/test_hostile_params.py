"""Hostile requests through the real API (vnfm-api and conductors on
RabbitMQ and PostgreSQL): each is a 400 naming what is wrong, and the
instance, its op occurrences and the conductors' queue stay as they were.
(Every parameter against every payload: tests/unit/objects/
test_lcm_params.py and test_k8s_cluster_hostile.py.)"""

from __future__ import annotations

import pytest

from tests.integration.conftest import Api
from tests.unit import hostile_values

pytestmark = pytest.mark.timeout(120)


def _cases() -> list:
    payloads = hostile_values.PAYLOADS
    return [
        pytest.param(
            {'namespace': 'ns' + payloads['command-substitution']},
            'additionalParams/namespace: ',
            id='namespace-shell',
        ),
        pytest.param(
            {'lcm-kubernetes-def-files': ['Files' + payloads['dot-dot']]},
            'additionalParams/lcm-kubernetes-def-files/0: ',
            id='def-files-dot-dot',
        ),
        pytest.param(
            # Half a MiB: a whole one is over the body limit (a 413).
            {'lcm-operation-user-data-class': payloads['huge'][: 1 << 19]},
            'additionalParams/lcm-operation-user-data-class: ',
            id='user-data-class-512KiB',
        ),
        pytest.param(
            {'_sealed': 'gAAAAAB-not-vnfm-s'},
            'additionalParams/_sealed: ',
            id='sealed',
        ),
        pytest.param(
            {'namespace': 'a\x00b'},
            'additionalParams/namespace: ',
            id='nul',
        ),
    ]


@pytest.mark.parametrize('params, detail', _cases())
def test_a_hostile_instantiate_is_a_400_and_changes_nothing(
    api: Api, pkg_v2: dict, params: dict, detail: str
) -> None:
    inst_id = api.create_instance(pkg_v2['vnfdId'], name='it-hostile')
    before = api.instance(inst_id)
    r = api.lcm(
        'POST',
        f'/vnf_instances/{inst_id}/instantiate',
        json=api.instantiate_request(**params),
    )
    assert r.status_code == 400, r.text
    assert r.headers['Content-Type'].startswith('application/problem+json')
    assert r.json()['detail'].startswith(detail), r.json()
    assert len(r.text) < 2000
    assert api.ops(inst_id) == []
    assert api.instance(inst_id) == before


def test_a_request_body_nested_too_deeply_is_a_400(
    api: Api, pkg_v2: dict
) -> None:
    inst_id = api.create_instance(pkg_v2['vnfdId'], name='it-deep')
    body = '{"flavourId": "simple", "additionalParams": {"a": '
    body += '[' * 500 + ']' * 500 + '}}'
    r = api.lcm(
        'POST',
        f'/vnf_instances/{inst_id}/instantiate',
        data=body.encode(),
        headers={'Content-Type': 'application/json'},
    )
    assert r.status_code == 400, r.text
    assert 'nested too deeply' in r.json()['detail']
    assert api.ops(inst_id) == []
