"""Scale VNF to Level (SOL003 5.4.6) on the noop VIM."""

from vnfm.db import api as db

from .fixtures import instantiated
from .fixtures import make_lcm
from .fixtures import onboarded_package
from .fixtures import run_op
from .fixtures import user_rolls_back


def test_scale_to_level_by_level_id_and_by_scale_info(db_url, hook_record):
    inst = instantiated(onboarded_package())
    lcm, noop = make_lcm()

    op = run_op(
        lcm,
        inst,
        'SCALE_TO_LEVEL',
        {'instantiationLevelId': 'instantiation_level_2'},
    )
    assert op['operation_state'] == 'COMPLETED', op['error']
    info = db.instance_get(inst['id'])['instantiated_vnf_info']
    assert info['scaleStatus'] == [
        {'aspectId': 'vdu1_aspect', 'scaleLevel': 3}
    ]
    assert len(info['vnfcResourceInfo']) == 4
    assert [
        c['changeType'] for c in op['resource_changes']['affectedVnfcs']
    ] == ['ADDED'] * 3
    assert noop.calls[-1]['method'] == 'scale'

    op = run_op(
        lcm,
        inst,
        'SCALE_TO_LEVEL',
        {'scaleInfo': [{'aspectId': 'vdu1_aspect', 'scaleLevel': 1}]},
    )
    assert op['operation_state'] == 'COMPLETED', op['error']
    info = db.instance_get(inst['id'])['instantiated_vnf_info']
    assert info['scaleStatus'][0]['scaleLevel'] == 1
    assert len(info['vnfcResourceInfo']) == 2


def test_scale_to_the_current_level_changes_nothing(db_url, hook_record):
    inst = instantiated(onboarded_package())
    lcm, noop = make_lcm()
    calls = len(noop.calls)

    op = run_op(
        lcm,
        inst,
        'SCALE_TO_LEVEL',
        {'instantiationLevelId': 'instantiation_level_1'},
    )

    assert op['operation_state'] == 'COMPLETED', op['error']
    assert len(noop.calls) == calls
    assert (
        db.instance_get(inst['id'])['instantiated_vnf_info']
        == (inst['instantiated_vnf_info'])
    )


def test_scale_to_level_beyond_max_fails_before_any_change(
    db_url, hook_record
):
    inst = instantiated(onboarded_package())
    lcm, noop = make_lcm()
    calls = len(noop.calls)

    op = run_op(
        lcm,
        inst,
        'SCALE_TO_LEVEL',
        {'scaleInfo': [{'aspectId': 'vdu1_aspect', 'scaleLevel': 4}]},
    )

    assert op['operation_state'] == 'FAILED_TEMP'
    assert 'outside 0..3' in op['error']['detail']
    assert len(noop.calls) == calls


def test_scale_to_level_failure_then_rollback(db_url, hook_record):
    inst = instantiated(onboarded_package())
    lcm, noop = make_lcm()
    params = {
        'instantiationLevelId': 'instantiation_level_2',
        'additionalParams': {'noop_fail': 'scale'},
    }

    op = run_op(lcm, inst, 'SCALE_TO_LEVEL', params)
    assert op['operation_state'] == 'FAILED_TEMP'
    user_rolls_back(op['id'])
    lcm.start(op['id'])
    assert db.op_get(op['id'])['operation_state'] == 'ROLLED_BACK'
    assert noop.calls[-1]['method'] == 'rollback_scale'
    assert noop.calls[-1]['operation'] == 'SCALE_TO_LEVEL'
    assert (
        db.instance_get(inst['id'])['instantiated_vnf_info']
        == (inst['instantiated_vnf_info'])
    )
