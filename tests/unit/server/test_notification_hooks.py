"""The API's state changes write their notifications to the outbox in the
same transaction: instance create/delete, op start, retry, rollback, fail;
a refused request writes none."""

from __future__ import annotations

import pytest

from tests.unit.server.conftest import json_of
from tests.unit.server.conftest import make_instance
from tests.unit.server.conftest import make_op
from tests.unit.server.conftest import make_package
from vnfm.db import api as db
from vnfm.db import outbox


@pytest.fixture
def subscription(client, conf):
    # Nothing listens on the callbackUri: these tests look at the outbox.
    conf('test_callback_uri', False, 'notifications')
    resp = client.lcm(
        'POST',
        '/subscriptions',
        {
            'callbackUri': 'http://127.0.0.1:9/cb',
            'authentication': {
                'authType': ['BASIC'],
                'paramsBasic': {'userName': 'u', 'password': 'pw'},
            },
        },
    )
    assert resp.status_int == 201
    return json_of(resp)


def _payloads() -> list[dict]:
    return [r['payload'] for r in outbox.notification_list()]


def test_instance_create_and_delete(client, subscription):
    make_package()
    inst = json_of(client.lcm('POST', '/vnf_instances', {'vnfdId': 'vnfd-1'}))
    assert (
        client.lcm('DELETE', f'/vnf_instances/{inst["id"]}').status_int == 204
    )

    created, deleted = _payloads()
    assert created['notificationType'] == 'VnfIdentifierCreationNotification'
    assert deleted['notificationType'] == 'VnfIdentifierDeletionNotification'
    for payload in (created, deleted):
        assert payload['vnfInstanceId'] == inst['id']
        assert payload['subscriptionId'] == subscription['id']


def test_instantiate_reports_starting(client, subscription):
    inst = make_instance(make_package())
    resp = client.lcm(
        'POST',
        f'/vnf_instances/{inst["id"]}/instantiate',
        {'flavourId': 'simple'},
    )
    op_id = resp.headers['Location'].rsplit('/', 1)[1]

    [payload] = _payloads()
    assert payload['notificationStatus'] == 'START'
    assert payload['operationState'] == 'STARTING'
    assert payload['vnfLcmOpOccId'] == op_id
    assert payload['operation'] == 'INSTANTIATE'


def test_refused_requests_report_nothing(client, subscription):
    inst = make_instance(make_package(), state='INSTANTIATED')
    make_op(inst, state='PROCESSING')

    assert (
        client.lcm(
            'POST',
            f'/vnf_instances/{inst["id"]}/terminate',
            {'terminationType': 'FORCEFUL'},
        ).status_int
        == 409
    )
    assert (
        client.lcm('DELETE', f'/vnf_instances/{inst["id"]}').status_int == 409
    )

    assert _payloads() == []


@pytest.mark.parametrize(
    'action,state,status',
    [
        ('retry', 'PROCESSING', 'START'),
        ('rollback', 'ROLLING_BACK', 'START'),
        ('fail', 'FAILED', 'RESULT'),
    ],
)
def test_user_decisions_on_failed_temp(
    client, subscription, action, state, status
):
    inst = make_instance(make_package(), state='INSTANTIATED')
    op = make_op(
        inst,
        state='FAILED_TEMP',
        operation='HEAL',
        error={'status': 500, 'detail': 'boom'},
    )

    client.lcm('POST', f'/vnf_lcm_op_occs/{op["id"]}/{action}')

    [payload] = _payloads()
    assert (payload['operationState'], payload['notificationStatus']) == (
        state,
        status,
    )
    assert ('error' in payload) is (state == 'FAILED')
    assert db.op_get(op['id'])['operation_state'] == state


def test_transition_not_allowed_reports_nothing(client, subscription):
    inst = make_instance(make_package(), state='INSTANTIATED')
    op = make_op(inst, state='COMPLETED')

    assert (
        client.lcm('POST', f'/vnf_lcm_op_occs/{op["id"]}/retry').status_int
        == 409
    )

    assert _payloads() == []


@pytest.mark.parametrize(
    'task,body,operation',
    [
        ('operate', {'changeStateTo': 'STOPPED'}, 'OPERATE'),
        (
            'scale_to_level',
            {'instantiationLevelId': 'instantiation_level_1'},
            'SCALE_TO_LEVEL',
        ),
    ],
)
def test_new_operations_report_starting(
    client, subscription, task, body, operation
):
    inst = make_instance(
        make_package(),
        state='INSTANTIATED',
        instantiated_vnf_info={'vnfState': 'STARTED'},
    )
    resp = client.lcm('POST', f'/vnf_instances/{inst["id"]}/{task}', body)
    assert resp.status_int == 202, resp.body

    [payload] = _payloads()
    assert (payload['operation'], payload['operationState']) == (
        operation,
        'STARTING',
    )


def test_cancel_before_start_reports_rolled_back(client, subscription):
    inst = make_instance(make_package(), state='INSTANTIATED')
    op = make_op(inst, state='STARTING', operation='HEAL')

    resp = client.lcm(
        'POST',
        f'/vnf_lcm_op_occs/{op["id"]}/cancel',
        {'cancelMode': 'FORCEFUL'},
    )
    assert resp.status_int == 202

    [payload] = _payloads()
    assert payload['operationState'] == 'ROLLED_BACK'
    assert payload['notificationStatus'] == 'RESULT'
