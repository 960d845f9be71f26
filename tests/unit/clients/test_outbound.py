"""The outbound policy: which addresses are denied by default, allowed
networks first, and the connection pinned to the address that was checked.

No test sends anything to an address outside loopback: the refused ones
are refused before a socket connects (``connects`` shows it).
"""

from __future__ import annotations

import socket

import pytest
import requests

from vnfm.clients import outbound
from vnfm.common import exceptions
from vnfm.conf import outbound as outbound_opts
from vnfm_testbed.procs import free_port

from .connects import hosts
from .policies import DEFAULT
from .policies import resolving_to


@pytest.mark.parametrize(
    'address',
    [
        '127.0.0.1',
        '127.8.9.10',
        '0.0.0.0',
        '::',
        '::1',
        '169.254.169.254',
        '169.254.1.1',
        'fe80::1',
        'fe80::1%lo',
        '10.1.2.3',
        '172.16.0.1',
        '172.31.255.255',
        '192.168.1.1',
        '100.64.0.1',
        'fc00::1',
        'fd12::1',
        '::ffff:127.0.0.1',
        '::ffff:169.254.169.254',
        '::ffff:10.0.0.1',
    ],
)
def test_default_denies_local_and_private_addresses(address):
    assert not DEFAULT.permits(address)


@pytest.mark.parametrize(
    'address',
    [
        '198.18.0.1',
        '8.8.8.8',
        '172.32.0.1',
        '100.128.0.1',
        '2001:db8::1',
        '::ffff:198.18.0.1',
    ],
)
def test_default_permits_other_addresses(address):
    assert DEFAULT.permits(address)


def test_allowed_networks_take_precedence():
    policy = outbound.Policy(
        denied=DEFAULT.denied, allowed=outbound.networks(['10.1.0.0/16'], 'a')
    )

    assert policy.permits('10.1.2.3') and policy.permits('::ffff:10.1.2.3')
    assert not policy.permits('10.2.0.1')


def test_a_name_with_one_denied_address_is_refused():
    policy = outbound.Policy(
        denied=DEFAULT.denied,
        resolver=lambda host, port: ['198.18.0.1', '169.254.169.254'],
    )

    with pytest.raises(outbound.Refused) as e:
        policy.addresses('metadata.test', 80)
    assert (e.value.host, e.value.address) == (
        'metadata.test',
        '169.254.169.254',
    )


def test_a_bad_cidr_names_the_option():
    with pytest.raises(exceptions.VnfmError) as e:
        outbound.networks(['10.0.0.0/33'], '[outbound] denied_networks')
    assert e.value.detail == (
        "[outbound] denied_networks: '10.0.0.0/33' is "
        'not a CIDR; the operator must correct it.'
    )


def test_configured_reads_the_options(conf):
    conf('allowed_networks', ['127.0.0.1/32'], 'outbound')

    policy = outbound.configured()

    assert policy.permits('127.0.0.1') and not policy.permits('127.0.0.2')
    assert not policy.permits('169.254.169.254')


def test_the_deprecated_option_still_sets_the_deny_list(tmp_path):
    from oslo_config import cfg

    path = tmp_path / 'old.conf'
    path.write_text(
        '[vnf_package]\nupload_from_uri_blocked_networks = 10.0.0.0/8\n'
    )
    conf = cfg.ConfigOpts()
    outbound_opts.register_opts(conf)
    conf(['--config-file', str(path)])
    assert conf.outbound.denied_networks == ['10.0.0.0/8']


@pytest.mark.parametrize(
    'url',
    [
        'http://localhost:{port}/',
        'http://127.0.0.1:{port}/',
        'http://2130706433:{port}/',
        'http://[::1]:{port}/',
        'http://[::ffff:127.0.0.1]:{port}/',
        'http://0.0.0.0:{port}/',
    ],
)
def test_session_refuses_loopback_before_connecting(web, connects, url):
    with outbound.session(DEFAULT) as http, pytest.raises(outbound.Refused):
        http.get(url.format(port=web.port), timeout=5)

    assert connects == [] and web.seen == []


@pytest.mark.parametrize(
    'name, address',
    [
        ('metadata.test', '169.254.169.254'),
        ('internal.test', '10.1.2.3'),
        ('nfvo.test', '192.168.0.10'),
        ('v6.test', 'fd00::10'),
    ],
)
def test_session_refuses_names_resolving_inside(connects, name, address):
    policy = resolving_to(address)
    for scheme in ('http', 'https'):
        with (
            outbound.session(policy) as http,
            pytest.raises(outbound.Refused) as e,
        ):
            http.get(f'{scheme}://{name}/latest/meta-data/', timeout=5)
        assert e.value.address == address

    assert connects == []


def test_connection_goes_to_the_checked_address(web, connects):
    """DNS rebinding: a second lookup would answer a denied address; the
    connection uses the one the policy checked (the name itself is not in
    any DNS, so urllib3 cannot have resolved it again)."""
    answers = iter([['127.0.0.1'], ['127.0.0.2']])
    lookups = []

    def resolver(host: str, port: int) -> list[str]:
        lookups.append(host)
        return next(answers)

    policy = outbound.Policy(
        denied=DEFAULT.denied,
        allowed=outbound.networks(['127.0.0.1/32'], 'a'),
        resolver=resolver,
    )
    web.routes['/x'] = (200, {}, b'ok')

    with outbound.session(policy) as http:
        resp = http.get(f'http://rebind.test:{web.port}/x', timeout=5)

    assert resp.content == b'ok'
    assert lookups == ['rebind.test']
    assert hosts(connects) == {'127.0.0.1'}


def test_the_next_address_is_tried_when_one_does_not_connect(web, connects):
    # Nothing listens on 127.0.0.3: refused, then the next address.
    policy = outbound.Policy(
        resolver=lambda host, port: ['127.0.0.3', '127.0.0.1']
    )
    web.routes['/x'] = (200, {}, b'ok')

    with outbound.session(policy) as http:
        assert (
            http.get(f'http://two.test:{web.port}/x', timeout=5).content
            == b'ok'
        )

    assert [a[0] for a in connects] == ['127.0.0.3', '127.0.0.1']


def test_a_name_that_does_not_resolve_is_a_connection_error(connects):
    def resolver(host: str, port: int) -> list[str]:
        raise socket.gaierror(socket.EAI_NONAME, 'Name or service not known')

    with (
        outbound.session(outbound.Policy(resolver=resolver)) as http,
        pytest.raises(requests.ConnectionError),
    ):
        http.get('http://nowhere.test/', timeout=5)
    assert connects == []


def test_environment_proxies_are_not_used(web, monkeypatch, connects):
    # Through this "proxy" (nothing listens) the request would fail.
    monkeypatch.setenv('http_proxy', f'http://127.0.0.1:{free_port()}')
    web.routes['/x'] = (200, {}, b'ok')
    policy = outbound.Policy(resolver=lambda host, port: ['127.0.0.1'])

    with outbound.session(policy) as http:
        assert (
            http.get(f'http://direct.test:{web.port}/x', timeout=5).content
            == b'ok'
        )
    assert hosts(connects) == {'127.0.0.1'}


def test_the_tests_cannot_connect_outside_loopback(connects):
    """The guard the refusal tests rely on (198.18/15: the test range)."""
    from .connects import OutsideLoopback

    with socket.socket() as sock, pytest.raises(OutsideLoopback):
        sock.connect(('198.18.0.1', 9))
    assert connects == [('198.18.0.1', 9)]
