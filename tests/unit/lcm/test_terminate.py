"""Terminate: NOT_INSTANTIATED again; no rollback defined by SOL."""

from vnfm.db import api as db

from .fixtures import instantiated
from .fixtures import make_flaky_lcm
from .fixtures import make_lcm
from .fixtures import onboarded_package
from .fixtures import recorded_hooks
from .fixtures import run_op
from .fixtures import user_rolls_back


def test_terminate_clears_instantiated_info(db_url, hook_record):
    inst = instantiated(onboarded_package())
    lcm, noop = make_lcm()

    op = run_op(lcm, inst, 'TERMINATE', {'terminationType': 'FORCEFUL'})

    assert op['operation_state'] == 'COMPLETED', op['error']
    inst = db.instance_get(inst['id'])
    assert inst['instantiation_state'] == 'NOT_INSTANTIATED'
    assert inst['instantiated_vnf_info'] is None
    # Kept, so the instance can be instantiated again.
    assert inst['vim_connection_info']
    assert [c['method'] for c in noop.calls] == ['terminate']
    assert recorded_hooks(hook_record)[-2:] == [
        'terminate_start',
        'terminate_end',
    ]
    changes = op['resource_changes']['affectedVnfcs']
    assert [c['changeType'] for c in changes] == ['REMOVED']


def test_rollback_of_terminate_is_refused_with_a_detail(db_url, hook_record):
    inst = instantiated(onboarded_package())
    lcm, _ = make_flaky_lcm('terminate_end')
    op = run_op(lcm, inst, 'TERMINATE', {'terminationType': 'FORCEFUL'})
    assert op['operation_state'] == 'FAILED_TEMP'

    user_rolls_back(op['id'])
    lcm.start(op['id'])

    op = db.op_get(op['id'])
    assert op['operation_state'] == 'FAILED_TEMP'
    assert op['error']['detail'] == (
        'Rollback of TERMINATE is not defined by SOL003; retry the operation '
        'to finish it, or fail it.'
    )
    assert db.instance_get(inst['id'])['instantiation_state'] == (
        'INSTANTIATED'
    )
