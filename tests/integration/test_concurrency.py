"""Two operations sent at the same moment on one VNF instance: exactly one
is accepted (202), the other is refused with a 409 ProblemDetails."""

from __future__ import annotations

import threading

import pytest
import requests

pytestmark = pytest.mark.timeout(120)

ROUNDS = 3
HEADERS = {'Version': '2.0.0'}
# The accepted op sleeps in its first hook, so the refused request cannot
# arrive after it finished and see another state.
SLEEP = {
    'instantiate_start': 1,
    'terminate_start': 1,
    'modify_information_start': 1,
}


def _race(api, inst_id: str, calls: list[tuple[str, str, dict]]) -> list:
    """Send ``calls`` (method, path, body) at once; return the responses
    in the same order."""
    barrier = threading.Barrier(len(calls))
    out: list = [None] * len(calls)

    def send(i: int, method: str, path: str, body: dict) -> None:
        # A session per thread (requests.Session is not thread-safe), its
        # connection opened before the start line.
        with requests.Session() as http:
            url = f'{api.base}/vnflcm/v2/vnf_instances/{inst_id}'
            http.get(url, headers=HEADERS, timeout=30)
            barrier.wait()
            out[i] = http.request(
                method, url + path, json=body, headers=HEADERS, timeout=30
            )

    threads = [
        threading.Thread(target=send, args=(i, *req))
        for i, req in enumerate(calls)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return out


def _one_wins(api, responses: list) -> str:
    """Check one 202 and one 409 ProblemDetails; return the winner's op id."""
    codes = sorted(r.status_code for r in responses)
    assert codes == [202, 409], [(r.status_code, r.text) for r in responses]
    won = next(r for r in responses if r.status_code == 202)
    lost = next(r for r in responses if r.status_code == 409)
    assert lost.headers['Content-Type'].startswith('application/problem+json')
    problem = lost.json()
    assert problem['status'] == 409 and problem['detail'], problem
    return won.headers['Location'].rstrip('/').rsplit('/', 1)[1]


def test_two_instantiates_at_once(api, pkg_v1) -> None:
    body = api.instantiate_request(hook_sleep=SLEEP)
    for _ in range(ROUNDS):
        inst_id = api.create_instance(api.V1_VNFD_ID, 'race')
        op_id = _one_wins(
            api,
            _race(
                api,
                inst_id,
                [
                    ('POST', '/instantiate', body),
                    ('POST', '/instantiate', body),
                ],
            ),
        )
        api.wait_op(op_id, 'COMPLETED')
        ops = api.lcm(
            'GET',
            '/vnf_lcm_op_occs',
            params={'filter': f'(eq,vnfInstanceId,{inst_id})'},
        ).json()
        assert [o['id'] for o in ops] == [op_id]


def test_instantiate_against_modify(api, pkg_v1) -> None:
    inst_body = api.instantiate_request(hook_sleep=SLEEP)
    for i in range(ROUNDS):
        inst_id = api.create_instance(api.V1_VNFD_ID, 'race')
        modify = {
            'vnfInstanceName': f'renamed-{i}',
            'metadata': {'hook_sleep': SLEEP},
        }
        op_id = _one_wins(
            api,
            _race(
                api,
                inst_id,
                [('POST', '/instantiate', inst_body), ('PATCH', '', modify)],
            ),
        )
        op = api.wait_op(op_id, 'COMPLETED')
        inst = api.instance(inst_id)
        # Only the winner's change is visible.
        if op['operation'] == 'INSTANTIATE':
            assert inst['instantiationState'] == 'INSTANTIATED'
            assert inst['vnfInstanceName'] == 'race'
        else:
            assert op['operation'] == 'MODIFY_INFO'
            assert inst['instantiationState'] == 'NOT_INSTANTIATED'
            assert inst['vnfInstanceName'] == f'renamed-{i}'


def test_terminate_against_modify(api, pkg_v1) -> None:
    inst_id = api.create_instance(api.V1_VNFD_ID, 'race')
    for i in range(ROUNDS):
        api.wait_op(
            api.start(inst_id, 'instantiate', api.instantiate_request()),
            'COMPLETED',
        )
        modify = {
            'vnfInstanceName': f'renamed-{i}',
            'metadata': {'hook_sleep': SLEEP},
        }
        terminate = {
            'terminationType': 'FORCEFUL',
            'additionalParams': {'hook_sleep': SLEEP},
        }
        op_id = _one_wins(
            api,
            _race(
                api,
                inst_id,
                [('POST', '/terminate', terminate), ('PATCH', '', modify)],
            ),
        )
        op = api.wait_op(op_id, 'COMPLETED')
        if op['operation'] == 'MODIFY_INFO':
            api.wait_op(
                api.start(
                    inst_id, 'terminate', {'terminationType': 'FORCEFUL'}
                ),
                'COMPLETED',
            )
        assert api.instance(inst_id)['instantiationState'] == (
            'NOT_INSTANTIATED'
        )
