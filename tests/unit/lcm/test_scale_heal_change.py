"""Scale, heal and change of the current package on the noop VIM."""

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


def test_heal_reports_healed_vnfcs(db_url, hook_record):
    inst = instantiated(onboarded_package())
    lcm, noop = make_lcm()
    vnfc_id = inst['instantiated_vnf_info']['vnfcResourceInfo'][0]['id']

    op = run_op(lcm, inst, 'HEAL', {'vnfcInstanceId': [vnfc_id]})

    assert op['operation_state'] == 'COMPLETED', op['error']
    [change] = op['resource_changes']['affectedVnfcs']
    assert change['id'] == vnfc_id and change['changeType'] == 'MODIFIED'
    assert noop.calls[-1]['method'] == 'heal'


def test_change_vnfpkg_moves_instance_to_new_package(db_url, hook_record):
    old = onboarded_package('noop_vnf')
    new = onboarded_package('noop_vnf_v2')
    inst = instantiated(old)
    lcm, noop = make_lcm()

    op = run_op(lcm, inst, 'CHANGE_VNFPKG', {'vnfdId': new['vnfd_id']})

    assert op['operation_state'] == 'COMPLETED', op['error']
    inst = db.instance_get(inst['id'])
    assert (inst['vnfd_id'], inst['vnf_pkg_id']) == (new['vnfd_id'], new['id'])
    assert inst['instantiation_state'] == 'INSTANTIATED'
    assert noop.calls[-1]['method'] == 'change_vnfpkg'


def test_unsupported_operation_aborts(db_url, hook_record):
    inst = instantiated(onboarded_package())
    lcm, _ = make_lcm()

    op = run_op(lcm, inst, 'CREATE_SNAPSHOT', {})

    assert op['operation_state'] == 'ROLLED_BACK'
    assert op['error']['detail'] == (
        'vnfm does not support CREATE_SNAPSHOT yet.'
    )


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
