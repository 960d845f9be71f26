"""vimConnectionInfo → connection: TLS always verified, credentials, errors."""

import base64
import os

import pytest

from vnfm.clients.kubernetes import connection
from vnfm.clients.kubernetes import errors

from ..policies import DEFAULT as POLICY


def _vim(iface=None, access=None):
    return {
        'interfaceInfo': {
            'endpoint': 'https://k8s.example:6443',
            **(iface or {}),
        },
        'accessInfo': access if access is not None else {'bearer_token': 't'},
    }


def _connect(vim: dict) -> connection.Connection:
    return connection.Connection(vim, POLICY)


def test_tls_is_verified_with_the_given_ca():
    conn = _connect(_vim({'ssl_ca_cert': 'PEM'}))
    conf = conn.api_client.configuration
    assert conf.verify_ssl is True and conf.ca_cert_data == 'PEM'
    assert conn.api_client.default_headers['Authorization'] == 'Bearer t'
    conn.close()


def test_without_ca_the_system_trust_store_still_verifies():
    conn = _connect(_vim())
    assert conn.api_client.configuration.verify_ssl is True
    conn.close()


def test_only_an_explicit_flag_skips_verification():
    conn = _connect(_vim({'skip_tls_verify': 'true'}))
    assert conn.api_client.configuration.verify_ssl is False
    conn.close()
    with pytest.raises(errors.BadVimConnection, match='plain http'):
        _connect(
            {
                'interfaceInfo': {'endpoint': 'http://k:80'},
                'accessInfo': {'bearer_token': 't'},
            }
        )


def test_basic_auth_and_client_certificates():
    conn = _connect(_vim(access={'username': 'u', 'password': 'p'}))
    assert conn.api_client.default_headers['Authorization'] == (
        'Basic ' + base64.b64encode(b'u:p').decode()
    )
    conn.close()
    conn = _connect(_vim(access={'client_cert': 'C', 'client_key': 'K'}))
    conf = conn.api_client.configuration
    assert oct(os.stat(conf.key_file).st_mode & 0o777) == '0o600'
    conn.close()
    assert not os.path.exists(conf.key_file)


def test_missing_credentials_are_a_bad_request():
    with pytest.raises(errors.BadVimConnection, match='accessInfo'):
        _connect(_vim(access={}))


def test_requests_are_counted_and_get_a_timeout(monkeypatch):
    conn = _connect(_vim())
    seen = []
    monkeypatch.setattr(
        conn.api_client.rest_client,
        'request',
        lambda *a, **kw: seen.append(kw['_request_timeout']),
    )
    conn.api_client.call_api('GET', 'https://k8s.example:6443/version')
    assert conn.requests == 1 and seen == [(10.0, 30.0)]
    conn.close()


def test_http_errors_name_the_object_and_hint():
    err = errors.from_status(
        403, b'{"message": "pods is forbidden"}', 'create Pod ns/p'
    )
    assert isinstance(err, errors.KubernetesForbidden)
    assert err.detail.startswith(
        'Kubernetes API: create Pod ns/p: HTTP 403: pods is forbidden'
    )
    assert err.http_status == 403
    assert isinstance(
        errors.from_status(404, '', 'x'), errors.KubernetesNotFound
    )
    assert isinstance(
        errors.from_status(409, '', 'x'), errors.KubernetesConflict
    )
