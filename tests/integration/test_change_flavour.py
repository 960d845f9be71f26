"""Change VNF flavour on the noop VIM through vnfm-api and two conductors
(RabbitMQ, PostgreSQL), with the two-flavour sample (cnf_flavours): the
4xx preconditions, the notifications, a failing hook then retry, and a
failing hook then rollback. The client has no change_flavour command: raw
HTTP, and ``openstack vnflcm op retry/rollback`` for the rest."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tests.integration.test_notifications import _summary
from tests.integration.test_notifications import receiver  # noqa: F401
from tests.integration.test_notifications import subscribe  # noqa: F401

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope='module')
def pkg_flavours(api, zips) -> dict:
    """cnf_flavours (hooks fail while additionalParams.fail_marker
    exists), onboarded."""
    return api.onboard(zips['flavours'].path)


def _small(api, pkg: dict, name: str = 'flavours') -> str:
    inst_id = api.create_instance(pkg['vnfdId'], name=name)
    body = dict(api.instantiate_request(), flavourId='small')
    api.wait_op(api.start(inst_id, 'instantiate', body), 'COMPLETED')
    return inst_id


def _vdus(api, inst_id: str) -> list[str]:
    info = api.instance(inst_id)['instantiatedVnfInfo']
    return [v['vduId'] for v in info['vnfcResourceInfo']]


def _post(api, inst_id: str, body: dict):
    return api.lcm(
        'POST', f'/vnf_instances/{inst_id}/change_flavour', json=body
    )


def test_preconditions_are_4xx_and_record_nothing(api, pkg_flavours):
    inst_id = api.create_instance(pkg_flavours['vnfdId'], name='flavours-4xx')
    r = _post(api, inst_id, {'newFlavourId': 'large'})
    assert r.status_code == 409, r.text
    assert 'instantiate it first' in r.json()['detail']
    api.wait_op(
        api.start(
            inst_id,
            'instantiate',
            dict(api.instantiate_request(), flavourId='small'),
        ),
        'COMPLETED',
    )
    for body, status, words in (
        ({'newFlavourId': 'huge'}, 422, 'it has large, small'),
        ({'newFlavourId': 'small'}, 409, 'already has flavour small'),
        (
            {'newFlavourId': 'large', 'instantiationLevelId': 'l9'},
            422,
            'not a level of flavour large',
        ),
    ):
        r = _post(api, inst_id, body)
        assert r.status_code == status, r.text
        assert r.headers['Content-Type'] == 'application/problem+json'
        assert words in r.json()['detail']
    ops = api.ops(inst_id)
    assert [o['operation'] for o in ops] == ['INSTANTIATE']
    # /vnflcm/v1 serves it too.
    r = api.request(
        'POST',
        f'/vnflcm/v1/vnf_instances/{inst_id}/change_flavour',
        version='1.3.0',
        json={'newFlavourId': 'nope'},
    )
    assert r.status_code == 422 and 'nope' in r.json()['detail']


def test_change_is_notified_and_hooks_come_from_each_flavour(
    api,
    pkg_flavours,
    receiver,  # noqa: F811 - the fixture imported above
    subscribe,  # noqa: F811
):
    name = f'flavours-{uuid.uuid4().hex[:8]}'
    subscribe(name)
    inst_id = _small(api, pkg_flavours, name)
    receiver.wait(4, timeout=30)  # creation and instantiate

    op_id = api.start(
        inst_id,
        'change_flavour',
        {
            'newFlavourId': 'large',
            'instantiationLevelId': 'instantiation_level_2',
        },
    )
    op = api.wait_op(op_id, 'COMPLETED')

    info = api.instance(inst_id)['instantiatedVnfInfo']
    assert info['flavourId'] == 'large'
    assert _vdus(api, inst_id) == ['VDU1', 'VDU1', 'VDU1', 'VDU3']
    changes = {
        (c['vduId'], c['changeType'])
        for c in op['resourceChanges']['affectedVnfcs']
    }
    assert {('VDU2', 'REMOVED'), ('VDU3', 'ADDED')} <= changes
    hooks = [
        r['hook']
        for r in api.hooks(inst_id)
        if r['operation'] == 'CHANGE_FLAVOUR'
    ]
    assert hooks == ['change_flavour_start', 'change_flavour_end']
    got = receiver.wait(7, timeout=30)[4:]
    assert _summary(got) == [
        ('LcmOperationOccurrenceNotification', 'STARTING', 'START'),
        ('LcmOperationOccurrenceNotification', 'PROCESSING', 'START'),
        ('LcmOperationOccurrenceNotification', 'COMPLETED', 'RESULT'),
    ]
    assert {g['body']['operation'] for g in got} == {'CHANGE_FLAVOUR'}


def test_failing_hook_then_retry(client, api, pkg_flavours, tmp_path: Path):
    inst_id = _small(api, pkg_flavours)
    marker = tmp_path / 'still-broken'
    marker.write_text('')
    op_id = api.start(
        inst_id,
        'change_flavour',
        {
            'newFlavourId': 'large',
            'additionalParams': {
                'fail_hook': 'change_flavour_end',
                'fail_marker': str(marker),
            },
        },
    )
    op = api.wait_op(op_id, 'FAILED_TEMP')
    assert 'change_flavour_end' in op['error']['detail']
    assert api.instance(inst_id)['instantiatedVnfInfo']['flavourId'] == (
        'small'
    )

    marker.unlink()  # the operator fixes the cause
    client.lcm('op', 'retry', op_id)
    api.wait_op(op_id, 'COMPLETED')
    assert _vdus(api, inst_id) == ['VDU1', 'VDU1', 'VDU3']
    hooks = [r['hook'] for r in api.hooks(inst_id)]
    assert hooks.count('change_flavour_start') == 1  # done, not rerun
    assert hooks.count('change_flavour_end') == 2


def test_failing_hook_then_rollback(client, api, pkg_flavours, tmp_path):
    inst_id = _small(api, pkg_flavours)
    before = api.instance(inst_id)['instantiatedVnfInfo']
    op_id = api.start(
        inst_id,
        'change_flavour',
        {
            'newFlavourId': 'large',
            'additionalParams': {'fail_hook': 'change_flavour_end'},
        },
    )
    api.wait_op(op_id, 'FAILED_TEMP')

    client.lcm('op', 'rollback', op_id)
    api.wait_op(op_id, 'ROLLED_BACK')

    after = api.instance(inst_id)['instantiatedVnfInfo']
    assert after['flavourId'] == 'small'
    assert after['vnfcResourceInfo'] == before['vnfcResourceInfo']
    # The instance is free for the next operation.
    api.wait_op(
        api.start(inst_id, 'change_flavour', {'newFlavourId': 'large'}),
        'COMPLETED',
    )
