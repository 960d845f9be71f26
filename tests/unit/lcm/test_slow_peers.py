"""An operation whose VIM trickles its answers (Keystone, Heat, the
Kubernetes API, a VM's SSH server) ends FAILED_TEMP within the call's
deadline, with a detail naming the call; the conductor is free again."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from vnfm.drivers.infra.noop.driver import NoopInfraDriver
from vnfm.drivers.infra.registry import InfraDrivers
from vnfm.drivers.mgmt.runner import MgmtRunner
from vnfm.drivers.mgmt.script import ScriptMgmtDriver
from vnfm.lcm.driver import LcmDriver

from ..clients.peer_calls import CALLS
from ..clients.peer_calls import SLACK
from ..clients.peer_calls import TOTAL
from .fixtures import instantiated
from .fixtures import onboarded_package
from .fixtures import run_op


class CallingDriver(NoopInfraDriver):
    """Scales by making one call to the VIM."""

    def __init__(self, call: Callable[[], None]) -> None:
        super().__init__()
        self.call = call

    def scale(self, ctx):
        self.call()
        return super().scale(ctx)


@pytest.mark.parametrize(
    ('peer', 'server'),
    [
        ('keystone', 'trickling_http'),
        ('heat', 'trickling_body'),
        ('kubernetes', 'trickling_http'),
        ('ssh', 'stalling_sshd'),
    ],
)
def test_an_op_on_a_slow_peer_ends_failed_temp_with_a_detail(
    peer, server, request, keystone, short_deadlines, db_url, hook_record
):
    slow = request.getfixturevalue(server)
    inst = instantiated(onboarded_package())
    driver = CallingDriver(lambda: CALLS[peer](slow, keystone))
    lcm = LcmDriver(
        'c1',
        InfraDrivers({'noop': driver}),
        MgmtRunner({'script': ScriptMgmtDriver()}),
    )
    started = time.monotonic()

    op = run_op(
        lcm, inst, 'SCALE', {'type': 'SCALE_OUT', 'aspectId': 'vdu1_aspect'}
    )

    assert time.monotonic() - started < TOTAL + SLACK
    assert op['operation_state'] == 'FAILED_TEMP'
    assert '127.0.0.1' in op['error']['detail']
    assert f'no complete answer within {TOTAL:g} s' in op['error']['detail']
    assert lcm.running() == []
