"""What the conductor's RPC client puts on the bus: casts that carry ids
only, at the version of each method, with bounded retries; calls with a
deadline."""

from __future__ import annotations

from typing import Any

import pytest

from vnfm.common import context
from vnfm.common import rpc
from vnfm.conductor import rpcapi


class Recorder:
    """An RPCClient that records what would be sent."""

    def __init__(self, answer: Any = None) -> None:
        self.sent: list[dict[str, Any]] = []
        self.answer = answer
        self.prepared: dict[str, Any] = {}
        self.made: list[dict[str, Any]] = []

    def prepare(self, **options: Any) -> Recorder:
        self.prepared = options
        return self

    def cast(self, ctx: Any, method: str, **kwargs: Any) -> None:
        self.sent.append(
            {
                'kind': 'cast',
                'method': method,
                'kwargs': kwargs,
                **self.prepared,
            }
        )

    def call(self, ctx: Any, method: str, **kwargs: Any) -> Any:
        self.sent.append(
            {
                'kind': 'call',
                'method': method,
                'kwargs': kwargs,
                **self.prepared,
            }
        )
        return self.answer


@pytest.fixture
def recorder(monkeypatch, conf) -> Recorder:
    recorder = Recorder(answer='refused: 401')

    def get_client(target, transport=None, version_cap=None):
        recorder.made.append(
            {'topic': target.topic, 'version_cap': version_cap}
        )
        return recorder

    monkeypatch.setattr(rpc, 'get_client', get_client)
    return recorder


CTX = context.get_admin_context()


def test_the_client_targets_the_conductors_topic_capped_at_its_version(
    recorder, conf
):
    conf('topic', 'vnfm-conductor-x', 'conductor')

    rpcapi.ConductorAPI()

    assert recorder.made == [
        {
            'topic': 'vnfm-conductor-x',
            'version_cap': rpcapi.ConductorAPI.RPC_API_VERSION,
        }
    ]


@pytest.mark.parametrize(
    'method,kwargs,version',
    [
        ('start_lcm_op', {'op_id': 'op-1'}, '1.0'),
        ('onboard_package', {'package_id': 'pkg-1'}, '1.0'),
        ('fetch_package', {'package_id': 'pkg-1'}, '1.2'),
    ],
)
def test_work_is_a_cast_of_ids_with_bounded_retries(
    recorder, conf, method, kwargs, version
):
    conf('cast_retries', 3, 'conductor')

    getattr(rpcapi.ConductorAPI(), method)(CTX, *kwargs.values())

    assert recorder.sent == [
        {
            'kind': 'cast',
            'method': method,
            'kwargs': kwargs,
            'version': version,
            'retry': 3,
        }
    ]


def test_the_callback_test_waits_for_its_own_deadline_and_a_margin(
    recorder, conf
):
    conf('callback_test_timeout', 7.0, 'notifications')

    answer = rpcapi.ConductorAPI().test_notification_endpoint(
        CTX, 'https://198.18.0.1/cb', 'sealed-auth', '2.0.0'
    )

    assert answer == 'refused: 401'
    [sent] = recorder.sent
    assert sent['kind'] == 'call'
    assert sent['method'] == 'test_notification_endpoint'
    assert sent['version'] == '1.1'
    assert sent['timeout'] == 7.0 + rpcapi.ConductorAPI.CALL_MARGIN
    assert sent['kwargs'] == {
        'callback_uri': 'https://198.18.0.1/cb',
        'authentication': 'sealed-auth',
        'api_version': '2.0.0',
    }


def test_check_vim_waits_for_two_openstack_round_trips_and_a_margin(
    recorder, conf
):
    conf('connect_timeout', 3.0, 'openstack')
    conf('request_timeout', 5.0, 'openstack')
    vim = {'id': 'vim-1', 'auth_cred': 'sealed'}

    answer = rpcapi.ConductorAPI().check_vim(CTX, vim)

    assert answer == 'refused: 401'
    [sent] = recorder.sent
    assert (sent['kind'], sent['method'], sent['version']) == (
        'call',
        'check_vim',
        '1.3',
    )
    assert sent['timeout'] == 2 * (3.0 + 5.0) + rpcapi.ConductorAPI.CALL_MARGIN
    assert sent['kwargs'] == {'vim': vim}
