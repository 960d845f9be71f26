"""/vnflcm/v1/vnf_lcm_op_occs: list and show in the v1 shape, retry,
rollback, fail and cancel."""

from __future__ import annotations

import pytest

from tests.unit.server.conftest import json_of
from tests.unit.server.conftest import make_instance
from tests.unit.server.conftest import make_op
from tests.unit.server.conftest import make_package
from vnfm.db import api as db

from .calls import op_id_of
from .calls import v1


@pytest.fixture
def failed(database):
    inst = make_instance(make_package(), state='INSTANTIATED')
    return make_op(
        inst,
        state='FAILED_TEMP',
        operation='HEAL',
        error={'status': 500, 'detail': 'boom'},
    )


def test_op_list_and_show(client, failed):
    listed = json_of(v1(client, 'GET', '/vnf_lcm_op_occs'))
    assert [o['id'] for o in listed] == [failed['id']]
    assert 'operationParams' not in listed[0]
    assert listed[0]['_links']['self']['href'].startswith(
        'http://localhost/vnflcm/v1/'
    )
    shown = json_of(v1(client, 'GET', f'/vnf_lcm_op_occs/{failed["id"]}'))
    assert shown['error']['detail'] == 'boom'
    assert set(shown['_links']) == {
        'self',
        'vnfInstance',
        'retry',
        'rollback',
        'fail',
    }


@pytest.mark.parametrize(
    'task, state', [('retry', 'PROCESSING'), ('rollback', 'ROLLING_BACK')]
)
def test_retry_and_rollback(client, rpc, failed, task, state):
    resp = v1(client, 'POST', f'/vnf_lcm_op_occs/{failed["id"]}/{task}')
    assert op_id_of(resp) == failed['id']
    assert db.op_get(failed['id'])['operation_state'] == state
    assert rpc.calls == [('start_lcm_op', (failed['id'],))]


def test_fail_and_cancel(client, failed):
    # The client's cancel sends a body and no Version header.
    resp = client.request(
        'POST',
        f'/vnflcm/v1/vnf_lcm_op_occs/{failed["id"]}/cancel',
        {'cancelMode': 'FORCEFUL'},
    )
    assert resp.status_int == 409
    resp = v1(client, 'POST', f'/vnf_lcm_op_occs/{failed["id"]}/fail')
    assert resp.status_int == 200
    body = json_of(resp)
    assert body['operationState'] == 'FAILED'
    assert body['_links']['self']['href'].startswith(
        'http://localhost/vnflcm/v1/'
    )
    assert (
        v1(client, 'POST', f'/vnf_lcm_op_occs/{failed["id"]}/retry').status_int
        == 409
    )
