"""The RPC client and the endpoints over the in-process fake:// bus."""

import inspect
import time

import oslo_messaging
import pytest

from vnfm.common import context
from vnfm.conductor import manager, rpcapi
from vnfm.conductor.service import ConductorService
from vnfm.conf import CONF
from vnfm.db import api as db
from vnfm.drivers.infra.noop.driver import NoopInfraDriver
from vnfm.drivers.infra.registry import InfraDrivers
from vnfm.drivers.mgmt.runner import MgmtRunner
from vnfm.drivers.mgmt.script import ScriptMgmtDriver
from .receiver import Receiver
from ..lcm.fixtures import (instantiate_params, new_instance, new_op,
                            onboarded_package, sample_csar)


def test_client_and_manager_versions_are_equal():
    assert rpcapi.ConductorAPI.RPC_API_VERSION == (
        manager.ConductorManager.RPC_API_VERSION)
    assert manager.ConductorManager.target.version == (
        rpcapi.ConductorAPI.RPC_API_VERSION)


def test_manager_exposes_exactly_the_client_methods():
    def methods(cls):
        return {n for n, _ in inspect.getmembers(cls, inspect.isfunction)
                if not n.startswith('_')}
    # oslo.messaging exposes every public method of an endpoint.
    public, client = methods(manager.ConductorManager), methods(
        rpcapi.ConductorAPI)
    assert public == client == {'start_lcm_op', 'onboard_package',
                                'fetch_package',
                                'test_notification_endpoint'}


def wait_for(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, 'condition not met in time'
        time.sleep(0.01)


@pytest.fixture
def bus(db_url, hook_record):
    """A conductor on an in-process bus and a client of it."""
    transport = oslo_messaging.get_rpc_transport(CONF, url='fake://')
    service = ConductorService(
        host='c1', transport=transport,
        infra=InfraDrivers({'noop': NoopInfraDriver()}),
        mgmt=MgmtRunner({'script': ScriptMgmtDriver()}))
    service.start()
    try:
        yield rpcapi.ConductorAPI(transport=transport), service
    finally:
        service.stop(timeout=10)
        transport.cleanup()


def test_cast_start_lcm_op_runs_the_op(bus):
    client, _ = bus
    inst = new_instance(onboarded_package())
    op = new_op(inst, 'INSTANTIATE', instantiate_params())

    client.start_lcm_op(context.get_admin_context(), op['id'])

    wait_for(lambda: db.op_get(op['id'])['operation_state'] == 'COMPLETED')
    assert db.instance_get(inst['id'])['instantiation_state'] == (
        'INSTANTIATED')


def test_cast_onboard_package(bus):
    client, _ = bus
    pkg = db.package_create({'onboarding_state': 'PROCESSING',
                             'operational_state': 'DISABLED',
                             'usage_state': 'NOT_IN_USE'})
    db.package_content_put(pkg['id'], sample_csar())

    client.onboard_package(context.get_admin_context(), pkg['id'])

    wait_for(lambda: db.package_get(pkg['id'])['onboarding_state'] == (
        'ONBOARDED'))


def test_call_test_notification_endpoint(bus):
    client, _ = bus
    ctx = context.get_admin_context()
    rcv = Receiver().start()
    try:
        assert client.test_notification_endpoint(
            ctx, rcv.url, None, '2') is None
        rcv.test_statuses = [500]
        detail = client.test_notification_endpoint(ctx, rcv.url, None, '2')
    finally:
        rcv.stop()
    assert detail == (f'GET {rcv.url} answered HTTP 500; a notification '
                      'endpoint must answer 204 No Content.')
    assert len(rcv.tests) == 2


def test_stop_lets_running_op_finish(bus):
    client, service = bus
    inst = new_instance(onboarded_package())
    op = new_op(inst, 'INSTANTIATE', instantiate_params(
        additionalParams={'hook_sleep': {'instantiate_end': 0.5}}))
    client.start_lcm_op(context.get_admin_context(), op['id'])
    wait_for(lambda: db.op_get(op['id'])['owner'] == service.owner)

    assert service.stop(timeout=10) is True

    assert db.op_get(op['id'])['operation_state'] == 'COMPLETED'
