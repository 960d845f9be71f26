"""Change VNF flavour on the noop VIM, with the two-flavour sample: the
VNFCs of the target flavour, its hooks, retry and rollback after a hook
fails."""

from __future__ import annotations

from vnfm.db import api as db

from .fixtures import instantiated
from .fixtures import make_flaky_lcm
from .fixtures import make_lcm
from .fixtures import onboarded_package
from .fixtures import recorded_hooks
from .fixtures import run_op
from .fixtures import user_retries
from .fixtures import user_rolls_back

PACKAGE = 'cnf_flavours'


def _small_instance() -> dict:
    return instantiated(onboarded_package(PACKAGE), flavourId='small')


def _vdus(instance_id: str) -> list[str]:
    info = db.instance_get(instance_id)['instantiated_vnf_info']
    return [v['vduId'] for v in info['vnfcResourceInfo']]


def test_change_to_large_gives_its_vnfcs_and_runs_both_hooks(
    db_url, hook_record
):
    inst = _small_instance()
    lcm, noop = make_lcm()
    before = len(recorded_hooks(hook_record))

    op = run_op(
        lcm,
        inst,
        'CHANGE_FLAVOUR',
        {
            'newFlavourId': 'large',
            'instantiationLevelId': 'instantiation_level_2',
        },
    )

    assert op['operation_state'] == 'COMPLETED', op['error']
    info = db.instance_get(inst['id'])['instantiated_vnf_info']
    assert info['flavourId'] == 'large'
    assert _vdus(inst['id']) == ['VDU1', 'VDU1', 'VDU1', 'VDU3']
    assert info['scaleStatus'] == [
        {'aspectId': 'vdu1_aspect', 'scaleLevel': 1}
    ]
    changes = {
        (c['vduId'], c['changeType'])
        for c in op['resource_changes']['affectedVnfcs']
    }
    assert ('VDU2', 'REMOVED') in changes
    assert ('VDU3', 'ADDED') in changes
    assert recorded_hooks(hook_record)[before:] == [
        'change_flavour_start',
        'change_flavour_end',
    ]
    assert noop.calls[-1]['method'] == 'change_flavour'


def test_failing_end_hook_then_retry_completes(db_url, hook_record):
    inst = _small_instance()
    lcm, noop = make_flaky_lcm('change_flavour_end')

    op = run_op(lcm, inst, 'CHANGE_FLAVOUR', {'newFlavourId': 'large'})

    assert op['operation_state'] == 'FAILED_TEMP'
    assert 'change_flavour_end hook: flaky' in op['error']['detail']
    assert _vdus(inst['id']) == ['VDU1', 'VDU2']
    user_retries(op['id'])
    lcm.start(op['id'])
    assert db.op_get(op['id'])['operation_state'] == 'COMPLETED'
    assert [c['method'] for c in noop.calls].count('change_flavour') == 1
    assert _vdus(inst['id']) == ['VDU1', 'VDU1', 'VDU3']


def test_failing_end_hook_then_rollback_keeps_the_old_flavour(
    db_url, hook_record
):
    inst = _small_instance()
    lcm, noop = make_lcm()

    op = run_op(
        lcm,
        inst,
        'CHANGE_FLAVOUR',
        {
            'newFlavourId': 'large',
            'additionalParams': {'fail_hook': 'change_flavour_end'},
        },
    )
    assert op['operation_state'] == 'FAILED_TEMP'
    user_rolls_back(op['id'])
    lcm.start(op['id'])

    assert db.op_get(op['id'])['operation_state'] == 'ROLLED_BACK'
    info = db.instance_get(inst['id'])['instantiated_vnf_info']
    assert info['flavourId'] == 'small'
    assert _vdus(inst['id']) == ['VDU1', 'VDU2']
    assert noop.calls[-1]['method'] == 'rollback_change_flavour'


def test_driver_failure_leaves_instance_unchanged(db_url, hook_record):
    inst = _small_instance()
    lcm, _ = make_lcm()

    op = run_op(
        lcm,
        inst,
        'CHANGE_FLAVOUR',
        {
            'newFlavourId': 'large',
            'additionalParams': {'noop_fail': 'change_flavour'},
        },
    )

    assert op['operation_state'] == 'FAILED_TEMP'
    assert 'infra driver change_flavour' in op['error']['detail']
    info = db.instance_get(inst['id'])['instantiated_vnf_info']
    assert info['flavourId'] == 'small'
