"""Operate (SOL003 5.4.10): stop and start on the noop VIM."""

from vnfm.db import api as db

from .fixtures import instantiated
from .fixtures import make_lcm
from .fixtures import onboarded_package
from .fixtures import run_op
from .fixtures import user_rolls_back


def test_operate_stops_and_starts_and_vnf_state_follows(db_url, hook_record):
    inst = instantiated(onboarded_package())
    lcm, noop = make_lcm()

    op = run_op(
        lcm,
        inst,
        'OPERATE',
        {'changeStateTo': 'STOPPED', 'stopType': 'FORCEFUL'},
    )
    assert op['operation_state'] == 'COMPLETED', op['error']
    info = db.instance_get(inst['id'])['instantiated_vnf_info']
    assert info['vnfState'] == 'STOPPED'
    assert {v['vnfcState'] for v in info['vnfcInfo']} == {'STOPPED'}
    assert noop.calls[-1]['method'] == 'operate'

    op = run_op(lcm, inst, 'OPERATE', {'changeStateTo': 'STARTED'})
    assert op['operation_state'] == 'COMPLETED', op['error']
    info = db.instance_get(inst['id'])['instantiated_vnf_info']
    assert info['vnfState'] == 'STARTED'
    assert {v['vnfcState'] for v in info['vnfcInfo']} == {'STARTED'}


def test_operate_failure_then_rollback_keeps_the_state(db_url, hook_record):
    inst = instantiated(onboarded_package())
    lcm, noop = make_lcm()

    op = run_op(
        lcm,
        inst,
        'OPERATE',
        {
            'changeStateTo': 'STOPPED',
            'additionalParams': {'noop_fail': 'operate'},
        },
    )
    assert op['operation_state'] == 'FAILED_TEMP'
    assert 'operate failed on request' in op['error']['detail']
    user_rolls_back(op['id'])
    lcm.start(op['id'])
    assert db.op_get(op['id'])['operation_state'] == 'ROLLED_BACK'
    assert noop.calls[-1]['method'] == 'rollback_operate'
    info = db.instance_get(inst['id'])['instantiated_vnf_info']
    assert info['vnfState'] == 'STARTED'
