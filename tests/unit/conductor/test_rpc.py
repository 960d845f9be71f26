"""The RPC client and the endpoints over the in-process fake:// bus."""

import base64
import inspect
import json
import time

import oslo_messaging
import pytest
import webob

from vnfm.common import context
from vnfm.common import crypto
from vnfm.conductor import manager
from vnfm.conductor import rpcapi
from vnfm.conductor.service import ConductorService
from vnfm.conf import CONF
from vnfm.db import api as db
from vnfm.drivers.infra.noop.driver import NoopInfraDriver
from vnfm.drivers.infra.registry import InfraDrivers
from vnfm.drivers.mgmt.runner import MgmtRunner
from vnfm.drivers.mgmt.script import ScriptMgmtDriver
from vnfm.server import app as api_app
from vnfm_testbed import procs

from ..lcm.fixtures import instantiate_params
from ..lcm.fixtures import new_instance
from ..lcm.fixtures import new_op
from ..lcm.fixtures import onboarded_package
from ..lcm.fixtures import sample_csar
from .receiver import Receiver


def test_client_and_manager_versions_are_equal():
    assert rpcapi.ConductorAPI.RPC_API_VERSION == (
        manager.ConductorManager.RPC_API_VERSION
    )
    assert manager.ConductorManager.target.version == (
        rpcapi.ConductorAPI.RPC_API_VERSION
    )


def test_manager_exposes_exactly_the_client_methods():
    def methods(cls):
        return {
            n
            for n, _ in inspect.getmembers(cls, inspect.isfunction)
            if not n.startswith('_')
        }

    # oslo.messaging exposes every public method of an endpoint.
    public, client = (
        methods(manager.ConductorManager),
        methods(rpcapi.ConductorAPI),
    )
    assert (
        public
        == client
        == {
            'start_lcm_op',
            'onboard_package',
            'fetch_package',
            'test_notification_endpoint',
            'check_vim',
        }
    )


def wait_for(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, 'condition not met in time'
        time.sleep(0.01)


@pytest.fixture
def bus(db_url, hook_record, conf):
    """A conductor on an in-process bus and a client of it (loopback
    allowed for the test receivers)."""
    conf('allowed_networks', ['127.0.0.0/8'], 'outbound')
    transport = oslo_messaging.get_rpc_transport(CONF, url='fake://')
    service = ConductorService(
        host='c1',
        transport=transport,
        infra=InfraDrivers({'noop': NoopInfraDriver()}),
        mgmt=MgmtRunner({'script': ScriptMgmtDriver()}),
    )
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
        'INSTANTIATED'
    )


def test_cast_onboard_package(bus):
    client, _ = bus
    pkg = db.package_create(
        {
            'onboarding_state': 'PROCESSING',
            'operational_state': 'DISABLED',
            'usage_state': 'NOT_IN_USE',
        }
    )
    db.package_content_put(pkg['id'], sample_csar())

    client.onboard_package(context.get_admin_context(), pkg['id'])

    wait_for(
        lambda: db.package_get(pkg['id'])['onboarding_state'] == ('ONBOARDED')
    )


def test_call_test_notification_endpoint(bus):
    client, _ = bus
    ctx = context.get_admin_context()
    rcv = Receiver().start()
    try:
        assert (
            client.test_notification_endpoint(ctx, rcv.url, None, '2') is None
        )
        rcv.test_statuses = [500]
        detail = client.test_notification_endpoint(ctx, rcv.url, None, '2')
    finally:
        rcv.stop()
    assert detail == (
        f'GET {rcv.url} did not answer 204 No Content, as a '
        'notification endpoint must.'
    )
    assert len(rcv.tests) == 2


def test_call_test_notification_endpoint_of_a_package_subscription(bus):
    client, _ = bus
    rcv = Receiver().start()
    try:
        detail = client.test_notification_endpoint(
            context.get_admin_context(), rcv.url, None, '1', 'vnfpkgm'
        )
        lcm_v1 = client.test_notification_endpoint(
            context.get_admin_context(), rcv.url, None, '1'
        )
    finally:
        rcv.stop()
    assert detail is None and lcm_v1 is None
    assert [t['headers']['Version'] for t in rcv.tests] == ['2.0.0', '1.3.0']


def test_call_check_vim_answers_why_keystone_is_unusable(bus):
    client, _ = bus
    port = procs.free_port()
    vim = {
        'type': 'openstack',
        'auth_url': f'http://127.0.0.1:{port}/v3',
        'vim_project': {'name': 'demo'},
        'auth_cred': crypto.encrypt({'username': 'u', 'password': 'pw'}),
        'extra': {},
    }

    detail = client.check_vim(context.get_admin_context(), vim)

    assert detail.startswith(
        f'POST http://127.0.0.1:{port}/v3 (Keystone) failed: unreachable'
    )
    assert (
        client.check_vim(
            context.get_admin_context(), dict(vim, type='kubernetes')
        )
        is None
    )


def test_check_vim_of_a_trickling_keystone_answers_within_the_deadline(
    bus, trickling_http, conf
):
    conf('request_timeout', 1.0, group='openstack')
    client, _ = bus
    vim = {
        'type': 'openstack',
        'auth_url': f'{trickling_http.url}/v3',
        'vim_project': {'name': 'demo'},
        'auth_cred': crypto.encrypt({'username': 'u', 'password': 'pw'}),
        'extra': {},
    }
    started = time.monotonic()

    detail = client.check_vim(context.get_admin_context(), vim)

    assert time.monotonic() - started < 1.0 + 2.0
    assert detail.startswith(f'Keystone at {trickling_http.url}/v3 cannot')
    assert 'no complete answer within 1 s' in detail


def test_stop_lets_running_op_finish(bus):
    client, service = bus
    inst = new_instance(onboarded_package())
    op = new_op(
        inst,
        'INSTANTIATE',
        instantiate_params(
            additionalParams={'hook_sleep': {'instantiate_end': 0.5}}
        ),
    )
    client.start_lcm_op(context.get_admin_context(), op['id'])
    wait_for(lambda: db.op_get(op['id'])['owner'] == service.owner)

    assert service.stop(timeout=10) is True

    assert db.op_get(op['id'])['operation_state'] == 'COMPLETED'


@pytest.fixture
def sent(bus, monkeypatch):
    """Every message the client puts on the bus, as the transport gets it
    (context and message, JSON)."""
    client, _ = bus
    transport = client._client.transport
    real = transport._send
    seen: list[str] = []

    def spy(target, ctxt, message, *args, **kwargs):
        seen.append(json.dumps([target.topic, ctxt, message]))
        return real(target, ctxt, message, *args, **kwargs)

    monkeypatch.setattr(transport, '_send', spy)
    return seen


def test_upload_from_uri_cast_carries_the_package_id_only(
    bus, sent, web, conf
):
    """From the API request to the conductor's download: the password is
    in no RPC message (a cast waits on a durable queue), yet the download
    uses it."""
    client, _ = bus
    conf('auth_strategy', 'noauth', 'api')
    app = api_app.build_app(rpc=client)
    web.routes['/p.zip'] = (200, {}, sample_csar())

    def api(method, path, body=None):
        req = webob.Request.blank(
            '/vnfpkgm/v1' + path,
            method=method,
            headers={'X-Auth-Token': 'tok-s3cret'},
        )
        if body is not None:
            req.body = json.dumps(body).encode()
            req.content_type = 'application/json'
        return req.get_response(app)

    resp = api('POST', '/vnf_packages', {})
    assert resp.status_int == 201, resp.text
    pkg = resp.json_body
    resp = api(
        'POST',
        f'/vnf_packages/{pkg["id"]}/package_content/upload_from_uri',
        {
            'addressInformation': f'{web.base}/p.zip',
            'userName': 'nfvo',
            'password': 'upl0ad-s3cret',
        },
    )
    assert resp.status_int == 202, resp.text

    wait_for(
        lambda: db.package_get(pkg['id'])['onboarding_state'] == ('ONBOARDED')
    )
    assert web.seen == [
        ('/p.zip', 'Basic ' + base64.b64encode(b'nfvo:upl0ad-s3cret').decode())
    ]
    [cast] = [m for m in sent if 'fetch_package' in m]
    assert pkg['id'] in cast
    assert json.loads(cast)[2]['args'] == {'package_id': pkg['id']}
    assert not [m for m in sent if 's3cret' in m]
    # Once fetched, the sealed password is gone from the database too.
    assert db.package_get(pkg['id'])['upload_source'] == {
        'addressInformation': f'{web.base}/p.zip',
        'userName': 'nfvo',
    }
