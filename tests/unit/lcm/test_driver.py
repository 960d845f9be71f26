"""The LCM driver's dispatch of an op occurrence to its operation."""

from .fixtures import instantiated
from .fixtures import make_lcm
from .fixtures import onboarded_package
from .fixtures import run_op


def test_unsupported_operation_aborts(db_url, hook_record):
    inst = instantiated(onboarded_package())
    lcm, _ = make_lcm()

    op = run_op(lcm, inst, 'CREATE_SNAPSHOT', {})

    assert op['operation_state'] == 'ROLLED_BACK'
    assert op['error']['detail'] == (
        'vnfm does not support CREATE_SNAPSHOT yet.'
    )
