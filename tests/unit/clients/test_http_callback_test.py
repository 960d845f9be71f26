"""The test of a callbackUri (GET, 204 expected) and the TLS client
certificate of authType TLS_CERT, against real HTTP(S) receivers; the
outbound policy on the callbackUri and the tokenEndpoint, and failures
that do not tell closed, silent and answering ports apart."""

from __future__ import annotations

import base64
import re
import socket
import time
from collections.abc import Iterator

import pytest

from tests.unit.conductor.receiver import Receiver
from tests.unit.conductor.receiver import TlsFiles
from tests.unit.conductor.receiver import make_tls
from vnfm.clients import http
from vnfm_testbed import procs

from .policies import DEFAULT
from .policies import LOOPBACK
from .policies import resolving_to

BASIC = {
    'authType': ['BASIC'],
    'paramsBasic': {'userName': 'u', 'password': 'pw'},
}
TLS_CERT = {'authType': ['TLS_CERT']}


def _test(url: str, **kw) -> None:
    kw.setdefault('timeout', 10)
    kw.setdefault('policy', LOOPBACK)
    http.test_notification_endpoint(
        url,
        version='2.0.0',
        authentication=kw.pop('authentication', None),
        tokens=http.TokenCache(),
        **kw,
    )


def _failure(url: str, **kw) -> http.DeliveryError:
    with pytest.raises(http.DeliveryError) as e:
        _test(url, **kw)
    return e.value


@pytest.fixture
def tls(tmp_path) -> TlsFiles:
    return make_tls(tmp_path)


@pytest.fixture
def tls_receiver(tls) -> Iterator[Receiver]:
    rcv = Receiver(tls=tls).start()
    yield rcv
    rcv.stop()


@pytest.fixture
def silent_port() -> Iterator[int]:
    """Accepts connections (the kernel's backlog), never answers."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        sock.listen(8)
        yield sock.getsockname()[1]


def test_204_passes_and_carries_the_credentials(receiver):
    _test(receiver.url, authentication=BASIC)

    [got] = receiver.tests
    assert (
        got['headers']['Authorization']
        == 'Basic ' + base64.b64encode(b'u:pw').decode()
    )
    assert got['headers']['Version'] == '2.0.0'


@pytest.mark.parametrize('status', [200, 307, 404, 500])
def test_other_statuses_fail(receiver, status):
    receiver.test_statuses = [status]

    error = _failure(receiver.url)

    assert error.detail == (
        f'GET {receiver.url} did not answer 204 No Content, as a '
        'notification endpoint must.'
    )
    assert error.reason == f'GET {receiver.url} answered HTTP {status}.'


def test_connection_refused_hides_credentials_and_query():
    port = procs.free_port()

    error = _failure(f'http://user:pw@127.0.0.1:{port}/cb?token=abc')

    assert error.detail == (
        f'GET http://127.0.0.1:{port}/cb failed: '
        'unreachable (no connection, no answer within '
        '10 s, or no TLS session).'
    )
    assert error.reason == (
        f'GET http://127.0.0.1:{port}/cb failed: '
        'connection refused (ConnectionError).'
    )


def test_silent_endpoint_fails_within_the_deadline(silent_port):
    started = time.monotonic()

    error = _failure(f'http://127.0.0.1:{silent_port}/cb', timeout=0.5)

    assert error.detail.endswith(
        'failed: unreachable (no connection, no '
        'answer within 0.5 s, or no TLS session).'
    )
    # The read timeout or the total deadline, whichever fires first.
    assert re.search(
        r'failed: no (complete )?answer within 0\.5 s '
        r'\((ReadTimeout|CallTimedOut)\)\.$',
        error.reason,
    )
    assert time.monotonic() - started < 5


def test_the_deadline_includes_the_token_request(silent_port):
    started = time.monotonic()

    error = _failure(
        'http://127.0.0.1:9/cb',
        timeout=0.5,
        authentication={
            'authType': ['OAUTH2_CLIENT_CREDENTIALS'],
            'paramsOauth2ClientCredentials': {
                'clientId': 'c',
                'clientPassword': 'secret',
                'tokenEndpoint': f'http://127.0.0.1:{silent_port}/token',
            },
        },
    )

    assert error.detail == (
        f'POST http://127.0.0.1:{silent_port}/token '
        '(token) failed: unreachable (no connection, no '
        'answer, or no TLS session).'
    )
    # The read timeout or the total deadline, whichever fires first.
    assert re.fullmatch(
        rf'POST http://127\.0\.0\.1:{silent_port}/token \(token\) failed: '
        r'no (complete )?answer in time \((ReadTimeout|CallTimedOut)\)\.',
        error.reason,
    )
    assert time.monotonic() - started < 5


def test_other_schemes_fail_without_a_request():
    assert _failure('ftp://127.0.0.1/cb').permanent


def test_untrusted_server_certificate_fails(tls_receiver):
    error = _failure(tls_receiver.url)

    assert error.detail.startswith(
        f'GET {tls_receiver.url} failed: unreachable'
    )
    assert error.reason.startswith(f'GET {tls_receiver.url} failed: TLS: ')
    assert 'certificate' in error.reason


def test_tls_cert_presents_the_client_certificate(tls, tls_receiver):
    cert = (tls.client_cert, tls.client_key)

    _test(tls_receiver.url, authentication=TLS_CERT, verify=tls.ca, cert=cert)
    http.post_notification(
        tls_receiver.url,
        {'id': 'n1'},
        version='2.0.0',
        authentication=TLS_CERT,
        timeout=10,
        policy=LOOPBACK,
        verify=tls.ca,
        cert=cert,
        tokens=http.TokenCache(),
    )

    assert [t['client_cert'] for t in tls_receiver.tests] == ['vnfm']
    [got] = tls_receiver.wait(1)
    assert got['client_cert'] == 'vnfm'
    assert 'Authorization' not in got['headers']


def test_client_certificate_only_for_tls_cert(tls, tls_receiver):
    _test(
        tls_receiver.url,
        authentication=BASIC,
        verify=tls.ca,
        cert=(tls.client_cert, tls.client_key),
    )

    [got] = tls_receiver.tests
    assert got['client_cert'] is None
    assert got['headers']['Authorization'].startswith('Basic ')


def test_tls_cert_and_basic_send_both(tls, tls_receiver):
    _test(
        tls_receiver.url,
        verify=tls.ca,
        authentication=dict(BASIC, authType=['TLS_CERT', 'BASIC']),
        cert=(tls.client_cert, tls.client_key),
    )

    [got] = tls_receiver.tests
    assert got['client_cert'] == 'vnfm'
    assert got['headers']['Authorization'].startswith('Basic ')


def test_tls_cert_without_a_configured_certificate(receiver):
    with pytest.raises(http.DeliveryError) as e:
        http.post_notification(
            receiver.url,
            {},
            version='2.0.0',
            authentication=TLS_CERT,
            timeout=10,
            policy=LOOPBACK,
            tokens=http.TokenCache(),
        )

    # The operator may configure one: retrying can help.
    assert not e.value.permanent
    assert '[notifications] client_cert_file' in e.value.detail
    assert receiver.received == []


def test_unreadable_certificate_file_names_the_options(tls, tls_receiver):
    error = _failure(
        tls_receiver.url,
        authentication=TLS_CERT,
        verify=tls.ca,
        cert=('/nonexistent.pem', tls.client_key),
    )

    assert error.detail == (
        'vnfm cannot use its TLS files; the operator must correct '
        '[notifications] ca_file, client_cert_file or client_key_file.'
    )
    assert '/nonexistent.pem' in error.reason
    assert tls_receiver.tests == []


@pytest.mark.parametrize('host', ['127.0.0.1', 'localhost'])
def test_default_policy_refuses_a_loopback_callback(receiver, connects, host):
    url = receiver.url.replace('127.0.0.1', host)

    error = _failure(url, policy=DEFAULT, authentication=BASIC)

    assert error.detail == (
        f'GET {url} refused by policy: {host} resolves '
        'to an address vnfm does not connect to.'
    )
    assert receiver.tests == [] and connects == []


@pytest.mark.parametrize('address', ['169.254.169.254', '10.0.0.7', 'fd00::7'])
def test_default_policy_refuses_callbacks_resolving_inside(connects, address):
    error = _failure('http://nfvo.test/cb', policy=resolving_to(address))

    assert 'refused by policy' in error.detail and address in error.reason
    assert address not in error.detail
    assert connects == []


def test_default_policy_refuses_a_loopback_token_endpoint(receiver, connects):
    """The callbackUri may be allowed; the tokenEndpoint is checked too."""
    policy = type(DEFAULT)(
        denied=DEFAULT.denied,
        resolver=lambda h, p: (
            ['198.18.0.1'] if h == 'nfvo.test' else ['127.0.0.1']
        ),
    )

    error = _failure(
        'http://nfvo.test/cb',
        policy=policy,
        authentication={
            'authType': ['OAUTH2_CLIENT_CREDENTIALS'],
            'paramsOauth2ClientCredentials': {
                'clientId': 'c',
                'clientPassword': 'secret',
                'tokenEndpoint': receiver.token_url,
            },
        },
    )

    assert error.detail == (
        f'POST {receiver.token_url} (token) refused by policy: 127.0.0.1 '
        'resolves to an address vnfm does not connect to.'
    )
    assert connects == [] and receiver.token_requests == 0


def test_failures_do_not_tell_ports_apart(
    receiver, silent_port, tls, tls_receiver
):
    """Closed, silent and TLS ports read the same to the subscriber."""
    closed = procs.free_port()
    urls = [
        f'http://127.0.0.1:{closed}/cb',
        f'http://127.0.0.1:{silent_port}/cb',
        tls_receiver.url,
    ]

    details = {
        _failure(url, timeout=0.5).detail.replace(url, 'URL') for url in urls
    }

    assert details == {
        'GET URL failed: unreachable (no connection, no '
        'answer within 0.5 s, or no TLS session).'
    }
