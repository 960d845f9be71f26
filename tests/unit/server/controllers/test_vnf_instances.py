"""/vnflcm/v2/vnf_instances: create, show, list, modify, delete; the links
and VIM types of what the drivers serve (the task resources:
test_lcm.py)."""

from __future__ import annotations

import socket

import pytest

from tests.unit.objects import test_lcm_params
from tests.unit.server.conftest import identity
from tests.unit.server.conftest import json_of
from tests.unit.server.conftest import make_instance
from tests.unit.server.conftest import make_package
from vnfm.db import api as db

VIM = {
    'vim1': {
        'vimType': 'ETSINFV.KUBERNETES.V_1',
        'interfaceInfo': {'endpoint': 'https://k8s', 'ssl_ca_cert': 'CERT'},
        'accessInfo': {
            'username': 'admin',
            'password': 'SECRET-PW',
            'bearer_token': 'SECRET-TOK',
        },
    }
}


def test_create_copies_package_identity(client):
    pkg = make_package()
    resp = client.lcm(
        'POST',
        '/vnf_instances',
        {
            'vnfdId': 'vnfd-1',
            'vnfInstanceName': 'n',
            'vnfInstanceDescription': 'd',
            'metadata': {'m': 1},
        },
    )
    assert resp.status_int == 201
    body = json_of(resp)
    assert resp.headers['Location'] == (
        f'http://localhost/vnflcm/v2/vnf_instances/{body["id"]}'
    )
    assert body['vnfProvider'] == 'Company'
    assert body['vnfProductName'] == 'Sample'
    assert body['instantiationState'] == 'NOT_INSTANTIATED'
    assert body['metadata'] == {'m': 1}
    assert set(body['_links']) == {'self', 'instantiate'}
    assert db.package_get(pkg['id'])['usage_state'] == 'IN_USE'


@pytest.mark.parametrize(
    'kw', [{'state': 'CREATED'}, {'operational': 'DISABLED'}, None]
)
def test_create_needs_an_enabled_package(client, kw):
    if kw is not None:
        make_package(**kw)
    resp = client.lcm('POST', '/vnf_instances', {'vnfdId': 'vnfd-1'})
    assert resp.status_int == 422


def test_vim_connection_info_secrets_never_shown(client):
    make_package()
    resp = client.lcm(
        'POST',
        '/vnf_instances',
        {'vnfdId': 'vnfd-1', 'vimConnectionInfo': VIM},
    )
    inst = json_of(resp)
    stored = db.instance_get(inst['id'])['vim_connection_info']
    assert 'SECRET' not in str(stored)
    shown = json_of(client.lcm('GET', f'/vnf_instances/{inst["id"]}'))
    access = shown['vimConnectionInfo']['vim1']['accessInfo']
    assert access == {
        'username': 'admin',
        'password': '********',
        'bearer_token': '********',
    }
    assert (
        shown['vimConnectionInfo']['vim1']['interfaceInfo']['ssl_ca_cert']
        == 'CERT'
    )


def test_list_and_show(client):
    pkg = make_package()
    a = make_instance(pkg, vnf_instance_name='a', metadata={'x': 1})
    make_instance(pkg, vnf_instance_name='b')
    listed = json_of(client.lcm('GET', '/vnf_instances'))
    assert [i['vnfInstanceName'] for i in listed] == ['a', 'b']
    assert 'metadata' not in listed[0]
    listed = json_of(
        client.lcm(
            'GET', '/vnf_instances?filter=(eq,vnfInstanceName,a)&all_fields'
        )
    )
    assert [i['id'] for i in listed] == [a['id']]
    assert listed[0]['metadata'] == {'x': 1}
    assert client.lcm('GET', '/vnf_instances/nope').status_int == 404


def test_delete_releases_package(client):
    pkg = make_package(usage='IN_USE')
    inst = make_instance(pkg)
    resp = client.lcm('DELETE', f'/vnf_instances/{inst["id"]}')
    assert resp.status_int == 204 and resp.body == b''
    assert db.package_get(pkg['id'])['usage_state'] == 'NOT_IN_USE'


def test_delete_instantiated_is_409(client):
    inst = make_instance(make_package(), state='INSTANTIATED')
    assert (
        client.lcm('DELETE', f'/vnf_instances/{inst["id"]}').status_int == 409
    )


def test_modify_creates_modify_info_op(client, rpc):
    make_package('vnfd-2')
    inst = make_instance(make_package())
    resp = client.lcm(
        'PATCH',
        f'/vnf_instances/{inst["id"]}',
        {
            'vnfInstanceName': 'new',
            'vnfdId': 'vnfd-2',
            'metadata': {'a': None},
        },
        content_type='application/merge-patch+json',
    )
    assert resp.status_int == 202, resp.body
    op = db.op_get(resp.headers['Location'].rsplit('/', 1)[1])
    assert op['operation'] == 'MODIFY_INFO'
    assert op['operation_params']['vnfdId'] == 'vnfd-2'


def test_modify_to_unknown_vnfd_is_422(client):
    inst = make_instance(make_package())
    resp = client.lcm(
        'PATCH', f'/vnf_instances/{inst["id"]}', {'vnfdId': 'unknown'}
    )
    assert resp.status_int == 422


CHANGE_EXT_CONN = {
    'extVirtualLinks': [
        {
            'id': 'l',
            'resourceId': 'r',
            'extCps': [{'cpdId': 'cp', 'cpConfig': {'c': {}}}],
        }
    ]
}


def test_unsupported_operation_is_neither_advertised_nor_accepted(client, rpc):
    inst = make_instance(
        make_package(), state='INSTANTIATED', vim_connection_info=VIM
    )
    shown = json_of(client.lcm('GET', f'/vnf_instances/{inst["id"]}'))
    assert set(shown['_links']) == {
        'self',
        'terminate',
        'scale',
        'scaleToLevel',
        'changeFlavour',
        'heal',
        'operate',
    }
    resp = client.lcm(
        'POST', f'/vnf_instances/{inst["id"]}/change_ext_conn', CHANGE_EXT_CONN
    )
    assert resp.status_int == 409
    assert resp.content_type == 'application/problem+json'
    detail = json_of(resp)['detail']
    assert detail.startswith(
        f'CHANGE_EXT_CONN is not supported for VNF instance {inst["id"]}: '
        'no enabled infra driver runs it on vimType ETSINFV.KUBERNETES.V_1'
    )
    assert 'enabled_infra_drivers: noop, kubernetes' in detail
    assert db.op_list() == [] and rpc.calls == []


def test_an_operation_a_driver_declares_appears(client, rpc, driver_supports):
    driver_supports('CHANGE_EXT_CONN')
    inst = make_instance(
        make_package(),
        state='INSTANTIATED',
        vim_connection_info={'v': {'vimType': 'VNFM.NOOP.V_1'}},
    )
    shown = json_of(client.lcm('GET', f'/vnf_instances/{inst["id"]}'))
    assert shown['_links']['changeExtConn'] == {
        'href': f'http://localhost/vnflcm/v2/vnf_instances/{inst["id"]}'
        '/change_ext_conn'
    }
    resp = client.lcm(
        'POST', f'/vnf_instances/{inst["id"]}/change_ext_conn', CHANGE_EXT_CONN
    )
    assert resp.status_int == 202, resp.body
    assert [op['operation'] for op in db.op_list()] == ['CHANGE_EXT_CONN']
    # Only on the VIM of the driver that declares it.
    other = make_instance(
        make_package('vnfd-2'), state='INSTANTIATED', vim_connection_info=VIM
    )
    shown = json_of(client.lcm('GET', f'/vnf_instances/{other["id"]}'))
    assert 'changeExtConn' not in shown['_links']


@pytest.mark.parametrize(
    'path,body',
    [
        ('/vnf_instances', {'vnfdId': 'vnfd-1'}),
        ('/vnf_instances/{id}/instantiate', {'flavourId': 'simple'}),
        ('/vnf_instances/{id}', {'vnfInstanceName': 'x'}),
    ],
)
@pytest.mark.parametrize(
    'vim_type', ['ETSINFV.OPENSTACK_KEYSTONE.V_3', 'kubernetes']
)
def test_a_vim_type_no_driver_serves_is_422(client, rpc, path, body, vim_type):
    inst = make_instance(make_package())
    body = dict(body, vimConnectionInfo={'v': {'vimType': vim_type}})
    method = 'PATCH' if path.endswith('{id}') else 'POST'
    resp = client.lcm(method, path.format(id=inst['id']), body)
    assert resp.status_int == 422, resp.body
    assert json_of(resp)['detail'] == (
        f'vimConnectionInfo: vimType {vim_type} is not served by any enabled '
        'infra driver (served: ETSINFV.KUBERNETES.V_1, VNFM.NOOP.V_1; '
        '[infra] enabled_infra_drivers: noop, kubernetes).'
    )
    assert db.op_list() == [] and rpc.calls == []
    assert len(db.instance_list()) == 1


def test_create_from_another_projects_package_is_422(keystone_client):
    make_package(project_id='pa')
    body = {'vnfdId': 'vnfd-1'}
    other = identity('pb', 'member', 'reader')
    resp = keystone_client.lcm('POST', '/vnf_instances', body, headers=other)
    assert resp.status_int == 422
    owner = identity('pa', 'member', 'reader')
    resp = keystone_client.lcm('POST', '/vnf_instances', body, headers=owner)
    assert resp.status_int == 201
    assert json_of(resp)['vnfdId'] == 'vnfd-1'
    assert db.instance_list()[0]['project_id'] == 'pa'


def test_another_projects_instance_is_404(keystone_client):
    inst = make_instance(make_package(project_id='pa'), project_id='pa')
    other = identity('pb', 'member', 'reader')
    path = f'/vnf_instances/{inst["id"]}'
    assert keystone_client.lcm('GET', path, headers=other).status_int == 404
    assert keystone_client.lcm('DELETE', path, headers=other).status_int == 404
    listed = keystone_client.lcm('GET', '/vnf_instances', headers=other)
    assert json_of(listed) == []


@pytest.mark.parametrize(
    'body, where',
    [
        ({'additionalParams': {'_sealed': 'x'}}, 'additionalParams/_sealed'),
        (
            {'additionalParams': {'a': [{'_sealed': {'b': 1}}]}},
            'additionalParams/a/0/_sealed',
        ),
        (
            {'vimConnectionInfo': {'v': {'accessInfo': {'_sealed': 'x'}}}},
            'vimConnectionInfo/v/accessInfo/_sealed',
        ),
    ],
)
def test_a_request_naming_sealed_is_400(client, rpc, body, where):
    # _sealed is where vnfm keeps encrypted secrets: a request naming it
    # was decrypted as vnfm's own and failed with a 500 naming the host.
    inst = make_instance(make_package())
    resp = client.lcm(
        'POST',
        f'/vnf_instances/{inst["id"]}/instantiate',
        {'flavourId': 'simple', **body},
    )
    assert resp.status_int == 400, resp.body
    detail = json_of(resp)['detail']
    assert detail.startswith(f'{where}: ')
    assert socket.gethostname() not in detail
    assert rpc.calls == []
    assert db.op_list({'vnf_instance_id': inst['id']}) == []


@pytest.mark.parametrize('path', test_lcm_params.PARAMETERS)
def test_a_hostile_known_parameter_is_a_400_and_records_nothing(
    client, rpc, path
):
    inst = make_instance(make_package())
    value = test_lcm_params.PARAMETERS[path] + '/../$(touch /tmp/x)'
    resp = client.lcm(
        'POST',
        f'/vnf_instances/{inst["id"]}/instantiate',
        {
            'flavourId': 'simple',
            'additionalParams': test_lcm_params.params_with(path, value),
        },
    )
    assert resp.status_int == 400, resp.body
    assert json_of(resp)['detail'].startswith(f'additionalParams/{path}: ')
    assert rpc.calls == []
    assert db.op_list({'vnf_instance_id': inst['id']}) == []
