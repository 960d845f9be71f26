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
    assert e.value.detail.startswith('GET http://127.0.0.1:9/p.zip failed')
