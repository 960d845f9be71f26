"""Fixtures of the API tests: a fresh SQLite database, the app with a fake
conductor RPC client, and helpers to create packages and instances.

The fake client records the casts; its one call, the test of a
callbackUri, runs the conductor's code in-process (real HTTP)."""

from __future__ import annotations

import dataclasses
import io
import zipfile
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
import webob

from tests.unit.clients.connects import connects  # noqa: F401
from tests.unit.conductor.receiver import Receiver  # noqa: F401
from tests.unit.conductor.receiver import receiver  # noqa: F401
from tests.unit.lcm.fixtures import conf  # noqa: F401 (a fixture)
from vnfm.common import timeutils
from vnfm.conductor import notifier
from vnfm.conf import CONF
from vnfm.db import api as db
from vnfm.db import models
from vnfm.db import session
from vnfm.objects import infra
from vnfm.objects import states
from vnfm.server import app as api_app
from vnfm.server import policies

V2 = {'Version': '2.0.0'}
BASE = 'http://localhost'


class FakeRPC:
    """Records the casts the API sends."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple]] = []
        # What check_vim answers (None: the VIM accepted the credentials).
        self.vim_check: str | None = None

    def start_lcm_op(self, ctx: Any, op_id: str) -> None:
        self.calls.append(('start_lcm_op', (op_id,)))

    def onboard_package(self, ctx: Any, package_id: str) -> None:
        self.calls.append(('onboard_package', (package_id,)))

    def fetch_package(self, ctx: Any, package_id: str) -> None:
        self.calls.append(('fetch_package', (package_id,)))

    def test_notification_endpoint(
        self,
        ctx: Any,
        callback_uri: str,
        authentication: str | None,
        api_version: str,
        interface: str = 'vnflcm',
    ) -> str | None:
        self.calls.append(('test_notification_endpoint', (callback_uri,)))
        return notifier.test_notification_endpoint(
            callback_uri, authentication, api_version, interface
        )

    def check_vim(self, ctx: Any, vim: dict) -> str | None:
        self.calls.append(('check_vim', (vim,)))
        return self.vim_check


class Client:
    """Calls the WSGI app in-process."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        headers: dict | None = None,
        raw: bytes | None = None,
        content_type: str | None = None,
    ) -> webob.Response:
        req = webob.Request.blank(path, method=method)
        for k, v in (headers or {}).items():
            req.headers[k] = v
        if raw is not None:
            req.body = raw
            req.content_type = content_type or 'application/octet-stream'
        elif body is not None:
            req.body = orjson.dumps(body)
            req.content_type = content_type or 'application/json'
        return req.get_response(self.app)

    def lcm(
        self, method: str, path: str, body: Any = None, **kw: Any
    ) -> webob.Response:
        """A /vnflcm/v2 request with the Version header."""
        kw['headers'] = {**V2, **(kw.get('headers') or {})}
        return self.request(method, '/vnflcm/v2' + path, body, **kw)

    def pkg(
        self, method: str, path: str, body: Any = None, **kw: Any
    ) -> webob.Response:
        """A /vnfpkgm/v1 request."""
        return self.request(method, '/vnfpkgm/v1' + path, body, **kw)


@pytest.fixture
def database(tmp_path: Any) -> Iterator[None]:
    """An empty SQLite database with every table."""
    url = f'sqlite:///{tmp_path}/vnfm.sqlite'
    CONF.set_override('connection', url, group='database')
    CONF.set_override('state_path', str(tmp_path))
    session.set_engine(None)
    models.Base.metadata.create_all(session.get_engine())
    yield
    session.set_engine(None)
    CONF.clear_override('connection', group='database')
    CONF.clear_override('state_path')


@pytest.fixture
def rpc() -> FakeRPC:
    """The fake conductor RPC client."""
    return FakeRPC()


@pytest.fixture
def client(database: None, rpc: FakeRPC) -> Iterator[Client]:
    """A client of the API (noauth)."""
    CONF.set_override('auth_strategy', 'noauth', group='api')
    CONF.set_override(
        'enabled_infra_drivers', ['noop', 'kubernetes'], group='infra'
    )
    # The test receivers are on loopback, which [outbound] denies.
    CONF.set_override('allowed_networks', ['127.0.0.0/8'], group='outbound')
    policies.reset()
    yield Client(api_app.build_app(rpc=rpc))
    CONF.clear_override('auth_strategy', group='api')
    CONF.clear_override('enabled_infra_drivers', group='infra')
    CONF.clear_override('allowed_networks', group='outbound')
    policies.reset()


def identity(project: str, *roles: str, user: str = 'u1') -> dict:
    """The headers keystonemiddleware sets for a valid token of ``user``
    with ``roles`` in ``project``."""
    return {
        'X-Identity-Status': 'Confirmed',
        'X-User-Id': user,
        'X-Project-Id': project,
        'X-Roles': ','.join(roles),
    }


@pytest.fixture
def keystone_client(database: None, rpc: FakeRPC) -> Iterator[Client]:
    """A client of the API under ``auth_strategy = keystone``, without the
    middleware: requests carry the headers it would set (identity())."""
    CONF.set_override('auth_strategy', 'keystone', group='api')
    CONF.set_override(
        'enabled_infra_drivers', ['noop', 'kubernetes'], group='infra'
    )
    policies.reset()
    yield Client(api_app.Application(rpc))
    CONF.clear_override('auth_strategy', group='api')
    CONF.clear_override('enabled_infra_drivers', group='infra')
    policies.reset()


VNFD_YAML = b"""tosca_definitions_version: tosca_simple_yaml_1_2
description: sample
"""


def csar_bytes(extra: dict[str, bytes] | None = None) -> bytes:
    """A small zip shaped like a CSAR (content not validated here)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as zf:
        zf.writestr(
            'TOSCA-Metadata/TOSCA.meta',
            'TOSCA-Meta-File-Version: 1.0\n'
            'CSAR-Version: 1.1\nCreated-By: test\n'
            'Entry-Definitions: Definitions/vnfd.yaml\n',
        )
        zf.writestr('Definitions/vnfd.yaml', VNFD_YAML)
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return buf.getvalue()


def make_package(
    vnfd_id: str = 'vnfd-1',
    *,
    state: str = 'ONBOARDED',
    operational: str = 'ENABLED',
    usage: str = 'NOT_IN_USE',
    flavours: tuple[str, ...] = ('simple',),
    content: bytes | None = None,
    **values: Any,
) -> dict:
    """A package row as onboarding leaves it."""
    row = db.package_create(
        dict(
            {
                'onboarding_state': state,
                'operational_state': operational,
                'usage_state': usage,
                'vnfd_id': vnfd_id if state == 'ONBOARDED' else None,
                'vnf_provider': 'Company',
                'vnf_product_name': 'Sample',
                'vnf_software_version': '1.0',
                'vnfd_version': '1.0',
                'vnfd': {
                    'vnfd_id': vnfd_id,
                    'flavours': {
                        f: {
                            'flavour_id': f,
                            'instantiation_levels': {
                                'instantiation_level_1': {}
                            },
                        }
                        for f in flavours
                    },
                },
            },
            **values,
        )
    )
    if content is not None:
        db.package_content_put(row['id'], content)
    return row


def make_instance(
    package: dict, *, state: str = 'NOT_INSTANTIATED', **values: Any
) -> dict:
    """An instance row of ``package``."""
    return db.instance_create(
        dict(
            {
                'vnfd_id': package['vnfd_id'],
                'vnf_provider': 'Company',
                'vnf_product_name': 'Sample',
                'vnf_software_version': '1.0',
                'vnfd_version': '1.0',
                'vnf_pkg_id': package['id'],
                'instantiation_state': state,
                'api_version': '2',
            },
            **values,
        )
    )


def make_op(
    instance: dict,
    *,
    state: str = 'FAILED_TEMP',
    operation: str = 'INSTANTIATE',
    **values: Any,
) -> dict:
    """An op occurrence row on ``instance``."""
    now = timeutils.utcnow()
    active = (
        instance['id']
        if state not in ('COMPLETED', 'FAILED', 'ROLLED_BACK')
        else None
    )
    row = db.op_create(
        dict(
            {
                'vnf_instance_id': instance['id'],
                'operation': operation,
                'operation_state': state,
                'state_entered_time': now,
                'start_time': now,
                'is_automatic_invocation': False,
                'is_cancel_pending': False,
                'operation_params': {},
                'api_version': '2',
            },
            **values,
        )
    )
    if active is None:
        row = db.op_update(row['id'], {'active_instance_id': None})
    return row


def json_of(resp: webob.Response) -> Any:
    """The decoded JSON body."""
    return orjson.loads(resp.body)


def _publish(
    monkeypatch: pytest.MonkeyPatch, operations: tuple[str, ...], add: bool
) -> None:
    """The noop driver publishes ``operations`` too (``add``) or no more."""
    changed = {states.LcmOperation(op) for op in operations}
    monkeypatch.setattr(
        infra,
        'NOOP',
        dataclasses.replace(
            infra.NOOP,
            operations=(
                infra.NOOP.operations | changed
                if add
                else infra.NOOP.operations - changed
            ),
        ),
    )
    infra.enabled.cache_clear()


@pytest.fixture
def driver_supports(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """``declare(*operations)``: the noop driver publishes these operations
    too, as a driver that learns them would."""
    yield lambda *operations: _publish(monkeypatch, operations, add=True)
    infra.enabled.cache_clear()


@pytest.fixture
def driver_lacks(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """``withdraw(*operations)``: the noop driver no longer publishes these
    operations, as a driver that lacks them."""
    yield lambda *operations: _publish(monkeypatch, operations, add=False)
    infra.enabled.cache_clear()
