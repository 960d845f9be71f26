"""vnfm.objects.vim: the masked Tacker view of a VIM and the
VimConnectionInfo drivers get from it."""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator
from typing import Any

import pytest

from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.conf import CONF
from vnfm.db import models
from vnfm.db import registry
from vnfm.db import session
from vnfm.objects import vim

TOKEN = 'k8s-bearer-t0ken-never-shown'
PASSWORD = 'os-passw0rd-never-shown'
CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'


@pytest.fixture
def database(tmp_path: Any) -> Iterator[None]:
    """An empty SQLite database; a key file in a fresh state_path."""
    CONF.set_override(
        'connection', f'sqlite:///{tmp_path}/vnfm.sqlite', group='database'
    )
    CONF.set_override('state_path', str(tmp_path))
    session.set_engine(None)
    models.Base.metadata.create_all(session.get_engine())
    yield
    session.set_engine(None)
    CONF.clear_override('connection', group='database')
    CONF.clear_override('state_path')


def _k8s_row(**values: Any) -> dict:
    return dict(
        {
            'id': 'vim-k8s',
            'name': 'k8s',
            'type': 'kubernetes',
            'description': None,
            'project_id': 'p1',
            'is_default': False,
            'status': 'ACTIVE',
            'auth_url': 'https://10.0.0.1:6443',
            'vim_project': {'name': 'default'},
            'auth_cred': crypto.encrypt(
                {'bearer_token': TOKEN, 'ssl_ca_cert': CA}
            ),
            'extra': None,
            'created_at': datetime.datetime(2024, 1, 2, 3, 4, 5),
            'updated_at': None,
        },
        **values,
    )


def _os_row(**values: Any) -> dict:
    return _k8s_row(
        **dict(
            {
                'id': 'vim-os',
                'type': 'openstack',
                'auth_url': 'http://keystone/identity/v3',
                'vim_project': {
                    'name': 'nfv',
                    'project_domain_name': 'Default',
                },
                'auth_cred': crypto.encrypt(
                    {
                        'username': 'nfv_user',
                        'password': PASSWORD,
                        'user_domain_name': 'Default',
                        'cert_verify': 'False',
                    }
                ),
                'extra': {'region': 'RegionOne'},
            },
            **values,
        )
    )


def test_tacker_view_masks_secrets(database):
    view = vim.to_tacker(_k8s_row())

    assert TOKEN not in json.dumps(view)
    assert view['auth_cred'] == {'bearer_token': '***', 'ssl_ca_cert': CA}
    assert view['tenant_id'] == 'p1'
    assert view['description'] == ''
    assert view['created_at'] == '2024-01-02T03:04:05.000000Z'
    assert view['updated_at'] is None
    os_view = vim.to_tacker(_os_row())
    assert PASSWORD not in json.dumps(os_view)
    assert os_view['auth_cred'] == {
        'username': 'nfv_user',
        'password': '***',
        'user_domain_name': 'Default',
        'cert_verify': 'False',
    }


def test_kubernetes_vim_connection_info(database):
    info = vim.to_vim_connection_info(_k8s_row())

    assert info == {
        'vimId': 'vim-k8s',
        'vimType': 'ETSINFV.KUBERNETES.V_1',
        'interfaceInfo': {
            'endpoint': 'https://10.0.0.1:6443',
            'ssl_ca_cert': CA,
        },
        'accessInfo': {'bearer_token': TOKEN},
    }


@pytest.mark.parametrize(
    'cred, access',
    [
        (
            {'username': 'u', 'password': 'p'},
            {'username': 'u', 'password': 'p'},
        ),
        (
            {'client_cert': 'C', 'client_key': 'K', 'username': 'u'},
            {'client_cert': 'C', 'client_key': 'K'},
        ),
        (
            {
                'oidc_token_url': 'https://idp',
                'username': 'u',
                'password': 'p',
                'client_id': 'vnfm',
            },
            {
                'oidc_token_url': 'https://idp',
                'username': 'u',
                'password': 'p',
                'client_id': 'vnfm',
            },
        ),
    ],
)
def test_kubernetes_access_info_per_method(database, cred, access):
    row = _k8s_row(auth_cred=crypto.encrypt(cred))

    assert vim.to_vim_connection_info(row)['accessInfo'] == access


def test_openstack_vim_connection_info(database):
    info = vim.to_vim_connection_info(_os_row())

    assert info['vimType'] == 'ETSINFV.OPENSTACK_KEYSTONE.V_3'
    assert info['interfaceInfo'] == {
        'endpoint': 'http://keystone/identity/v3',
        'skipCertificateVerification': True,
        'skipCertificateHostnameCheck': True,
    }
    assert info['accessInfo'] == {
        'username': 'nfv_user',
        'password': PASSWORD,
        'project': 'nfv',
        'projectDomain': 'Default',
        'userDomain': 'Default',
        'region': 'RegionOne',
    }


def test_resolve_completes_entries_naming_a_registered_vim(database):
    row = registry.vim_create(
        {k: v for k, v in _k8s_row().items() if k not in ('id', 'created_at')}
    )
    stored = crypto.seal_vim_connection_info(
        {
            'reg': {'vimId': row['id'], 'vimType': 'ETSINFV.KUBERNETES.V_1'},
            'inline': {
                'vimType': 'ETSINFV.KUBERNETES.V_1',
                'interfaceInfo': {'endpoint': 'https://k'},
                'accessInfo': {'bearer_token': 'inline-token'},
            },
        }
    )

    plain = vim.resolve_vim_connection_info(stored, 'p1')

    assert plain['reg']['accessInfo'] == {'bearer_token': TOKEN}
    assert plain['reg']['interfaceInfo']['endpoint'] == (
        'https://10.0.0.1:6443'
    )
    assert plain['inline']['accessInfo'] == {'bearer_token': 'inline-token'}


@pytest.mark.parametrize(
    'given,sol',
    [
        ('kubernetes', 'ETSINFV.KUBERNETES.V_1'),
        ('openstack', 'ETSINFV.OPENSTACK_KEYSTONE.V_3'),
        ('ETSINFV.KUBERNETES.V_1', 'ETSINFV.KUBERNETES.V_1'),
        ('VNFM.NOOP.V_1', 'VNFM.NOOP.V_1'),
        (None, None),
        (7, 7),
    ],
)
def test_tacker_v1_vim_type_names(given, sol):
    assert vim.sol_vim_type(given) == sol


def test_resolve_gives_drivers_sol_vim_types(database):
    """A Tacker v1 request names a registered VIM with vimType kubernetes;
    drivers see ETSINFV.KUBERNETES.V_1."""
    row = registry.vim_create(
        {k: v for k, v in _k8s_row().items() if k not in ('id', 'created_at')}
    )
    plain = vim.resolve_vim_connection_info(
        {
            'reg': {'vimId': row['id'], 'vimType': 'kubernetes'},
            'inline': {
                'vimType': 'kubernetes',
                'interfaceInfo': {'endpoint': 'https://k'},
            },
        },
        'p1',
    )
    assert plain['reg']['vimType'] == 'ETSINFV.KUBERNETES.V_1'
    assert plain['reg']['accessInfo'] == {'bearer_token': TOKEN}
    assert plain['inline']['vimType'] == 'ETSINFV.KUBERNETES.V_1'


def test_resolve_of_unknown_vim_is_not_found(database):
    with pytest.raises(exceptions.NotFound):
        vim.resolve_vim_connection_info({'v': {'vimId': 'gone'}}, 'p1')


def _registered_in_p1() -> dict:
    return registry.vim_create(
        {k: v for k, v in _k8s_row().items() if k not in ('id', 'created_at')}
    )


def test_resolve_never_fills_in_another_projects_vim(database):
    """An instance of p2 whose stored entry names p1's VIM (a row made
    before the API checked it) gets no credentials of p1."""
    row = _registered_in_p1()
    stored = crypto.seal_vim_connection_info(
        {'v': {'vimId': row['id'], 'vimType': 'ETSINFV.KUBERNETES.V_1'}}
    )

    with pytest.raises(exceptions.NotFound) as e:
        vim.resolve_vim_connection_info(stored, 'p2')
    assert TOKEN not in str(e.value.detail)
    assert 'project p2' in e.value.detail
    assert vim.resolve_vim_connection_info(stored, 'p1')['v']['accessInfo']


def test_a_stored_entry_never_overrides_a_registered_vim(database):
    """The registered endpoint and credentials win over what an entry
    naming the VIM says: its token never goes to a listener of the
    request's choosing."""
    row = _registered_in_p1()
    stored = crypto.seal_vim_connection_info(
        {
            'v': {
                'vimId': row['id'],
                'vimType': 'ETSINFV.OPENSTACK_KEYSTONE.V_3',
                'interfaceInfo': {'endpoint': 'https://198.18.0.9:1'},
                'extra': {'note': 'kept'},
            },
            'w': {
                'vimId': row['id'],
                'interfaceInfo': {'endpoint': 'https://198.18.0.9:1'},
                'accessInfo': {'bearer_token': 'own'},
            },
        }
    )

    plain = vim.resolve_vim_connection_info(stored, 'p1')

    for key in ('v', 'w'):
        assert plain[key]['interfaceInfo']['endpoint'] == row['auth_url']
        assert plain[key]['accessInfo'] == {'bearer_token': TOKEN}
        assert plain[key]['vimType'] == 'ETSINFV.KUBERNETES.V_1'
    assert plain['v']['extra'] == {'note': 'kept'}


def test_an_entry_with_its_own_access_naming_a_foreign_vim_is_its_own(
    database,
):
    """Outside its project a VIM id is unknown: an entry that brings its
    own endpoint and credentials is used as given, nothing of p1 added."""
    row = _registered_in_p1()
    own = {
        'vimId': row['id'],
        'vimType': 'ETSINFV.KUBERNETES.V_1',
        'interfaceInfo': {'endpoint': 'https://198.18.0.9:1'},
        'accessInfo': {'bearer_token': 'own'},
    }

    plain = vim.resolve_vim_connection_info({'v': own}, 'p2')

    assert plain['v'] == own


def test_find_default(database):
    base = {
        k: v for k, v in _k8s_row().items() if k not in ('id', 'created_at')
    }
    registry.vim_create(dict(base, name='a'))
    default = registry.vim_create(dict(base, name='b', is_default=True))

    assert vim.find_default('p1', 'kubernetes')['id'] == default['id']
    assert vim.find_default('p1', 'openstack') is None
    assert vim.find_default('p2') is None
