"""Context, policies, the WSGI entry point and vnfm-api's server."""

from __future__ import annotations

import socket

from vnfm.cmd import api as cmd_api
from vnfm.common import context
from vnfm.conf import CONF
from vnfm.server import policies
from vnfm.server import wsgi


def test_context_round_trip_drops_token():
    ctx = context.RequestContext(
        user_id='u', project_id='p', roles=['member'], auth_token='TOKEN'
    )
    values = ctx.to_dict()
    assert values['auth_token'] is None
    back = context.RequestContext.from_dict(values)
    assert (back.user_id, back.project_id, back.roles) == (
        'u',
        'p',
        ['member'],
    )
    assert not back.is_admin


def test_admin_context():
    ctx = context.get_admin_context()
    assert ctx.is_admin and 'admin' in ctx.roles


def test_policies_have_operations_and_project_default():
    rules = {r.name: r for r in policies.list_rules()}
    create = rules[policies.LCM + 'create']
    assert create.operations == [
        {'method': 'POST', 'path': '/vnflcm/v2/vnf_instances'}
    ]
    policies.reset()
    # Keystone puts the implied role reader in a member's token.
    member = context.RequestContext(
        user_id='u', project_id='p', roles=['member', 'reader']
    )
    rule = policies.LCM + 'show'
    assert policies.check(rule, {'project_id': 'p'}, member)
    assert not policies.check(rule, {'project_id': 'other'}, member)
    assert policies.check(
        rule, {'project_id': 'other'}, context.get_admin_context()
    )


def test_wsgi_application_is_lazy(monkeypatch):
    calls = []

    def fake_init():
        calls.append(1)
        return lambda environ, start_response: [b'ok']

    monkeypatch.setattr(wsgi, 'init_application', fake_init)
    app = wsgi._LazyApplication()
    assert calls == []
    assert app({}, None) == [b'ok'] and app({}, None) == [b'ok']
    assert calls == [1]


def test_config_files_from_environment(monkeypatch):
    monkeypatch.setenv('VNFM_CONFIG_FILE', '/a.conf, /b.conf')
    assert wsgi._config_files() == ['/a.conf', '/b.conf']
    monkeypatch.delenv('VNFM_CONFIG_FILE')
    assert wsgi._config_files() is None


def test_server_sets_nodelay_and_threads():
    CONF.set_override('port', 0, group='api')
    try:
        server = cmd_api.make_server(lambda e, s: [b''])
    finally:
        CONF.clear_override('port', group='api')
    assert server.nodelay is True
    assert server.requests.min >= 1
    server.prepare()
    try:
        sock = server.socket
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    finally:
        server.stop()
