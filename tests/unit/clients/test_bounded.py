"""Slow and lying peers: Keystone, Heat, the Kubernetes API, callback
receivers and download servers that accept, then trickle one byte at a
time for ever, or answer garbage. Each call ends within its deadline with
an error a user can act on (vnfm.clients.bounded puts the deadline on
every HTTP client vnfm uses)."""

from __future__ import annotations

import time

import pytest
import requests

from vnfm.clients import bounded
from vnfm.clients import deadlines
from vnfm.clients import openstack

from .peer_calls import CALLS
from .peer_calls import ERRORS
from .peer_calls import SLACK
from .peer_calls import TOTAL
from .peer_calls import Keystone
from .peers import Peer


@pytest.mark.parametrize('peer', sorted(set(CALLS) - {'ssh'}))
def test_a_lying_peer_ends_the_call_within_its_deadline(
    peer: str,
    lying_http: Peer,
    keystone: type[Keystone],
    short_deadlines: None,
) -> None:
    started = time.monotonic()
    with pytest.raises(ERRORS) as caught:
        CALLS[peer](lying_http, keystone)
    took = time.monotonic() - started
    assert took < TOTAL + SLACK, f'{peer} took {took:.1f} s'
    assert lying_http.accepted >= 1
    detail = getattr(caught.value, 'detail', str(caught.value))
    assert '127.0.0.1' in detail
    assert 'Internal' not in detail


def test_a_trickled_answer_says_it_came_too_slowly(
    trickling_http: Peer,
    keystone: type[Keystone],
    short_deadlines: None,
) -> None:
    with pytest.raises(openstack.OpenStackError) as caught:
        CALLS['keystone'](trickling_http, keystone)
    assert f'no complete answer within {TOTAL:g} s' in caught.value.detail


def test_a_trickled_body_is_cut_off_too(
    trickling_body: Peer,
    keystone: type[Keystone],
    short_deadlines: None,
) -> None:
    started = time.monotonic()
    with pytest.raises(deadlines.CallTimedOut) as caught:
        CALLS['kubernetes'](trickling_body, keystone)
    assert time.monotonic() - started < TOTAL + SLACK
    assert f'no complete answer within {TOTAL:g} s' in caught.value.detail


def test_a_streamed_request_inside_an_op_still_has_its_deadline(
    trickling_http: Peer,
) -> None:
    http = bounded.bound(requests.Session(), TOTAL, 'probe')
    started = time.monotonic()
    with (
        deadlines.for_op('op-stream'),  # no deadline of its own
        pytest.raises(deadlines.CallTimedOut) as caught,
    ):
        http.get(trickling_http.url, stream=True)
    assert time.monotonic() - started < TOTAL + SLACK
    assert caught.value.detail.startswith('probe: GET http://127.0.0.1:')
