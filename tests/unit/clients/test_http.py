"""HTTP downloads: scheme check, size cap, the outbound policy on every
hop, errors without secrets and without the peer's answer."""

import pytest

from vnfm.clients import http
from vnfm.clients import outbound

from .connects import hosts
from .policies import DEFAULT
from .policies import LOOPBACK
from .policies import resolving_to


def _get(url: str, policy: outbound.Policy = LOOPBACK, **kw) -> bytes:
    return http.download(
        url,
        timeout=5,
        max_size=1000,
        allowed_schemes=['http'],
        policy=policy,
        **kw,
    )


def _error(url: str, **kw) -> http.DownloadError:
    with pytest.raises(http.DownloadError) as e:
        _get(url, **kw)
    return e.value


def test_scheme_outside_the_allowed_list_is_refused():
    with pytest.raises(http.DownloadError) as e:
        http.download(
            'ftp://example.com/x.zip',
            timeout=1,
            max_size=10,
            allowed_schemes=['http', 'https'],
            policy=DEFAULT,
        )
    assert e.value.detail == (
        "URI scheme 'ftp' is not allowed; use one of http, https."
    )


def test_connection_error_hides_credentials_and_cause():
    error = _error('http://user:pw@127.0.0.1:9/p.zip?sig=abc')

    assert error.detail == (
        'GET http://127.0.0.1:9/p.zip failed: unreachable (no connection, '
        'no answer within 5 s, or no TLS session).'
    )
    # The operator's log says what happened.
    assert error.reason == (
        'GET http://127.0.0.1:9/p.zip failed: '
        'connection refused (ConnectionError).'
    )
    assert 'pw' not in error.reason and 'sig' not in error.reason


@pytest.mark.parametrize('host', ['127.0.0.1', 'localhost', '[::1]'])
def test_default_policy_refuses_loopback_before_connecting(
    web, connects, host
):
    error = _error(f'http://{host}:{web.port}/p.zip?sig=abc', policy=DEFAULT)

    name = host.strip('[]')
    assert error.detail == (
        f'GET http://{host}:{web.port}/p.zip refused by policy: {name} '
        'resolves to an address vnfm does not connect to.'
    )
    assert connects == [] and web.seen == []


@pytest.mark.parametrize(
    'address', ['169.254.169.254', '10.0.0.1', '172.16.5.5', '192.168.0.1']
)
def test_default_policy_refuses_names_resolving_inside(connects, address):
    error = _error('http://packages.test/p.zip', policy=resolving_to(address))

    assert 'refused by policy' in error.detail
    assert address not in error.detail  # only in the operator's log
    assert address in error.reason
    assert connects == []


def test_redirect_into_a_denied_network_is_refused(web, connects):
    web.routes['/p.zip'] = (
        302,
        {'Location': f'http://127.0.0.2:{web.port}/inside'},
        b'',
    )
    policy = outbound.Policy(
        denied=DEFAULT.denied,
        allowed=outbound.networks(['127.0.0.1/32'], 'allowed'),
    )

    error = _error(f'{web.base}/p.zip', policy=policy)

    assert error.detail == (
        f'GET http://127.0.0.2:{web.port}/inside refused by policy: '
        '127.0.0.2 resolves to an address vnfm does not connect to.'
    )
    assert [path for path, _ in web.seen] == ['/p.zip']
    assert hosts(connects) == {'127.0.0.1'}


def test_redirect_to_the_metadata_address_is_refused(web, connects):
    web.routes['/p.zip'] = (
        301,
        {'Location': 'http://169.254.169.254/latest/meta-data/'},
        b'',
    )

    error = _error(f'{web.base}/p.zip')

    assert error.detail.startswith(
        'GET http://169.254.169.254/latest/meta-data/ refused by policy'
    )
    assert hosts(connects) == {'127.0.0.1'}


def test_an_answer_other_than_200_is_not_echoed(web):
    web.routes['/p.zip'] = (404, {}, b'<h1>internal admin page</h1>')

    error = _error(f'{web.base}/p.zip')

    assert error.detail == (
        f'GET {web.base}/p.zip did not answer with the package (200 OK).'
    )
    assert error.reason == f'GET {web.base}/p.zip answered HTTP 404.'


def test_redirects_are_followed_without_credentials_to_another_host(web):
    base, port, routes, seen = web
    routes['/a'] = (307, {'Location': '/b'}, b'')
    routes['/b'] = (302, {'Location': f'http://localhost:{port}/c'}, b'')
    routes['/c'] = (200, {}, b'package')
    assert _get(base + '/a', auth=('user', 'pw')) == b'package'
    paths = [path for path, _ in seen]
    assert paths == ['/a', '/b', '/c']
    auths = [auth for _, auth in seen]
    assert auths[0] and auths[1] and auths[2] is None


def test_redirect_loop_ends(web):
    base, _, routes, seen = web
    routes['/loop'] = (302, {'Location': '/loop'}, b'')
    error = _error(base + '/loop')
    assert error.detail == f'GET {base}/loop: more than 5 redirects.'


def test_redirect_to_another_scheme_is_refused(web):
    base, _, routes, seen = web
    routes['/p.zip'] = (302, {'Location': 'file:///etc/passwd'}, b'')
    error = _error(base + '/p.zip')
    assert error.detail.startswith("URI scheme 'file' is not allowed")
