"""/v1.0/vims: the Tacker VIM registry as ``openstack vim ...`` uses it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.server.conftest import json_of
from tests.unit.server.conftest import make_instance
from tests.unit.server.conftest import make_package
from vnfm.conf import CONF
from vnfm.db import registry
from vnfm.objects import vim as vim_obj
from vnfm.server import app as api_app
from vnfm.server import policies
from vnfm_testbed.k8s import certs

TOKEN = 'k8s-bearer-t0ken-never-shown'
PASSWORD = 'os-passw0rd-never-shown'


def k8s_body(name: str = 'k8s', **vim: Any) -> dict:
    """A register request as the client builds it from a Kubernetes
    vim.yaml."""
    body = {
        'name': name,
        'description': None,
        'type': 'kubernetes',
        'auth_url': 'https://10.0.0.1:6443',
        'is_default': False,
        'vim_project': {'name': 'default'},
        'auth_cred': {'bearer_token': TOKEN},
    }
    body.update(vim)
    return {'vim': body}


def os_body(name: str = 'os', **vim: Any) -> dict:
    """A register request from an OpenStack vim.yaml."""
    body = {
        'name': name,
        'type': 'openstack',
        'is_default': False,
        'auth_url': 'http://keystone/identity/v3',
        'vim_project': {'name': 'nfv', 'project_domain_name': 'Default'},
        'auth_cred': {
            'username': 'nfv_user',
            'password': PASSWORD,
            'user_domain_name': 'Default',
            'cert_verify': 'True',
        },
    }
    body.update(vim)
    return {'vim': body}


def register(client: Any, body: dict, status: int = 201) -> dict:
    r = client.request('POST', '/v1.0/vims.json', body)
    assert r.status_int == status, r.body
    return json_of(r)


def assert_no_secret(resp: Any) -> None:
    assert TOKEN.encode() not in resp.body
    assert PASSWORD.encode() not in resp.body


def test_register_kubernetes_vim(client):
    ca = certs.make_ca().cert_pem.decode()

    r = client.request(
        'POST',
        '/v1.0/vims.json',
        k8s_body(
            is_default=True,
            description='edge',
            auth_cred={'bearer_token': TOKEN, 'ssl_ca_cert': ca},
        ),
    )

    assert r.status_int == 201
    assert_no_secret(r)
    vim = json_of(r)['vim']
    assert vim['name'] == 'k8s' and vim['type'] == 'kubernetes'
    assert vim['status'] == 'ACTIVE' and vim['is_default'] is True
    assert vim['description'] == 'edge'
    assert vim['auth_cred'] == {'bearer_token': '***', 'ssl_ca_cert': ca}
    assert vim['auth_url'] == 'https://10.0.0.1:6443'
    assert vim['vim_project'] == {'name': 'default'}
    assert {'id', 'tenant_id', 'placement_attr', 'created_at'} <= set(vim)
    # Stored encrypted: the token is nowhere in the row.
    assert TOKEN not in repr(registry.vim_get(vim['id']))


def test_list_show_and_client_lookups_never_leak(client):
    vim = register(client, k8s_body())['vim']
    register(client, os_body())

    listed = client.request('GET', '/v1.0/vims.json')
    by_name = client.request('GET', '/v1.0/vims.json?name=k8s&fields=id')
    by_id = client.request('GET', f'/v1.0/vims.json?id={vim["id"]}&fields=id')
    shown = client.request('GET', f'/v1.0/vims/{vim["id"]}.json')

    for r in (listed, by_name, by_id, shown):
        assert r.status_int == 200
        assert_no_secret(r)
    assert sorted(v['name'] for v in json_of(listed)['vims']) == ['k8s', 'os']
    assert json_of(by_name) == {'vims': [{'id': vim['id']}]}
    assert json_of(by_id) == {'vims': [{'id': vim['id']}]}
    assert json_of(shown)['vim']['auth_cred'] == {'bearer_token': '***'}
    os_vim = [v for v in json_of(listed)['vims'] if v['name'] == 'os'][0]
    assert os_vim['auth_cred']['password'] == '***'
    assert os_vim['auth_cred']['username'] == 'nfv_user'


def test_duplicate_name_is_409(client):
    register(client, k8s_body('same'))

    r = client.request('POST', '/v1.0/vims.json', k8s_body('same'))

    assert r.status_int == 409
    assert "'same' already exists" in json_of(r)['detail']


@pytest.mark.parametrize(
    'body, detail',
    [
        (
            k8s_body(auth_cred={'bearer_token': TOKEN, 'ssl_ca_cert': 'junk'}),
            'ssl_ca_cert is not a valid PEM certificate',
        ),
        (
            k8s_body(
                auth_cred={'ssl_ca_cert': certs.make_ca().cert_pem.decode()}
            ),
            'needs bearer_token, username and password, or client_cert',
        ),
        (k8s_body(auth_cred={'username': 'u'}), 'needs bearer_token'),
        (k8s_body(auth_url='http://10.0.0.1:6443'), 'plain http'),
        (k8s_body(auth_url='10.0.0.1:6443'), 'is not an http(s) URL'),
        (
            k8s_body(
                auth_cred={
                    'oidc_token_url': 'https://idp/token',
                    'username': 'u',
                    'password': 'p',
                }
            ),
            'needs client_id',
        ),
        (
            k8s_body(extra={'helm': {'password': 'x'}}),
            'extra/helm/password: extra is stored in clear',
        ),
        (k8s_body(type='vmware'), 'vim/type'),
        (k8s_body(auth_cred={'bearer_token': 5}), 'auth_cred/bearer_token'),
        ({'vim': {'name': 'x', 'auth_cred': {}}}, 'vim/auth_url'),
        (os_body(vim_project={}), 'vim_project/name'),
        (os_body(auth_cred={'username': 'u'}), 'needs username and password'),
    ],
)
def test_invalid_registration_is_400(client, body, detail):
    r = client.request('POST', '/v1.0/vims.json', body)

    assert r.status_int == 400, r.body
    assert detail in json_of(r)['detail']
    assert registry.vim_list() == []


def test_http_endpoint_with_explicit_flag(client):
    vim = register(
        client,
        k8s_body(
            auth_url='http://10.0.0.1:8080', extra={'skip_tls_verify': True}
        ),
    )['vim']

    info = vim_obj.to_vim_connection_info(registry.vim_get(vim['id']))
    assert info['interfaceInfo'] == {
        'endpoint': 'http://10.0.0.1:8080',
        'skip_tls_verify': True,
    }


def test_one_default_per_type(client):
    first = register(client, k8s_body('a', is_default=True))['vim']
    register(client, os_body('o', is_default=True))

    r = client.request(
        'POST', '/v1.0/vims.json', k8s_body('b', is_default=True)
    )
    assert r.status_int == 409
    assert first['id'] in json_of(r)['detail']
    second = register(client, k8s_body('b'))['vim']
    r = client.request(
        'PUT', f'/v1.0/vims/{second["id"]}.json', {'vim': {'is_default': True}}
    )
    assert r.status_int == 409

    client.request(
        'PUT', f'/v1.0/vims/{first["id"]}.json', {'vim': {'is_default': False}}
    )
    r = client.request(
        'PUT', f'/v1.0/vims/{second["id"]}.json', {'vim': {'is_default': True}}
    )
    assert r.status_int == 200
    assert vim_obj.find_default(None, 'kubernetes')['id'] == second['id']


def test_update_fields_and_credentials(client):
    vim = register(
        client,
        k8s_body(
            auth_cred={
                'bearer_token': TOKEN,
                'ssl_ca_cert': certs.make_ca().cert_pem.decode(),
            }
        ),
    )['vim']
    url = f'/v1.0/vims/{vim["id"]}.json'

    r = client.request(
        'PUT', url, {'vim': {'name': 'renamed', 'description': 'new'}}
    )
    assert r.status_int == 200
    assert_no_secret(r)
    assert json_of(r)['vim']['name'] == 'renamed'
    # The masked view sent back keeps the stored token.
    r = client.request(
        'PUT', url, {'vim': {'auth_cred': {'bearer_token': '***'}}}
    )
    assert r.status_int == 200
    row = registry.vim_get(vim['id'])
    assert vim_obj.credentials(row)['bearer_token'] == TOKEN
    # Another way to authenticate replaces the token; the CA stays.
    r = client.request(
        'PUT',
        url,
        {
            'vim': {
                'vim_project': {'name': 'default'},
                'auth_cred': {'username': 'admin', 'password': PASSWORD},
            }
        },
    )
    assert r.status_int == 200
    assert_no_secret(r)
    cred = vim_obj.credentials(registry.vim_get(vim['id']))
    assert set(cred) == {'username', 'password', 'ssl_ca_cert'}
    assert json_of(r)['vim']['auth_cred']['password'] == '***'


def test_update_errors(client):
    vim = register(client, k8s_body())['vim']
    register(client, k8s_body('other'))
    url = f'/v1.0/vims/{vim["id"]}.json'

    cases = [
        ({'vim': {'name': 'other'}}, 409),
        ({'vim': {'type': 'openstack'}}, 400),
        (
            {
                'vim': {
                    'auth_cred': {'bearer_token': TOKEN, 'ssl_ca_cert': 'bad'}
                }
            },
            400,
        ),
        ({'vim': {}}, 400),
    ]
    for body, status in cases:
        assert client.request('PUT', url, body).status_int == status, body
    assert (
        client.request(
            'PUT', '/v1.0/vims/nope.json', {'vim': {'name': 'x'}}
        ).status_int
        == 404
    )
    assert registry.vim_get(vim['id'])['name'] == 'k8s'


def test_delete(client):
    vim = register(client, k8s_body())['vim']

    r = client.request('DELETE', f'/v1.0/vims/{vim["id"]}.json')

    assert r.status_int == 204 and r.body == b''
    assert (
        client.request('GET', f'/v1.0/vims/{vim["id"]}.json').status_int == 404
    )
    assert (
        client.request('DELETE', f'/v1.0/vims/{vim["id"]}').status_int == 404
    )


def test_delete_of_vim_in_use_is_409(client):
    vim = register(client, k8s_body())['vim']
    inst = make_instance(
        make_package(),
        vim_connection_info={
            'vim1': {'vimId': vim['id'], 'vimType': 'ETSINFV.KUBERNETES.V_1'}
        },
    )

    r = client.request('DELETE', f'/v1.0/vims/{vim["id"]}.json')

    assert r.status_int == 409
    assert inst['id'] in json_of(r)['detail']


@pytest.fixture
def project_client(client):
    """Requests as members of a project (keystone strategy, middleware
    headers set by the test)."""
    CONF.set_override('auth_strategy', 'keystone', group='api')
    policies.reset()
    app = api_app.Application(rpc=object())

    def call(project: str, method: str, path: str, body: Any = None) -> Any:
        headers = {
            'X-Identity-Status': 'Confirmed',
            'X-Project-Id': project,
            'X-User-Id': 'u-' + project,
            'X-Roles': 'member,reader',
        }
        client.app, saved = app, client.app
        try:
            return client.request(method, path, body, headers=headers)
        finally:
            client.app = saved

    yield call
    CONF.set_override('auth_strategy', 'noauth', group='api')
    policies.reset()


def test_projects_see_only_their_vims(project_client):
    r = project_client('p1', 'POST', '/v1.0/vims.json', k8s_body())
    assert r.status_int == 201
    vim = json_of(r)['vim']
    assert vim['tenant_id'] == 'p1'
    # The same name in another project is fine.
    assert (
        project_client('p2', 'POST', '/v1.0/vims.json', k8s_body()).status_int
        == 201
    )

    listed = json_of(project_client('p2', 'GET', '/v1.0/vims.json'))
    assert [v['tenant_id'] for v in listed['vims']] == ['p2']
    assert (
        project_client('p2', 'GET', f'/v1.0/vims/{vim["id"]}.json').status_int
        == 404
    )
    assert (
        project_client(
            'p2', 'DELETE', f'/v1.0/vims/{vim["id"]}.json'
        ).status_int
        == 404
    )
    r = project_client(
        'p2', 'POST', '/v1.0/vims.json', k8s_body('x', tenant_id='p1')
    )
    assert r.status_int == 403


def test_an_openstack_vim_is_checked_by_a_conductor_then_reachable(
    client, rpc
):
    vim = register(client, os_body())['vim']

    assert vim['status'] == 'REACHABLE'
    [(name, (checked,))] = [c for c in rpc.calls if c[0] == 'check_vim']
    assert checked['auth_url'] == 'http://keystone/identity/v3'
    # The credentials travel sealed, as they are stored.
    assert PASSWORD not in repr(checked)
    assert vim_obj.credentials(checked)['password'] == PASSWORD


def test_credentials_keystone_refuses_register_nothing(client, rpc):
    rpc.vim_check = 'Keystone at http://keystone/identity/v3 refused the ' + (
        'credentials: check the username, password, project and domains.'
    )

    r = client.request('POST', '/v1.0/vims.json', os_body())

    assert r.status_int == 400
    assert (
        json_of(r)['detail'] == f'The VIM was not registered: {rpc.vim_check}'
    )
    assert_no_secret(r)
    assert json_of(client.request('GET', '/v1.0/vims.json'))['vims'] == []


def test_new_openstack_credentials_are_checked_again(client, rpc):
    vim = register(client, os_body())['vim']
    rpc.vim_check = 'Keystone at http://keystone/identity/v3 refused.'

    r = client.request(
        'PUT',
        f'/v1.0/vims/{vim["id"]}.json',
        {'vim': {'auth_cred': {'password': 'other'}}},
    )

    assert r.status_int == 400
    shown = json_of(client.request('GET', f'/v1.0/vims/{vim["id"]}.json'))
    assert shown['vim']['status'] == 'REACHABLE'


def test_a_kubernetes_vim_is_not_contacted(client, rpc):
    register(client, k8s_body())

    assert not [c for c in rpc.calls if c[0] == 'check_vim']


@pytest.mark.parametrize(
    'change',
    [
        {'auth_url': 'http://198.18.0.9:5000/v3'},
        {'auth_cred': {'cert_verify': 'False'}},
        {'auth_cred': {'password': '***', 'cert_verify': 'False'}},
        {'auth_url': 'http://198.18.0.9:5000/v3', 'auth_cred': {}},
    ],
)
def test_moving_an_openstack_vim_needs_its_password_again(client, rpc, change):
    """Who sees only ``***`` cannot send the stored password elsewhere."""
    vim = register(client, os_body())['vim']
    rpc.calls.clear()

    r = client.request('PUT', f'/v1.0/vims/{vim["id"]}.json', {'vim': change})

    assert r.status_int == 400, r.body
    assert 'password' in json_of(r)['detail']
    assert rpc.calls == []  # no conductor was asked to try it there
    row = registry.vim_get(vim['id'])
    assert row['auth_url'] == 'http://keystone/identity/v3'
    assert vim_obj.credentials(row)['cert_verify'] == 'True'


def test_moving_an_openstack_vim_with_its_password_is_checked_there(
    client, rpc
):
    vim = register(client, os_body())['vim']
    rpc.calls.clear()
    change = {
        'auth_url': 'http://198.18.0.9:5000/v3',
        'auth_cred': {'username': 'nfv_user', 'password': 'new-' + PASSWORD},
    }

    r = client.request('PUT', f'/v1.0/vims/{vim["id"]}.json', {'vim': change})

    assert r.status_int == 200, r.body
    [(_, (checked,))] = rpc.calls
    assert checked['auth_url'] == change['auth_url']
    assert vim_obj.credentials(checked)['password'] == 'new-' + PASSWORD


@pytest.mark.parametrize(
    'change',
    [
        {'auth_url': 'https://198.18.0.9:6443'},
        {'extra': {'skip_tls_verify': True}},
        {'auth_cred': {'bearer_token': '***', 'ssl_ca_cert': 'x'}},
    ],
)
def test_moving_a_kubernetes_vim_needs_its_token_again(client, change):
    vim = register(client, k8s_body())['vim']

    r = client.request('PUT', f'/v1.0/vims/{vim["id"]}.json', {'vim': change})

    assert r.status_int == 400, r.body
    assert 'bearer_token' in json_of(r)['detail']
    row = registry.vim_get(vim['id'])
    assert row['auth_url'] == 'https://10.0.0.1:6443'
    assert not (row['extra'] or {}).get('skip_tls_verify')
    change = {'auth_url': 'https://198.18.0.9:6443'}
    change['auth_cred'] = {'bearer_token': 'new-token'}
    r = client.request('PUT', f'/v1.0/vims/{vim["id"]}.json', {'vim': change})
    assert r.status_int == 200, r.body


def test_another_projects_instance_neither_holds_nor_sees_a_vim(
    project_client,
):
    """An instance of p2 stored before VIM ids were checked names p1's
    VIM: p1 may still delete it, and no 409 names p2's instance."""
    vim = json_of(project_client('p1', 'POST', '/v1.0/vims.json', k8s_body()))
    entry = {'vimId': vim['vim']['id'], 'vimType': 'ETSINFV.KUBERNETES.V_1'}
    make_instance(
        make_package(project_id='p2'),
        project_id='p2',
        vim_connection_info={'v': entry},
    )

    r = project_client('p1', 'DELETE', f'/v1.0/vims/{vim["vim"]["id"]}.json')

    assert r.status_int == 204, r.body
