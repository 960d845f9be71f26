"""Cancel of a running op on the conductor that holds it: GRACEFUL at the
next step boundary, FORCEFUL by killing the running hook."""

from __future__ import annotations

import threading
import time

from vnfm.clients import openstack
from vnfm.db import api as db
from vnfm.drivers.infra.noop.driver import NoopInfraDriver
from vnfm.drivers.infra.registry import InfraDrivers
from vnfm.drivers.mgmt.runner import MgmtRunner
from vnfm.drivers.mgmt.script import ScriptMgmtDriver
from vnfm.lcm import cancel
from vnfm.lcm.driver import LcmDriver

from .fixtures import instantiated
from .fixtures import new_op
from .fixtures import onboarded_package
from .fixtures import run_op
from .fixtures import user_retries
from .fixtures import user_rolls_back

SCALE_OUT = {'type': 'SCALE_OUT', 'aspectId': 'vdu1_aspect'}


class CancelledWhileScaling(NoopInfraDriver):
    """Scales, and meanwhile the user cancels (what the API records)."""

    mode = 'GRACEFUL'

    def scale(self, ctx):
        result = super().scale(ctx)
        op = db.op_list(
            {
                'vnf_instance_id': ctx.vnf_instance['id'],
                'operation_state': 'PROCESSING',
            }
        )[0]
        if not self.calls[-1].get('cancelled_once'):
            db.op_update(
                op['id'], {'is_cancel_pending': True, 'cancel_mode': self.mode}
            )
            self.calls[-1]['cancelled_once'] = True
        return result


def _lcm(noop: NoopInfraDriver) -> LcmDriver:
    return LcmDriver(
        'c1',
        InfraDrivers({'noop': noop}),
        MgmtRunner({'script': ScriptMgmtDriver()}),
    )


def test_graceful_cancel_stops_at_the_next_step_then_retry_finishes(
    db_url, hook_record
):
    inst = instantiated(onboarded_package())
    noop = CancelledWhileScaling()
    lcm = _lcm(noop)

    op = run_op(lcm, inst, 'SCALE', SCALE_OUT)

    assert op['operation_state'] == 'FAILED_TEMP'
    assert op['error']['title'] == 'Cancelled'
    assert 'Cancelled (GRACEFUL)' in op['error']['detail']
    assert not op['is_cancel_pending'] and op['cancel_mode'] is None
    # The scale that ran is not run again: retry only finishes the op.
    scales = [c for c in noop.calls if c['method'] == 'scale']
    user_retries(op['id'])
    lcm.start(op['id'])
    op = db.op_get(op['id'])
    assert op['operation_state'] == 'COMPLETED', op['error']
    assert [c for c in noop.calls if c['method'] == 'scale'] == scales
    info = db.instance_get(inst['id'])['instantiated_vnf_info']
    assert info['scaleStatus'][0]['scaleLevel'] == 1


def test_cancel_then_rollback(db_url, hook_record):
    inst = instantiated(onboarded_package())
    noop = CancelledWhileScaling()
    lcm = _lcm(noop)
    op = run_op(lcm, inst, 'SCALE', SCALE_OUT)
    assert op['operation_state'] == 'FAILED_TEMP'

    user_rolls_back(op['id'])
    lcm.start(op['id'])

    assert db.op_get(op['id'])['operation_state'] == 'ROLLED_BACK'
    assert noop.calls[-1]['method'] == 'rollback_scale'


def test_cancel_while_rolling_back_ends_failed_temp(db_url, hook_record):
    inst = instantiated(onboarded_package())
    lcm = _lcm(NoopInfraDriver())
    op = run_op(
        lcm,
        inst,
        'SCALE',
        dict(SCALE_OUT, additionalParams={'noop_fail': 'scale'}),
    )
    user_rolls_back(op['id'])
    db.op_update(
        op['id'], {'is_cancel_pending': True, 'cancel_mode': 'FORCEFUL'}
    )

    lcm.start(op['id'])

    op = db.op_get(op['id'])
    assert op['operation_state'] == 'FAILED_TEMP'
    assert 'Cancelled (FORCEFUL)' in op['error']['detail']
    assert not op['is_cancel_pending']


def test_poller_kills_the_hooks_of_forceful_cancels_it_holds(
    db_url, hook_record, monkeypatch
):
    inst = instantiated(onboarded_package())
    killed = []
    monkeypatch.setattr(
        cancel.processes, 'kill', lambda op_id: killed.append(op_id) or 1
    )
    lcm = _lcm(NoopInfraDriver())
    op = run_op(
        lcm,
        inst,
        'SCALE',
        dict(SCALE_OUT, additionalParams={'noop_fail': 'scale'}),
    )
    user_retries(op['id'])  # PROCESSING again, as a conductor would hold it
    db.op_update(op['id'], {'owner': 'c1'})
    assert cancel.kill_forceful('c1') == 0  # no cancel pending
    db.op_update(
        op['id'], {'is_cancel_pending': True, 'cancel_mode': 'GRACEFUL'}
    )
    assert cancel.kill_forceful('c1') == 0  # GRACEFUL kills nothing
    db.op_update(op['id'], {'cancel_mode': 'FORCEFUL'})
    assert cancel.kill_forceful('c2') == 0  # not c2's op
    assert cancel.kill_forceful('c1') == 1 and killed == [op['id']]


class WaitingOnKeystone(NoopInfraDriver):
    """Scales by asking a Keystone that trickles its answer."""

    keystone_url = ''

    def scale(self, ctx):
        vim = {
            'interfaceInfo': {'endpoint': f'{self.keystone_url}/v3'},
            'accessInfo': {'username': 'u', 'password': 'p', 'project': 'p'},
        }
        with openstack.Connection(vim) as conn:
            conn.authenticate()
        return super().scale(ctx)


def test_forceful_cancel_ends_the_call_the_op_waits_for(
    db_url, hook_record, trickling_http, conf
):
    conf('request_timeout', 60.0, group='openstack')
    inst = instantiated(onboarded_package())
    noop = WaitingOnKeystone()
    noop.keystone_url = trickling_http.url
    lcm = _lcm(noop)
    op = new_op(inst, 'SCALE', SCALE_OUT)
    worker = threading.Thread(target=lcm.start, args=(op['id'],))
    worker.start()
    _until(lambda: trickling_http.accepted)  # the op waits on Keystone
    db.op_update(
        op['id'], {'is_cancel_pending': True, 'cancel_mode': 'FORCEFUL'}
    )
    started = time.monotonic()

    assert cancel.kill_forceful('c1') == 1  # the poller's round

    worker.join(5)
    assert not worker.is_alive(), 'the op still waits on Keystone'
    assert time.monotonic() - started < 5
    op = db.op_get(op['id'])
    assert op['operation_state'] == 'FAILED_TEMP'
    assert op['error']['title'] == 'Cancelled'
    detail = op['error']['detail']
    assert detail.startswith('Cancelled (FORCEFUL)')
    assert 'interrupted by a FORCEFUL cancel' in detail
    assert trickling_http.url.removeprefix('http://') in detail


def _until(done, seconds: float = 10.0) -> None:
    """Poll ``done()`` until true; fail after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, 'not in time'
        time.sleep(0.01)
