"""What /v1.0/vims accepts for a VIM beyond its JSON Schema: a usable
URL, the credentials its type needs, PEM that parses, and no credential
in ``extra`` (stored in clear)."""

from __future__ import annotations

import pytest

from vnfm.common import exceptions
from vnfm.common import schemacheck
from vnfm.objects import vim as vim_obj
from vnfm.server.schemas import vims


def k8s(**values: object) -> dict:
    vim = {
        'name': 'edge',
        'type': 'kubernetes',
        'auth_url': 'https://198.18.0.10:6443',
        'auth_cred': {'bearer_token': 'tok'},
    }
    vim.update(values)
    return vim


def openstack(**values: object) -> dict:
    vim = {
        'name': 'dc',
        'type': 'openstack',
        'auth_url': 'https://198.18.0.20/identity/v3',
        'auth_cred': {'username': 'admin', 'password': 'pw'},
        'vim_project': {'name': 'admin'},
    }
    vim.update(values)
    return vim


def refused(vim: dict) -> str:
    with pytest.raises(exceptions.BadRequest) as e:
        vims.validate_vim(vim)
    return str(e.value)


@pytest.mark.parametrize(
    'vim',
    [
        k8s(),
        k8s(auth_cred={'username': 'u', 'password': 'p'}),
        k8s(
            auth_cred={
                'oidc_token_url': 'https://198.18.0.3/token',
                'username': 'u',
                'password': 'p',
                'client_id': 'c',
            }
        ),
        k8s(
            auth_url='http://198.18.0.10:8080',
            extra={vim_obj.SKIP_TLS_VERIFY: 'true'},
        ),
        openstack(),
    ],
)
def test_registrable_vims(vim):
    vims.validate_vim(vim)
    assert schemacheck.first_error(vims.CREATE, {'vim': vim}) is None


@pytest.mark.parametrize(
    'vim,detail',
    [
        (
            k8s(auth_url='ftp://198.18.0.10'),
            "auth_url 'ftp://198.18.0.10' is not an http(s) URL with a host.",
        ),
        (
            k8s(auth_url='http://198.18.0.10:8080'),
            'auth_url http://198.18.0.10:8080 is plain http: a Kubernetes '
            f'VIM needs https, or extra.{vim_obj.SKIP_TLS_VERIFY}: true to '
            'allow it.',
        ),
        (
            k8s(auth_cred={'username': 'u'}),
            'auth_cred of a Kubernetes VIM needs bearer_token, username and '
            'password, or client_cert and client_key.',
        ),
        (
            k8s(auth_cred={'oidc_token_url': 'https://198.18.0.3/t'}),
            'auth_cred with oidc_token_url needs username, password, '
            'client_id.',
        ),
        (
            k8s(auth_cred={'bearer_token': 't', 'ssl_ca_cert': 'not pem'}),
            'ssl_ca_cert is not a valid PEM certificate.',
        ),
        (
            k8s(auth_cred={'bearer_token': 't', 'client_key': 'not pem'}),
            'client_key is not a valid unencrypted PEM private key.',
        ),
        (
            k8s(extra={'nodes': [{'ssh': {'private_key': 'KEY'}}]}),
            'extra/nodes/ssh/private_key: extra is stored in clear and must '
            'not hold credentials; put them in auth_cred.',
        ),
        (
            openstack(auth_cred={'username': 'admin'}),
            'auth_cred of an OpenStack VIM needs username and password.',
        ),
        (
            openstack(vim_project={}),
            'vim_project/name (the OpenStack project) is required.',
        ),
    ],
)
def test_unregistrable_vims_say_why(vim, detail):
    assert refused(vim) == detail


def test_the_schema_needs_name_url_and_credentials_to_create():
    assert schemacheck.first_error(vims.CREATE, {'vim': {'name': 'x'}}) == (
        'vim/auth_url: is a required property'
    )
    assert schemacheck.first_error(vims.CREATE, {}) == (
        'vim: is a required property'
    )


def test_an_update_changes_at_least_one_attribute():
    assert schemacheck.first_error(vims.UPDATE, {'vim': {}}) is not None
    assert schemacheck.first_error(vims.UPDATE, {'vim': {'name': 'y'}}) is None


def test_only_the_two_vim_types():
    error = schemacheck.first_error(vims.CREATE, {'vim': k8s(type='vmware')})

    assert error is not None and error.startswith('vim/type: ')
