"""Heal (SOL003 5.4.9) on the noop VIM."""

from .fixtures import instantiated
from .fixtures import make_lcm
from .fixtures import onboarded_package
from .fixtures import run_op


def test_heal_reports_healed_vnfcs(db_url, hook_record):
    inst = instantiated(onboarded_package())
    lcm, noop = make_lcm()
    vnfc_id = inst['instantiated_vnf_info']['vnfcResourceInfo'][0]['id']

    op = run_op(lcm, inst, 'HEAL', {'vnfcInstanceId': [vnfc_id]})

    assert op['operation_state'] == 'COMPLETED', op['error']
    [change] = op['resource_changes']['affectedVnfcs']
    assert change['id'] == vnfc_id and change['changeType'] == 'MODIFIED'
    assert noop.calls[-1]['method'] == 'heal'
