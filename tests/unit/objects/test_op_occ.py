"""VnfLcmOpOcc as the API shows it: no internal columns, links by state,
what a running op waits for."""

from __future__ import annotations

import datetime

from vnfm.objects import op_occ

BASE = 'https://vnfm.example.com:9890'


def test_op_view():
    now = datetime.datetime(2024, 1, 2, 3, 4, 5, 6)
    row = {
        'id': 'o1',
        'operation_state': 'FAILED_TEMP',
        'state_entered_time': now,
        'start_time': now,
        'vnf_instance_id': 'i1',
        'operation': 'INSTANTIATE',
        'is_automatic_invocation': None,
        'is_cancel_pending': False,
        'operation_params': {
            'flavourId': 'f',
            'vimConnectionInfo': {
                'v': {'vimType': 't', 'accessInfo': {'password': 'SECRET'}}
            },
            'additionalParams': {'node': {'password': 'SECRET'}},
        },
        'error': {'status': 500, 'detail': 'x'},
        'owner': 'c1',
        'work': {'a': 1},
        'active_instance_id': 'i1',
        'lease_expires_at': now,
        'project_id': 'p',
    }
    out = op_occ.to_sol(row, BASE)
    assert out['stateEnteredTime'] == '2024-01-02T03:04:05.000006Z'
    assert out['isAutomaticInvocation'] is False
    assert 'SECRET' not in str(out)
    for internal in (
        'owner',
        'work',
        'active_instance_id',
        'lease_expires_at',
        'project_id',
    ):
        assert internal not in out
    assert set(out['_links']) == {
        'self',
        'vnfInstance',
        'retry',
        'rollback',
        'fail',
    }
    row['operation_state'] = 'COMPLETED'
    assert set(op_occ.to_sol(row, BASE)['_links']) == {'self', 'vnfInstance'}


def test_op_view_shows_what_a_running_op_waits_for():
    row = {
        'id': 'o1',
        'operation_state': 'PROCESSING',
        'vnf_instance_id': 'i1',
        'operation': 'MODIFY_INFO',
        'work': {
            'waiting': 'waiting for eviction of Pod ns/p',
            'snapshot': {'configs': {}},
        },
    }
    assert op_occ.to_sol(row)['warnings'] == [
        'waiting for eviction of Pod ns/p'
    ]
    assert 'snapshot' not in str(op_occ.to_sol(row))
    for state in ('FAILED_TEMP', 'COMPLETED'):
        row['operation_state'] = state
        assert 'warnings' not in op_occ.to_sol(row)
