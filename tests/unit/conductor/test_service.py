"""The conductor service's own duties: at start-up it fails what an
earlier process of its host left running; its heartbeat keeps alive only
the ops its workers run."""

import datetime
import time

import oslo_messaging
import pytest

from vnfm.common import context
from vnfm.common import timeutils
from vnfm.conductor import rpcapi
from vnfm.conductor import service as service_module
from vnfm.conductor.service import ConductorService
from vnfm.conf import CONF
from vnfm.db import api as db
from vnfm.drivers.infra.noop.driver import NoopInfraDriver
from vnfm.drivers.infra.registry import InfraDrivers
from vnfm.drivers.mgmt.runner import MgmtRunner
from vnfm.drivers.mgmt.script import ScriptMgmtDriver

from ..lcm.fixtures import instantiate_params
from ..lcm.fixtures import new_instance
from ..lcm.fixtures import new_op
from ..lcm.fixtures import onboarded_package


def wait_for(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, 'condition not met in time'
        time.sleep(0.01)


class Started(ConductorService):
    """Remembers whether it was started (only then can it be stopped)."""

    started = False

    def start(self):
        super().start()
        self.started = True


@pytest.fixture
def conductor(db_url, hook_record):
    """A conductor ``c1`` on an in-process bus, not started, and a
    client; stopped at the end."""
    transport = oslo_messaging.get_rpc_transport(CONF, url='fake://')
    service = Started(
        host='c1',
        transport=transport,
        infra=InfraDrivers({'noop': NoopInfraDriver()}),
        mgmt=MgmtRunner({'script': ScriptMgmtDriver()}),
    )
    try:
        yield service, rpcapi.ConductorAPI(transport=transport)
    finally:
        if service.started:
            service.stop(timeout=10)
        transport.cleanup()


def _running_op(owner):
    """An op held by ``owner`` with a lease 30 s ahead."""
    pkg = db.package_list()[0] if db.package_list() else onboarded_package()
    op = new_op(new_instance(pkg), 'INSTANTIATE', instantiate_params())
    return db.op_update(
        op['id'],
        {
            'operation_state': 'PROCESSING',
            'owner': owner,
            'lease_expires_at': timeutils.utcnow()
            + datetime.timedelta(seconds=30),
        },
    )


def test_each_process_has_its_own_owner_id(conductor):
    service, _ = conductor
    assert service.owner.startswith('c1/')
    assert service.lcm.host == service.owner


def test_start_fails_the_ops_of_the_earlier_process(conductor):
    service, _ = conductor
    left = _running_op('c1/earlier')
    other = _running_op('c2/alive')

    service.start()

    left = db.op_get(left['id'])
    assert left['operation_state'] == 'FAILED_TEMP'
    assert left['error']['detail'].startswith('Conductor c1 restarted at ')
    assert db.op_get(other['id'])['owner'] == 'c2/alive'


def test_heartbeat_renews_only_the_ops_workers_run(conductor):
    service, client = conductor
    service.start()
    orphan = _running_op(service.owner)  # no worker runs it
    inst = new_instance(db.package_list()[0])
    running = new_op(
        inst,
        'INSTANTIATE',
        instantiate_params(
            additionalParams={'hook_sleep': {'instantiate_start': 3}}
        ),
    )
    client.start_lcm_op(context.get_admin_context(), running['id'])
    wait_for(lambda: db.op_get(running['id'])['owner'] == service.owner)
    before = {
        op_id: db.op_get(op_id)['lease_expires_at']
        for op_id in (orphan['id'], running['id'])
    }

    assert service.heartbeat() == 1

    assert db.op_get(orphan['id'])['lease_expires_at'] == before[orphan['id']]
    assert (
        db.op_get(running['id'])['lease_expires_at'] >= before[running['id']]
    )
    assert service.lcm.running() == [running['id']]


def test_after_a_failed_sweep_the_reaper_waits_one_lease(
    conductor, conf, monkeypatch
):
    """All conductors' heartbeats failed while the database was away:
    reaping as soon as it is back would fail the live ones' ops."""
    service, _ = conductor
    conf('lease_seconds', 30, 'conductor')
    clock = [1000.0]
    monkeypatch.setattr(service_module.time, 'monotonic', lambda: clock[0])
    reaped = []
    monkeypatch.setattr(service_module.periodic, 'reap', reaped.append)
    down = [True]

    def sweep_unclaimed(now, submit, free):
        if down[0]:
            raise RuntimeError('database unreachable')
        return []

    monkeypatch.setattr(
        service_module.periodic, 'sweep_unclaimed', sweep_unclaimed
    )
    with pytest.raises(RuntimeError):
        service.sweep()
    down[0] = False
    clock[0] += 29
    service.sweep()
    assert len(reaped) == 1  # only the sweep that failed reaped

    clock[0] += 1.5
    service.sweep()
    assert len(reaped) == 2
