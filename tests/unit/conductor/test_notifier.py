"""Delivery of the outbox to a real HTTP receiver on 127.0.0.1: success,
retries with backoff, giving up, BASIC and OAuth 2.0 authentication, and
two conductors sharing the work without sending anything twice."""

from __future__ import annotations

import base64
import datetime
import logging
import threading

import pytest

from vnfm.clients import http
from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.common import timeutils
from vnfm.conductor import notifier as notifier_module
from vnfm.conductor.notifier import Notifier
from vnfm.conductor.notifier import backoff
from vnfm.db import api as db
from vnfm.db import outbox
from vnfm.db import registry
from vnfm.objects import notifications
from vnfm.objects import package_notifications

from ..lcm.fixtures import instantiate_params
from ..lcm.fixtures import make_lcm
from ..lcm.fixtures import new_instance
from ..lcm.fixtures import new_op
from ..lcm.fixtures import onboarded_package
from .receiver import Receiver
from .receiver import make_tls

T0 = datetime.datetime(2030, 1, 1, 12, 0, 0)
PASSWORD = 'pa55-never-logged'


def _at(seconds: float) -> datetime.datetime:
    return T0 + datetime.timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch):
    """Fake database time: ``clock.now`` is what utcnow() returns."""

    class Clock:
        now = T0

    monkeypatch.setattr(timeutils, 'utcnow', lambda: Clock.now)
    return Clock


@pytest.fixture
def loopback_allowed(conf):
    """The receivers are on loopback, which [outbound] denies by default."""
    conf('allowed_networks', ['127.0.0.0/8'], 'outbound')


@pytest.fixture
def notifier(db_url, conf, loopback_allowed):
    conf('backoff_base', 1.0, 'notifications')
    conf('backoff_cap', 300.0, 'notifications')
    conf('timeout', 5.0, 'notifications')
    made = []

    def make(host: str = 'c1', tokens: http.TokenCache | None = None):
        made.append(Notifier(host, tokens or http.TokenCache()))
        return made[-1]

    yield make
    for n in made:
        n.stop()


def _subscribe(
    receiver: Receiver, authentication: dict | None = None, **values
) -> dict:
    return registry.subscription_create(
        dict(
            {
                'callback_uri': receiver.url,
                'verbosity': 'FULL',
                'api_version': '2',
                'authentication': (
                    crypto.encrypt(authentication) if authentication else None
                ),
            },
            **values,
        )
    )


def _create_instance(name: str = 'vnf1') -> dict:
    values = {
        'id': db.new_id(),
        'vnfd_id': 'vnfd-1',
        'vnf_provider': 'p',
        'vnf_product_name': 'n',
        'vnf_software_version': '1',
        'vnfd_version': '1',
        'instantiation_state': 'NOT_INSTANTIATED',
        'vnf_instance_name': name,
        'api_version': '2',
    }
    return db.instance_create(
        values,
        notifications=notifications.for_instance(
            notifications.CREATION, values
        ),
    )


def _row() -> dict:
    rows = outbox.notification_list()
    assert len(rows) == 1
    return rows[0]


def test_delivers_start_before_result(notifier, receiver, hook_record):
    sub = _subscribe(receiver)
    inst = new_instance(onboarded_package())
    op = new_op(inst, 'INSTANTIATE', instantiate_params())
    make_lcm()[0].start(op['id'])

    assert notifier().drain() == 2

    got = receiver.wait(2)
    assert [
        (r['body']['operationState'], r['body']['notificationStatus'])
        for r in got
    ] == [('PROCESSING', 'START'), ('COMPLETED', 'RESULT')]
    assert {r['body']['subscriptionId'] for r in got} == {sub['id']}
    assert got[0]['headers']['Version'] == '2.0.0'
    assert got[0]['headers']['Content-Type'] == 'application/json'
    assert [r['state'] for r in outbox.notification_list()] == [
        outbox.DELIVERED
    ] * 2


def test_retries_with_exponential_backoff(notifier, receiver, clock):
    _subscribe(receiver)
    _create_instance()
    receiver.statuses = [500, 503]
    sender = notifier()

    assert sender.run_once() == 1
    row = _row()
    assert row['state'] == outbox.PENDING and row['attempts'] == 1
    assert row['next_attempt_at'] == _at(1)
    assert row['last_error'] == f'POST {receiver.url} answered HTTP 500.'

    clock.now = _at(0.9)
    assert sender.run_once() == 0  # not due yet
    clock.now = _at(1)
    assert sender.run_once() == 1
    assert _row()['next_attempt_at'] == _at(3)  # 1 s, then 2 s
    clock.now = _at(3)
    assert sender.run_once() == 1

    assert _row()['state'] == outbox.DELIVERED and _row()['attempts'] == 3
    assert len(receiver.wait(1)) == 1


def test_backoff_doubles_up_to_the_cap(conf):
    conf('backoff_base', 1.0, 'notifications')
    conf('backoff_cap', 300.0, 'notifications')
    assert [backoff(n) for n in (1, 2, 3, 9, 10, 20)] == [
        1,
        2,
        4,
        256,
        300,
        300,
    ]


def test_receiver_down_then_back(notifier, receiver, clock):
    _subscribe(receiver)
    _create_instance()
    receiver.stop()
    sender = notifier()

    sender.run_once()
    assert (
        'failed: connection refused (ConnectionError)' in _row()['last_error']
    )

    receiver.start()
    clock.now = _at(1)
    sender.run_once()
    assert receiver.wait(1)[0]['body']['notificationType'] == (
        notifications.CREATION
    )


def test_gives_up_then_moves_on(notifier, receiver, clock, conf, caplog):
    conf('max_attempts', 2, 'notifications')
    _subscribe(receiver)
    first = _create_instance('first')
    _create_instance('second')
    receiver.statuses = [500, 500]
    sender = notifier()

    sender.run_once()
    clock.now = _at(1)
    with caplog.at_level(logging.ERROR):
        sender.run_once()
    rows = outbox.notification_list()
    assert rows[0]['state'] == outbox.FAILED and rows[0]['attempts'] == 2
    assert rows[0]['finished_at'] == _at(1)
    assert 'Gave up notification' in caplog.text

    sender.run_once()  # the failed row no longer holds the next one back
    got = receiver.wait(1)
    assert got[0]['body']['vnfInstanceId'] != first['id']


def test_basic_authentication(notifier, receiver, caplog):
    auth = {
        'authType': ['BASIC'],
        'paramsBasic': {'userName': 'nfvo', 'password': PASSWORD},
    }
    _subscribe(receiver, auth)
    _create_instance()
    receiver.required_auth = (
        'Basic ' + base64.b64encode(f'nfvo:{PASSWORD}'.encode()).decode()
    )

    with caplog.at_level(logging.DEBUG):
        notifier().run_once()

    assert receiver.wait(1)
    assert PASSWORD not in caplog.text


def test_basic_authentication_refused_is_retried_without_secrets(
    notifier, receiver, caplog
):
    auth = {
        'authType': ['BASIC'],
        'paramsBasic': {'userName': 'nfvo', 'password': PASSWORD},
    }
    _subscribe(receiver, auth)
    _create_instance()
    receiver.required_auth = 'Basic something-else'

    with caplog.at_level(logging.DEBUG):
        notifier().run_once()

    assert _row()['last_error'].endswith('answered HTTP 401.')
    assert PASSWORD not in caplog.text + _row()['last_error']


def _oauth2(receiver: Receiver, secret: str = PASSWORD) -> dict:
    return {
        'authType': ['OAUTH2_CLIENT_CREDENTIALS'],
        'paramsOauth2ClientCredentials': {
            'clientId': 'nfvo',
            'clientPassword': secret,
            'tokenEndpoint': receiver.token_url,
        },
    }


def test_oauth2_token_fetched_once_and_reused(notifier, receiver):
    receiver.clients = {'nfvo': PASSWORD}
    _subscribe(receiver, _oauth2(receiver))
    for i in range(3):
        _create_instance(f'vnf{i}')

    notifier().drain()

    got = receiver.wait(3)
    assert receiver.token_requests == 1
    assert {r['headers']['Authorization'] for r in got} == {
        'Bearer token-nfvo-1'
    }


def test_oauth2_secret_beyond_latin_1(notifier, receiver):
    # Sent as UTF-8 (IETF RFC 7617); it raised UnicodeEncodeError, a 500
    # when creating the subscription (found by the schema fuzzing).
    secret = 'p\u00e4ss-\U0001f511'
    receiver.clients = {'nfvo': secret}
    _subscribe(receiver, _oauth2(receiver, secret))
    _create_instance()

    notifier().run_once()

    assert receiver.wait(1)[0]['headers']['Authorization'] == (
        'Bearer token-nfvo-1'
    )


def test_oauth2_token_renewed_when_expired_or_refused(
    notifier, receiver, clock
):
    now = [0.0]
    tokens = http.TokenCache(clock=lambda: now[0])
    receiver.clients = {'nfvo': PASSWORD}
    receiver.token_lifetime = 100
    _subscribe(receiver, _oauth2(receiver))
    sender = notifier(tokens=tokens)
    _create_instance('a')
    sender.run_once()

    now[0] = 95.0  # within the renewal margin of a 100 s token
    _create_instance('b')
    sender.run_once()
    assert receiver.token_requests == 2

    receiver.required_auth = 'Bearer revoked'  # the receiver drops it
    _create_instance('c')
    sender.run_once()
    assert outbox.notification_list()[-1]['last_error'].endswith('HTTP 401.')
    clock.now = _at(1)
    sender.run_once()  # the retry fetches a new token

    assert receiver.token_requests == 3
    assert [r['headers']['Authorization'] for r in receiver.wait(3)] == [
        'Bearer token-nfvo-1',
        'Bearer token-nfvo-2',
        'Bearer token-nfvo-3',
    ]


def test_oauth2_wrong_secret(notifier, receiver, caplog):
    receiver.clients = {'nfvo': 'the-right-one'}
    _subscribe(receiver, _oauth2(receiver))
    _create_instance()

    with caplog.at_level(logging.DEBUG):
        notifier().run_once()

    assert _row()['last_error'] == (
        f'Token endpoint {receiver.token_url} answered HTTP 401.'
    )
    assert PASSWORD not in caplog.text
    assert receiver.received == []


def test_unusable_authentication_gives_up_at_once(notifier, receiver):
    _subscribe(receiver, {'authType': ['BASIC']})  # no paramsBasic
    _create_instance()

    notifier().run_once()

    assert _row()['state'] == outbox.FAILED and _row()['attempts'] == 1
    assert 'BASIC needs paramsBasic' in _row()['last_error']
    assert receiver.received == []


def test_tls_cert_without_a_client_certificate_is_retried(notifier, receiver):
    _subscribe(receiver, {'authType': ['TLS_CERT']})
    _create_instance()

    notifier().run_once()

    # The operator can still configure the certificate.
    assert _row()['state'] == outbox.PENDING
    assert '[notifications] client_cert_file' in _row()['last_error']
    assert receiver.received == []


def test_tls_cert_delivered_with_the_client_certificate(
    notifier, conf, tmp_path
):
    tls = make_tls(tmp_path)
    conf('ca_file', tls.ca, 'notifications')
    conf('client_cert_file', tls.client_cert, 'notifications')
    conf('client_key_file', tls.client_key, 'notifications')
    receiver = Receiver(tls=tls).start()
    try:
        _subscribe(receiver, {'authType': ['TLS_CERT']})
        _create_instance()

        assert notifier().drain() == 1

        [got] = receiver.wait(1)
    finally:
        receiver.stop()
    assert got['client_cert'] == 'vnfm'
    assert _row()['state'] == outbox.DELIVERED


def test_endpoint_test_answers_why_it_failed(
    db_url, conf, receiver, loopback_allowed, caplog
):
    auth = crypto.encrypt(
        {
            'authType': ['BASIC'],
            'paramsBasic': {'userName': 'u', 'password': PASSWORD},
        }
    )
    conf('callback_test_timeout', 5.0, 'notifications')
    caplog.set_level(logging.INFO)

    assert (
        notifier_module.test_notification_endpoint(receiver.url, auth, '1')
        is None
    )
    receiver.test_statuses = [404]
    detail = notifier_module.test_notification_endpoint(
        receiver.url, auth, '2'
    )

    # The subscriber is told what to do, the operator's log what answered.
    assert detail == (
        f'GET {receiver.url} did not answer 204 No Content, '
        'as a notification endpoint must.'
    )
    assert f'GET {receiver.url} answered HTTP 404.' in caplog.text
    assert [t['headers']['Version'] for t in receiver.tests] == [
        '1.3.0',
        '2.0.0',
    ]
    assert receiver.tests[0]['headers']['Authorization'].startswith('Basic ')


def test_endpoint_test_refuses_loopback_by_default(db_url, receiver, connects):
    detail = notifier_module.test_notification_endpoint(
        receiver.url, None, '2'
    )

    assert detail == (
        f'GET {receiver.url} refused by policy: 127.0.0.1 '
        'resolves to an address vnfm does not connect to.'
    )
    assert receiver.tests == [] and connects == []


def test_delivery_to_loopback_is_refused_by_default(
    notifier, receiver, conf, connects
):
    conf('allowed_networks', [], 'outbound')
    _subscribe(receiver)
    _create_instance()

    assert notifier().drain() == 1

    assert receiver.received == [] and connects == []
    assert _row()['last_error'] == (
        f'POST {receiver.url} refused by policy: 127.0.0.1 resolves to '
        '127.0.0.1, in a network vnfm does not connect to ([outbound]).'
    )


def test_two_notifiers_never_send_a_row_twice(notifier, receiver):
    for _ in range(6):
        _subscribe(receiver)
    for i in range(5):
        _create_instance(f'vnf{i}')
    senders = [notifier('c1'), notifier('c2')]
    start = threading.Barrier(2)

    def run(sender: Notifier) -> None:
        start.wait()
        sender.drain()

    threads = [threading.Thread(target=run, args=(s,)) for s in senders]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    got = receiver.wait(30)
    pairs = [(r['body']['subscriptionId'], r['body']['id']) for r in got]
    assert len(pairs) == len(set(pairs)) == 30
    # Each subscription heard of the instances in the order they were made.
    for sub in registry.subscription_list():
        ids = [
            r['body']['vnfInstanceId']
            for r in got
            if r['body']['subscriptionId'] == sub['id']
        ]
        assert ids == [i['id'] for i in db.instance_list()]


def test_rows_of_a_dead_conductor_are_sent_after_its_lease(
    notifier, receiver, clock, conf
):
    conf('lease_seconds', 60, 'notifications')
    _subscribe(receiver)
    _create_instance()
    outbox.claim_due('dead', T0, _at(60), limit=10)  # then it died

    assert notifier('c2').run_once() == 0
    clock.now = _at(61)
    assert notifier('c2').run_once() == 1
    assert receiver.wait(1)


def test_purge_after_keep_seconds(notifier, receiver, clock, conf):
    conf('keep_seconds', 3600, 'notifications')
    _subscribe(receiver)
    _create_instance()
    sender = notifier()
    sender.run_once()

    assert sender.purge(_at(3599)) == 0
    assert sender.purge(_at(3601)) == 1
    assert outbox.notification_list() == []


def test_unreadable_credentials_are_retried(notifier, receiver):
    registry.subscription_create(
        {
            'callback_uri': receiver.url,
            'api_version': '2',
            'authentication': 'not-a-fernet-token',
        }
    )
    _create_instance()

    notifier().run_once()

    assert _row()['state'] == outbox.PENDING
    assert _row()['last_error'].startswith(
        'Stored credentials cannot be decrypted'
    )
    assert receiver.received == []


def test_a_bad_outbound_network_stops_the_notifier_at_start(db_url, conf):
    conf('allowed_networks', ['10.0.0.0/33'], 'outbound')

    with pytest.raises(exceptions.VnfmError) as e:
        Notifier('c1')

    assert "[outbound] allowed_networks: '10.0.0.0/33'" in e.value.detail


def test_package_notification_has_the_package_api_version(notifier, receiver):
    sub = _subscribe(
        receiver, api_version='1', interface=registry.VNFPKGM, verbosity=None
    )
    pkg = db.package_create(
        {
            'onboarding_state': 'ONBOARDED',
            'operational_state': 'ENABLED',
            'usage_state': 'NOT_IN_USE',
            'vnfd_id': 'vnfd-1',
        }
    )
    db.package_delete(
        pkg['id'],
        notifications=package_notifications.for_change(
            pkg, package_notifications.PKG_DELETE
        ),
    )

    assert notifier().drain() == 1

    [got] = receiver.wait(1)
    assert got['body']['subscriptionId'] == sub['id']
    assert got['body']['changeType'] == 'PKG_DELETE'
    # SOL005 v2.6.1's API version, not /vnflcm/v1's (also api_version 1).
    assert got['headers']['Version'] == '2.0.0'
    assert (
        notifier_module.test_notification_endpoint(
            receiver.url, None, '1', registry.VNFPKGM
        )
        is None
    )
    assert receiver.tests[0]['headers']['Version'] == '2.0.0'
