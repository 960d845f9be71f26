"""HTTP downloads: scheme check, size cap, errors without secrets."""

import pytest

from vnfm.clients import http


def test_scheme_outside_the_allowed_list_is_refused():
    with pytest.raises(http.DownloadError) as e:
        http.download('ftp://example.com/x.zip', timeout=1, max_size=10,
                      allowed_schemes=['http', 'https'])
    assert e.value.detail == ("URI scheme 'ftp' is not allowed; use one of "
                              'http, https.')


def test_connection_error_hides_credentials():
    with pytest.raises(http.DownloadError) as e:
        http.download('http://user:pw@127.0.0.1:9/p.zip?sig=abc', timeout=2,
                      max_size=10, allowed_schemes=['http'])
    assert 'pw' not in e.value.detail and 'sig' not in e.value.detail
    assert e.value.detail == ('GET http://127.0.0.1:9/p.zip failed: '
                              'connection refused (ConnectionError).')


def _get(url: str, **kw) -> bytes:
    return http.download(url, timeout=5, max_size=1000,
                         allowed_schemes=['http'], **kw)


def test_blocked_network_is_refused_before_connecting(web):
    base, _, routes, seen = web
    with pytest.raises(http.DownloadError) as e:
        _get(base + '/p.zip?sig=abc', blocked_networks=['127.0.0.0/8'])
    assert e.value.detail == (
        f'GET {base}/p.zip refused: 127.0.0.1 is 127.0.0.1, in 127.0.0.0/8, '
        'a network vnfm does not fetch from. Publish the package at another '
        'address.')
    assert seen == []


def test_redirect_into_a_blocked_network_is_refused(web):
    base, port, routes, seen = web
    routes['/p.zip'] = (
        302, {'Location': f'http://127.0.0.2:{port}/inside'}, b'')
    with pytest.raises(http.DownloadError) as e:
        _get(base + '/p.zip', blocked_networks=['127.0.0.2/32'])
    assert e.value.detail.startswith(
        f'GET http://127.0.0.2:{port}/inside refused: 127.0.0.2 is '
        '127.0.0.2, in 127.0.0.2/32')
    assert [path for path, _ in seen] == ['/p.zip']


def test_redirects_are_followed_without_credentials_to_another_host(web):
    base, port, routes, seen = web
    routes['/a'] = (307, {'Location': '/b'}, b'')
    routes['/b'] = (
        302, {'Location': f'http://localhost:{port}/c'}, b'')
    routes['/c'] = (200, {}, b'package')
    assert _get(base + '/a', auth=('user', 'pw')) == b'package'
    paths = [path for path, _ in seen]
    assert paths == ['/a', '/b', '/c']
    auths = [auth for _, auth in seen]
    assert auths[0] and auths[1] and auths[2] is None


def test_redirect_loop_ends(web):
    base, _, routes, seen = web
    routes['/loop'] = (302, {'Location': '/loop'}, b'')
    with pytest.raises(http.DownloadError) as e:
        _get(base + '/loop')
    assert e.value.detail == f'GET {base}/loop: more than 5 redirects.'


def test_redirect_to_another_scheme_is_refused(web):
    base, _, routes, seen = web
    routes['/p.zip'] = (302, {'Location': 'file:///etc/passwd'}, b'')
    with pytest.raises(http.DownloadError) as e:
        _get(base + '/p.zip')
    assert e.value.detail.startswith("URI scheme 'file' is not allowed")


def test_a_bad_blocked_network_in_the_configuration_is_named():
    with pytest.raises(http.DownloadError) as e:
        _get('http://127.0.0.1:9/p.zip', blocked_networks=['10.0.0.0/33'])
    assert "'10.0.0.0/33'" in e.value.detail
