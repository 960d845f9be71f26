"""Change of the current VNF package (SOL003 5.4.11a) on the noop VIM."""

from vnfm.db import api as db

from .fixtures import instantiated
from .fixtures import make_lcm
from .fixtures import onboarded_package
from .fixtures import run_op


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
