"""/vnflcm/v2/vnf_lcm_op_occs: list, show, retry, rollback, fail, cancel."""

from __future__ import annotations

import pytest

from tests.unit.server.conftest import json_of
from tests.unit.server.conftest import make_instance
from tests.unit.server.conftest import make_op
from tests.unit.server.conftest import make_package
from vnfm.db import api as db


@pytest.fixture
def failed(database):
    inst = make_instance(make_package(), state='INSTANTIATED')
    return make_op(
        inst,
        state='FAILED_TEMP',
        operation='HEAL',
        owner='conductor-1',
        error={'status': 500, 'detail': 'boom'},
    )


def test_list_and_show(client, failed):
    listed = json_of(client.lcm('GET', '/vnf_lcm_op_occs'))
    assert [o['id'] for o in listed] == [failed['id']]
    assert 'error' not in listed[0] and 'operationParams' not in listed[0]
    assert listed[0]['operationState'] == 'FAILED_TEMP'
    shown = json_of(client.lcm('GET', f'/vnf_lcm_op_occs/{failed["id"]}'))
    assert shown['error'] == {'status': 500, 'detail': 'boom'}
    assert set(shown['_links']) == {
        'self',
        'vnfInstance',
        'retry',
        'rollback',
        'fail',
    }
    for internal in ('owner', 'work', 'lease_expires_at'):
        assert internal not in shown


def test_list_exclude_fields_dash_spelling(client, failed):
    listed = json_of(
        client.lcm('GET', '/vnf_lcm_op_occs?exclude-fields=operationParams')
    )
    assert listed[0]['error']['detail'] == 'boom'


def test_retry(client, rpc, failed):
    resp = client.lcm('POST', f'/vnf_lcm_op_occs/{failed["id"]}/retry')
    assert resp.status_int == 202 and resp.body == b''
    row = db.op_get(failed['id'])
    assert row['operation_state'] == 'PROCESSING'
    assert row['owner'] is None and row['error'] is None
    assert rpc.calls == [('start_lcm_op', (failed['id'],))]


def test_rollback(client, rpc, failed):
    resp = client.lcm('POST', f'/vnf_lcm_op_occs/{failed["id"]}/rollback')
    assert resp.status_int == 202
    assert db.op_get(failed['id'])['operation_state'] == 'ROLLING_BACK'
    assert rpc.calls == [('start_lcm_op', (failed['id'],))]


def test_fail_frees_the_instance(client, rpc, failed):
    resp = client.lcm('POST', f'/vnf_lcm_op_occs/{failed["id"]}/fail')
    assert resp.status_int == 200
    assert json_of(resp)['operationState'] == 'FAILED'
    row = db.op_get(failed['id'])
    assert row['active_instance_id'] is None
    assert rpc.calls == []
    # The instance takes a new op now.
    resp = client.lcm(
        'POST',
        f'/vnf_instances/{failed["vnf_instance_id"]}/terminate',
        {'terminationType': 'FORCEFUL'},
    )
    assert resp.status_int == 202


@pytest.mark.parametrize('action', ['retry', 'rollback', 'fail'])
def test_wrong_state_is_409(client, action):
    inst = make_instance(make_package(), state='INSTANTIATED')
    op = make_op(inst, state='PROCESSING')
    resp = client.lcm('POST', f'/vnf_lcm_op_occs/{op["id"]}/{action}')
    assert resp.status_int == 409
    assert 'FAILED_TEMP' in json_of(resp)['detail']


def test_cancel_of_a_failed_op_is_409(client, failed):
    resp = client.lcm(
        'POST',
        f'/vnf_lcm_op_occs/{failed["id"]}/cancel',
        {'cancelMode': 'GRACEFUL'},
    )
    assert resp.status_int == 409
    assert 'STARTING, PROCESSING or ROLLING_BACK' in json_of(resp)['detail']


def test_cancel_of_an_unclaimed_op_rolls_it_back_at_once(client, rpc):
    inst = make_instance(make_package(), state='INSTANTIATED')
    op = make_op(inst, state='STARTING')
    resp = client.lcm(
        'POST',
        f'/vnf_lcm_op_occs/{op["id"]}/cancel',
        {'cancelMode': 'GRACEFUL'},
    )
    assert resp.status_int == 202, resp.body
    row = db.op_get(op['id'])
    assert row['operation_state'] == 'ROLLED_BACK'
    assert row['active_instance_id'] is None  # the instance is free
    assert 'before it started' in row['error']['detail']
    assert not row['is_cancel_pending']


@pytest.mark.parametrize('state', ['PROCESSING', 'ROLLING_BACK'])
@pytest.mark.parametrize('mode', ['GRACEFUL', 'FORCEFUL'])
def test_cancel_of_a_running_op_is_recorded_for_its_conductor(
    client, rpc, state, mode
):
    inst = make_instance(make_package(), state='INSTANTIATED')
    op = make_op(inst, state=state, owner='conductor-1')
    shown = json_of(client.lcm('GET', f'/vnf_lcm_op_occs/{op["id"]}'))
    assert shown['_links']['cancel']['href'].endswith(f'{op["id"]}/cancel')
    resp = client.lcm(
        'POST', f'/vnf_lcm_op_occs/{op["id"]}/cancel', {'cancelMode': mode}
    )
    assert resp.status_int == 202, resp.body
    assert resp.headers['Location'].endswith(f'/vnf_lcm_op_occs/{op["id"]}')
    shown = json_of(client.lcm('GET', f'/vnf_lcm_op_occs/{op["id"]}'))
    assert shown['operationState'] == state  # the conductor ends it
    assert shown['isCancelPending'] is True and shown['cancelMode'] == mode
    assert rpc.calls == []  # no message: the holder reads the database
    again = client.lcm(
        'POST',
        f'/vnf_lcm_op_occs/{op["id"]}/cancel',
        {'cancelMode': 'FORCEFUL'},
    )
    assert again.status_int == 409
    assert 'being cancelled already' in json_of(again)['detail']


@pytest.mark.parametrize('body', [{}, {'cancelMode': 'SOON'}])
def test_cancel_needs_a_cancel_mode(client, body):
    inst = make_instance(make_package(), state='INSTANTIATED')
    op = make_op(inst, state='PROCESSING', owner='conductor-1')
    resp = client.lcm('POST', f'/vnf_lcm_op_occs/{op["id"]}/cancel', body)
    assert resp.status_int == 400
    assert not db.op_get(op['id'])['is_cancel_pending']


def test_unknown_op_is_404(client):
    resp = client.lcm('POST', '/vnf_lcm_op_occs/nope/retry')
    assert resp.status_int == 404
