"""Notification POSTs: only http(s), errors without credentials, redirects
not followed (a 3xx is a failed delivery)."""

import pytest

from tests.unit.conductor.receiver import Receiver
from vnfm.clients import http

from .policies import DEFAULT
from .policies import LOOPBACK


def _post(url: str, **kw) -> None:
    kw.setdefault('policy', LOOPBACK)
    http.post_notification(
        url,
        {'id': 'n1'},
        version='2.0.0',
        authentication=kw.pop('authentication', None),
        timeout=2,
        tokens=http.TokenCache(),
        **kw,
    )


def test_other_schemes_are_refused_for_good():
    with pytest.raises(http.DeliveryError) as e:
        _post('file:///etc/passwd')
    assert e.value.permanent
    assert "'file' cannot be used" in e.value.detail


def test_connection_error_hides_credentials():
    with pytest.raises(http.DeliveryError) as e:
        _post('http://user:pw@127.0.0.1:9/cb?token=abc')
    assert not e.value.permanent
    assert e.value.detail == (
        'POST http://127.0.0.1:9/cb failed: unreachable (no connection, no '
        'answer, or no TLS session).'
    )
    assert e.value.reason == (
        'POST http://127.0.0.1:9/cb failed: connection refused '
        '(ConnectionError).'
    )


def test_redirect_is_a_failure():
    rcv = Receiver().start()
    rcv.statuses = [307]
    try:
        with pytest.raises(http.DeliveryError) as e:
            _post(rcv.url)
    finally:
        rcv.stop()
    assert e.value.reason.endswith('answered HTTP 307.')


def test_received_body_and_headers():
    rcv = Receiver().start()
    try:
        _post(rcv.url)
        [got] = rcv.wait(1)
    finally:
        rcv.stop()
    assert got['body'] == {'id': 'n1'}
    assert got['headers']['Version'] == '2.0.0'
    assert 'Authorization' not in got['headers']


def test_default_policy_refuses_a_loopback_callback(receiver, connects):
    with pytest.raises(http.DeliveryError) as e:
        _post(receiver.url, policy=DEFAULT)

    assert e.value.detail == (
        f'POST {receiver.url} refused by policy: 127.0.0.1 resolves to an '
        'address vnfm does not connect to.'
    )
    assert not e.value.permanent  # the operator may open it
    assert receiver.received == [] and connects == []
