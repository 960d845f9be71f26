"""[outbound] defaults: vnfm connects on a user's behalf to no loopback,
link-local (cloud metadata), private or unspecified address, IPv4 or IPv6,
unless the operator allows it."""

from __future__ import annotations

import ipaddress

import pytest

from vnfm.conf import CONF
from vnfm.conf import outbound

DENIED = [ipaddress.ip_network(n) for n in outbound.DEFAULT_DENIED]


@pytest.mark.parametrize(
    'address',
    [
        '127.0.0.1',
        '169.254.169.254',  # a cloud's metadata service
        '10.1.2.3',
        '172.20.0.1',
        '192.168.1.1',
        '100.64.0.1',
        '0.0.0.0',
        '::1',
        '::',
        'fe80::1',
        'fd00::1',
    ],
)
def test_addresses_denied_by_default(address):
    ip = ipaddress.ip_address(address)

    assert any(ip in network for network in DENIED)


@pytest.mark.parametrize('address', ['198.18.0.1', '8.8.8.8', '2001:db8::1'])
def test_public_addresses_are_not(address):
    ip = ipaddress.ip_address(address)

    assert not any(ip in network for network in DENIED)


def test_nothing_is_allowed_beyond_the_defaults():
    assert CONF.outbound.denied_networks == outbound.DEFAULT_DENIED
    assert CONF.outbound.allowed_networks == []
    assert CONF.outbound.vim_allowed_networks == []
