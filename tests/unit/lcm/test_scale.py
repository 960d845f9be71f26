"""Scale (SOL003 5.4.5) on the noop VIM: VNFC counts and scale levels, the
limits of the aspect, rollback."""

from vnfm.db import api as db

from .fixtures import instantiated
from .fixtures import make_flaky_lcm
from .fixtures import make_lcm
from .fixtures import onboarded_package
from .fixtures import run_op
from .fixtures import user_rolls_back


def test_scale_out_and_in_change_vnfc_count_and_level(db_url, hook_record):
    inst = instantiated(onboarded_package())
    lcm, _ = make_lcm()

    op = run_op(
        lcm,
        inst,
        'SCALE',
        {'type': 'SCALE_OUT', 'aspectId': 'vdu1_aspect', 'numberOfSteps': 2},
    )
    assert op['operation_state'] == 'COMPLETED', op['error']
    info = db.instance_get(inst['id'])['instantiated_vnf_info']
    assert len(info['vnfcResourceInfo']) == 3
    assert info['scaleStatus'] == [
        {'aspectId': 'vdu1_aspect', 'scaleLevel': 2}
    ]
    added = op['resource_changes']['affectedVnfcs']
    assert [c['changeType'] for c in added] == ['ADDED', 'ADDED']

    op = run_op(
        lcm, inst, 'SCALE', {'type': 'SCALE_IN', 'aspectId': 'vdu1_aspect'}
    )
    assert op['operation_state'] == 'COMPLETED', op['error']
    info = db.instance_get(inst['id'])['instantiated_vnf_info']
    assert len(info['vnfcResourceInfo']) == 2
    assert info['scaleStatus'][0]['scaleLevel'] == 1


def test_scale_beyond_max_level_fails_with_detail(db_url, hook_record):
    inst = instantiated(onboarded_package())
    lcm, _ = make_lcm()

    op = run_op(
        lcm,
        inst,
        'SCALE',
        {'type': 'SCALE_OUT', 'aspectId': 'vdu1_aspect', 'numberOfSteps': 4},
    )

    assert op['operation_state'] == 'FAILED_TEMP'
    assert 'outside 0..3' in op['error']['detail']


def test_rollback_of_scale_calls_driver(db_url, hook_record):
    inst = instantiated(onboarded_package())
    lcm, noop = make_flaky_lcm('scale_end')
    op = run_op(
        lcm, inst, 'SCALE', {'type': 'SCALE_OUT', 'aspectId': 'vdu1_aspect'}
    )
    # The sample VNFD declares no scale hooks: nothing failed.
    assert op['operation_state'] == 'COMPLETED'

    op = run_op(
        lcm,
        inst,
        'SCALE',
        {
            'type': 'SCALE_OUT',
            'aspectId': 'vdu1_aspect',
            'additionalParams': {'noop_fail': 'scale'},
        },
    )
    assert op['operation_state'] == 'FAILED_TEMP'
    user_rolls_back(op['id'])
    lcm.start(op['id'])
    assert db.op_get(op['id'])['operation_state'] == 'ROLLED_BACK'
    assert noop.calls[-1]['method'] == 'rollback_scale'
    info = db.instance_get(inst['id'])['instantiated_vnf_info']
    assert len(info['vnfcResourceInfo']) == 2
