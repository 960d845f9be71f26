"""/vnflcm/v2/subscriptions, and the test of the callbackUri before one is
created (SOL003 5.4.20.3.2): the fake RPC client runs the conductor's test
in-process against a real HTTP(S) receiver."""

from __future__ import annotations

import base64
import socket
from collections.abc import Iterator

import oslo_messaging
import pytest

from tests.unit.conductor.receiver import Receiver
from tests.unit.conductor.receiver import make_tls
from tests.unit.server.conftest import identity
from tests.unit.server.conftest import json_of
from tests.unit.server.conftest import make_package
from vnfm.clients import http
from vnfm.clients import outbound
from vnfm.conductor.notifier import Notifier
from vnfm.conf import CONF
from vnfm.db import registry
from vnfm_testbed import procs

PASSWORD = 'SECRET-PW'
BASIC = {
    'authType': ['BASIC'],
    'paramsBasic': {'userName': 'u', 'password': PASSWORD},
}
BASIC_HEADER = 'Basic ' + base64.b64encode(f'u:{PASSWORD}'.encode()).decode()


def _request(callback_uri: str, authentication: dict | None = None) -> dict:
    body = {
        'callbackUri': callback_uri,
        'filter': {
            'operationTypes': ['INSTANTIATE'],
            'notificationTypes': ['VnfLcmOperationOccurrenceNotification'],
        },
    }
    if authentication:
        body['authentication'] = authentication
    return body


def _refused(resp) -> str:
    """The detail of a 422, after checking nothing was created."""
    assert resp.status_int == 422, resp.body
    assert resp.content_type == 'application/problem+json'
    assert registry.subscription_list() == []
    return json_of(resp)['detail']


def test_create_show_list_delete(client, receiver):
    receiver.required_auth = BASIC_HEADER
    resp = client.lcm('POST', '/subscriptions', _request(receiver.url, BASIC))
    assert resp.status_int == 201, resp.body
    body = json_of(resp)
    assert body['callbackUri'] == receiver.url
    assert body['verbosity'] == 'FULL'
    assert 'authentication' not in body
    assert resp.headers['Location'] == body['_links']['self']['href']
    row = registry.subscription_get(body['id'])
    assert 'SECRET' not in str(row)
    assert json_of(client.lcm('GET', f'/subscriptions/{body["id"]}')) == body
    listed = json_of(
        client.lcm(
            'GET', f"/subscriptions?filter=(eq,callbackUri,'{receiver.url}')"
        )
    )
    assert [s['id'] for s in listed] == [body['id']]
    assert (
        client.lcm('DELETE', f'/subscriptions/{body["id"]}').status_int == 204
    )
    assert client.lcm('GET', f'/subscriptions/{body["id"]}').status_int == 404


def test_callback_tested_with_the_credentials_before_creation(
    client, receiver
):
    resp = client.lcm('POST', '/subscriptions', _request(receiver.url, BASIC))

    assert resp.status_int == 201
    [test] = receiver.tests
    assert test['path'] == '/callback'
    assert test['headers']['Authorization'] == BASIC_HEADER
    assert test['headers']['Version'] == '2.0.0'
    assert receiver.received == []  # a GET, not a notification


def test_oauth2_token_used_for_the_test(client, receiver, monkeypatch):
    monkeypatch.setattr(http, 'TOKENS', http.TokenCache())
    receiver.clients = {'nfvo': PASSWORD}
    resp = client.lcm(
        'POST',
        '/subscriptions',
        _request(
            receiver.url,
            {
                'authType': ['OAUTH2_CLIENT_CREDENTIALS'],
                'paramsOauth2ClientCredentials': {
                    'clientId': 'nfvo',
                    'clientPassword': PASSWORD,
                    'tokenEndpoint': receiver.token_url,
                },
            },
        ),
    )

    assert resp.status_int == 201, resp.body
    assert receiver.token_requests == 1
    assert receiver.tests[0]['headers']['Authorization'] == (
        'Bearer token-nfvo-1'
    )


def test_duplicate_is_303_to_existing_without_a_new_test(client, receiver):
    first = json_of(
        client.lcm('POST', '/subscriptions', _request(receiver.url, BASIC))
    )
    resp = client.lcm('POST', '/subscriptions', _request(receiver.url, BASIC))
    assert resp.status_int == 303
    assert resp.headers['Location'].endswith(first['id'])
    assert len(receiver.tests) == 1


def test_duplicate_is_201_when_duplicates_are_allowed(client, receiver):
    CONF.set_override('allow_duplicate_subscriptions', True, group='api')
    try:
        first = json_of(
            client.lcm('POST', '/subscriptions', _request(receiver.url))
        )
        resp = client.lcm('POST', '/subscriptions', _request(receiver.url))
    finally:
        CONF.clear_override('allow_duplicate_subscriptions', group='api')
    assert resp.status_int == 201, resp.body
    assert json_of(resp)['id'] != first['id']
    assert len(registry.subscription_list()) == 2


def test_bad_filter_value_is_400(client):
    resp = client.lcm(
        'POST',
        '/subscriptions',
        {'callbackUri': 'http://x', 'filter': {'operationTypes': ['NOPE']}},
    )
    assert resp.status_int == 400
    assert json_of(resp)['detail'].startswith('filter/operationTypes/0:')


@pytest.mark.parametrize('status', [404, 500, 200])
def test_endpoint_not_answering_204_is_refused(client, receiver, status):
    receiver.test_statuses = [status]
    # Credentials and query of the URI stay out of the detail.
    uri = receiver.url.replace('http://', 'http://user:pw@') + '?token=abc'

    detail = _refused(
        client.lcm('POST', '/subscriptions', _request(uri, BASIC))
    )

    assert f'GET {receiver.url} did not answer 204' in detail
    assert str(status) not in detail.replace(receiver.url, '')
    assert '204 No Content' in detail
    for secret in ('pw@', 'abc', PASSWORD):
        assert secret not in detail
    assert len(receiver.tests) == 1


def test_wrong_credentials_are_refused(client, receiver):
    receiver.required_auth = 'Basic c29tZW9uZTplbHNl'

    detail = _refused(
        client.lcm('POST', '/subscriptions', _request(receiver.url, BASIC))
    )

    assert f'GET {receiver.url} did not answer 204' in detail
    assert PASSWORD not in detail


def test_connection_refused_is_refused(client):
    uri = f'http://127.0.0.1:{procs.free_port()}/cb'

    detail = _refused(client.lcm('POST', '/subscriptions', _request(uri)))

    assert f'GET {uri} failed: unreachable' in detail


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections (the kernel's backlog) and never
    answers."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        sock.listen(8)
        yield sock.getsockname()[1]


def test_endpoint_not_answering_in_time_is_refused(client, conf, silent_port):
    conf('callback_test_timeout', 0.5, 'notifications')
    uri = f'http://127.0.0.1:{silent_port}/cb'

    detail = _refused(client.lcm('POST', '/subscriptions', _request(uri)))

    assert (
        f'GET {uri} failed: unreachable (no connection, no answer '
        'within 0.5 s, or no TLS session).' in detail
    )


def test_test_switched_off_creates_without_a_get(client, conf, receiver, rpc):
    conf('test_callback_uri', False, 'notifications')
    receiver.test_statuses = [500]

    resp = client.lcm('POST', '/subscriptions', _request(receiver.url))

    assert resp.status_int == 201
    assert receiver.tests == []
    assert rpc.calls == []


def test_no_conductor_answering_is_503(client, rpc, monkeypatch):
    def timeout(*_args):
        raise oslo_messaging.MessagingTimeout('no reply')

    monkeypatch.setattr(rpc, 'test_notification_endpoint', timeout)

    resp = client.lcm('POST', '/subscriptions', _request('http://x/cb'))

    assert resp.status_int == 503
    assert 'No vnfm-conductor answered' in json_of(resp)['detail']
    assert registry.subscription_list() == []


def test_an_older_conductor_is_503_not_500(client, rpc, monkeypatch):
    def older(*_args):
        raise oslo_messaging.RemoteError(
            'UnsupportedVersion', 'Endpoint does not support RPC version 1.1'
        )

    monkeypatch.setattr(rpc, 'test_notification_endpoint', older)

    resp = client.lcm('POST', '/subscriptions', _request('http://x/cb'))

    assert resp.status_int == 503
    assert 'older than this vnfm-api' in json_of(resp)['detail']
    assert registry.subscription_list() == []


def test_v1_endpoint_test_failure_is_refused(client, receiver):
    receiver.test_statuses = [404]

    detail = _refused(
        client.request(
            'POST',
            '/vnflcm/v1/subscriptions',
            {'callbackUri': receiver.url},
            headers={'Version': '1.3.0'},
        )
    )

    assert f'GET {receiver.url} did not answer 204' in detail
    assert receiver.tests[0]['headers']['Version'] == '1.3.0'


def test_basic_without_its_parameters_is_refused(client, receiver):
    detail = _refused(
        client.lcm(
            'POST',
            '/subscriptions',
            _request(receiver.url, {'authType': ['BASIC']}),
        )
    )

    assert detail == (
        'authentication cannot be used: BASIC needs paramsBasic.'
    )
    assert receiver.tests == []


def test_tls_cert_without_a_client_certificate_is_refused(client, receiver):
    detail = _refused(
        client.lcm(
            'POST',
            '/subscriptions',
            _request(receiver.url, {'authType': ['TLS_CERT']}),
        )
    )

    assert 'TLS_CERT needs a TLS client certificate' in detail
    assert '[notifications] client_cert_file' in detail
    assert receiver.tests == []


def test_tls_cert_or_basic_without_a_client_certificate_uses_basic(
    client, receiver
):
    receiver.required_auth = BASIC_HEADER
    resp = client.lcm(
        'POST',
        '/subscriptions',
        _request(receiver.url, dict(BASIC, authType=['TLS_CERT', 'BASIC'])),
    )

    assert resp.status_int == 201, resp.body
    assert receiver.tests[0]['client_cert'] is None


@pytest.fixture
def tls_receiver(tmp_path, conf) -> Iterator[Receiver]:
    """An HTTPS receiver of a test CA; vnfm trusts the CA and has a client
    certificate (CN vnfm) of it."""
    files = make_tls(tmp_path)
    conf('ca_file', files.ca, 'notifications')
    conf('client_cert_file', files.client_cert, 'notifications')
    conf('client_key_file', files.client_key, 'notifications')
    rcv = Receiver(tls=files).start()
    yield rcv
    rcv.stop()


def test_tls_cert_presented_on_the_test_and_on_delivery(client, tls_receiver):
    resp = client.lcm(
        'POST',
        '/subscriptions',
        {
            'callbackUri': tls_receiver.url,
            'authentication': {'authType': ['TLS_CERT']},
        },
    )
    assert resp.status_int == 201, resp.body
    assert [t['client_cert'] for t in tls_receiver.tests] == ['vnfm']

    make_package()
    assert (
        client.lcm('POST', '/vnf_instances', {'vnfdId': 'vnfd-1'}).status_int
        == 201
    )
    sender = Notifier('c1', http.TokenCache())
    try:
        assert sender.drain() == 1
    finally:
        sender.stop()

    [got] = tls_receiver.wait(1)
    assert got['client_cert'] == 'vnfm'
    assert got['body']['notificationType'] == (
        'VnfIdentifierCreationNotification'
    )
    assert 'Authorization' not in got['headers']


def test_no_client_certificate_without_tls_cert(client, tls_receiver):
    resp = client.lcm(
        'POST', '/subscriptions', {'callbackUri': tls_receiver.url}
    )

    assert resp.status_int == 201, resp.body
    assert [t['client_cert'] for t in tls_receiver.tests] == [None]


@pytest.mark.parametrize(
    'uri',
    [
        'http://127.0.0.1:{port}/cb',
        'http://localhost:{port}/cb',
        'http://169.254.169.254/latest/meta-data/',
        'http://10.0.0.1/cb',
        'http://[::1]:{port}/cb',
    ],
)
def test_callback_uri_inside_is_refused_by_default(
    client, conf, receiver, connects, uri
):
    conf('allowed_networks', [], 'outbound')
    uri = uri.format(port=receiver.port)

    detail = _refused(client.lcm('POST', '/subscriptions', _request(uri)))

    assert 'refused by policy' in detail
    assert receiver.tests == [] and connects == []
    assert json_of(client.lcm('GET', '/subscriptions')) == []


def test_token_endpoint_inside_is_refused_by_default(
    client, conf, receiver, monkeypatch, connects
):
    conf('allowed_networks', [], 'outbound')
    monkeypatch.setattr(
        outbound,
        'resolve',
        lambda host, port: (
            ['198.18.0.1'] if host == 'nfvo.test' else ['169.254.169.254']
        ),
    )

    detail = _refused(
        client.lcm(
            'POST',
            '/subscriptions',
            _request(
                'http://nfvo.test/cb',
                {
                    'authType': ['OAUTH2_CLIENT_CREDENTIALS'],
                    'paramsOauth2ClientCredentials': {
                        'clientId': 'nfvo',
                        'clientPassword': PASSWORD,
                        'tokenEndpoint': 'http://metadata.test/token',
                    },
                },
            ),
        )
    )

    assert (
        'POST http://metadata.test/token (token) refused by policy' in detail
    )
    assert '169.254' not in detail and PASSWORD not in detail
    assert connects == []


def test_subscriptions_belong_to_their_project(keystone_client):
    CONF.set_override('test_callback_uri', False, group='notifications')
    try:
        owner = identity('pa', 'member', 'reader')
        resp = keystone_client.lcm(
            'POST',
            '/subscriptions',
            _request('http://127.0.0.1:9/cb'),
            headers=owner,
        )
    finally:
        CONF.clear_override('test_callback_uri', group='notifications')
    assert resp.status_int == 201, resp.body
    sub_id = json_of(resp)['id']
    other = identity('pb', 'member', 'reader')
    path = f'/subscriptions/{sub_id}'

    listed = keystone_client.lcm('GET', '/subscriptions', headers=other)
    assert json_of(listed) == []
    assert keystone_client.lcm('GET', path, headers=other).status_int == 404
    assert keystone_client.lcm('DELETE', path, headers=other).status_int == 404
    reader = identity('pa', 'reader')
    assert keystone_client.lcm('GET', path, headers=reader).status_int == 200
    assert (
        keystone_client.lcm('DELETE', path, headers=reader).status_int == 403
    )
