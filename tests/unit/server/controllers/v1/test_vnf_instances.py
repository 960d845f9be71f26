"""/vnflcm/v1/vnf_instances (API 1.3.0): the v1 request and response
shapes over the shared v2 path."""

from __future__ import annotations

import pytest

from tests.unit.server.conftest import json_of
from tests.unit.server.conftest import make_instance
from tests.unit.server.conftest import make_package
from vnfm.common import crypto
from vnfm.db import api as db
from vnfm.db import registry

from .calls import VIM
from .calls import op_id_of
from .calls import v1


def test_create_show_list_in_v1_shape(client):
    pkg = make_package()
    resp = v1(
        client,
        'POST',
        '/vnf_instances',
        {
            'vnfdId': 'vnfd-1',
            'vnfInstanceName': 'n',
            'metadata': {'m': 1},
            'vimConnectionInfo': VIM,
        },
    )
    assert resp.status_int == 201, resp.body
    assert resp.headers['Version'] == '1.3.0'
    body = json_of(resp)
    href = f'http://localhost/vnflcm/v1/vnf_instances/{body["id"]}'
    assert resp.headers['Location'] == href
    assert body['vnfPkgId'] == pkg['id']
    assert body['vimConnectionInfo'] == [
        {
            'id': 'vim1',
            'vimType': 'VNFM.NOOP.V_1',
            'accessInfo': {'username': 'admin', 'password': '********'},
        }
    ]
    assert body['_links'] == {
        'self': {'href': href},
        'instantiate': {'href': f'{href}/instantiate'},
    }
    row = db.instance_get(body['id'])
    assert row['api_version'] == '1'
    assert set(row['vim_connection_info']) == {'vim1'}  # stored as the map
    assert 'SECRET' not in str(row)

    assert json_of(v1(client, 'GET', f'/vnf_instances/{body["id"]}')) == body
    listed = json_of(v1(client, 'GET', '/vnf_instances'))
    assert [i['vnfPkgId'] for i in listed] == [pkg['id']]
    assert 'vimConnectionInfo' not in listed[0]
    listed = json_of(v1(client, 'GET', '/vnf_instances?all_fields'))
    assert listed[0]['vimConnectionInfo'][0]['id'] == 'vim1'
    assert 'SECRET' not in str(listed)


def test_v2_instances_are_shown_in_v1_shape(client):
    inst = make_instance(
        make_package(), vim_connection_info={'k8s': {'vimType': 'kubernetes'}}
    )
    shown = json_of(v1(client, 'GET', f'/vnf_instances/{inst["id"]}'))
    assert shown['vimConnectionInfo'] == [
        {'id': 'k8s', 'vimType': 'kubernetes'}
    ]


def test_create_errors_are_problem_details(client):
    resp = v1(client, 'POST', '/vnf_instances', {'vnfdId': 'nope'})
    assert resp.status_int == 422
    assert resp.content_type == 'application/problem+json'
    assert resp.headers['Version'] == '1.3.0'
    assert 'nope' in json_of(resp)['detail']
    # A v2-shaped vimConnectionInfo is not a v1 request.
    resp = v1(
        client,
        'POST',
        '/vnf_instances',
        {'vnfdId': 'vnfd-1', 'vimConnectionInfo': {'vim1': VIM[0]}},
    )
    assert resp.status_int == 400
    assert resp.headers['Version'] == '1.3.0'


def test_instantiate_stores_the_v2_form(client, rpc):
    inst = make_instance(make_package())
    resp = v1(
        client,
        'POST',
        f'/vnf_instances/{inst["id"]}/instantiate',
        {'flavourId': 'simple', 'vimConnectionInfo': VIM},
    )
    op_id = op_id_of(resp)
    assert resp.headers['Version'] == '1.3.0'
    assert rpc.calls == [('start_lcm_op', (op_id,))]
    row = db.op_get(op_id)
    assert row['api_version'] == '1'
    assert set(row['operation_params']['vimConnectionInfo']) == {'vim1'}
    assert 'SECRET' not in str(row['operation_params'])
    shown = json_of(v1(client, 'GET', f'/vnf_lcm_op_occs/{op_id}'))
    assert shown['operationParams']['vimConnectionInfo'] == [
        {
            'id': 'vim1',
            'vimType': 'VNFM.NOOP.V_1',
            'accessInfo': {'username': 'admin', 'password': '********'},
        }
    ]
    assert shown['_links']['vnfInstance']['href'].endswith(
        f'/vnflcm/v1/vnf_instances/{inst["id"]}'
    )
    # The flavour is checked as in v2.
    inst = make_instance(make_package('vnfd-2'))
    resp = v1(
        client,
        'POST',
        f'/vnf_instances/{inst["id"]}/instantiate',
        {'flavourId': 'huge'},
    )
    assert resp.status_int == 422


@pytest.mark.parametrize(
    'task, body, operation',
    [
        ('terminate', {'terminationType': 'GRACEFUL'}, 'TERMINATE'),
        ('scale', {'type': 'SCALE_OUT', 'aspectId': 'a'}, 'SCALE'),
        (
            'change_ext_conn',
            {
                'extVirtualLinks': [
                    {
                        'id': 'ext1',
                        'resourceId': 'net',
                        'extCps': [
                            {'cpdId': 'CP1', 'cpConfig': [{'linkPortId': 'p'}]}
                        ],
                    }
                ]
            },
            'CHANGE_EXT_CONN',
        ),
    ],
)
def test_tasks_on_an_instantiated_instance(
    client, driver_supports, task, body, operation
):
    driver_supports('CHANGE_EXT_CONN')
    inst = make_instance(make_package(), state='INSTANTIATED')
    op_id = op_id_of(
        v1(client, 'POST', f'/vnf_instances/{inst["id"]}/{task}', body)
    )
    row = db.op_get(op_id)
    assert row['operation'] == operation
    shown = json_of(v1(client, 'GET', f'/vnf_lcm_op_occs/{op_id}'))
    assert shown['operationParams'] == body  # as the client sent it
    # Not on a NOT_INSTANTIATED one.
    other = make_instance(make_package('vnfd-2'))
    assert (
        v1(
            client, 'POST', f'/vnf_instances/{other["id"]}/{task}', body
        ).status_int
        == 409
    )


def test_heal_names_vnfc_resources(client):
    inst = make_instance(
        make_package(),
        state='INSTANTIATED',
        instantiated_vnf_info={
            'vnfcResourceInfo': [{'id': 'r1'}],
            'vnfcInfo': [{'id': 'VDU1-r1', 'vnfcResourceInfoId': 'r1'}],
        },
    )
    op_id = op_id_of(
        v1(
            client,
            'POST',
            f'/vnf_instances/{inst["id"]}/heal',
            {'vnfcInstanceId': ['r1']},
        )
    )
    assert db.op_get(op_id)['operation_params']['vnfcInstanceId'] == [
        'VDU1-r1'
    ]
    db.op_update(
        op_id, {'operation_state': 'COMPLETED', 'active_instance_id': None}
    )
    assert (
        v1(
            client,
            'POST',
            f'/vnf_instances/{inst["id"]}/heal',
            {'vnfcInstanceId': ['nope']},
        ).status_int
        == 400
    )


def test_modify_with_vnf_pkg_id(client):
    inst = make_instance(
        make_package(),
        state='INSTANTIATED',
        vim_connection_info={'old': {'vimType': 't'}},
    )
    new = make_package('vnfd-2')
    op_id = op_id_of(
        v1(
            client,
            'PATCH',
            f'/vnf_instances/{inst["id"]}',
            {
                'vnfInstanceName': 'x',
                'vnfPkgId': new['id'],
                'vimConnectionInfo': VIM,
                'vimConnectionInfoDeleteIds': ['old'],
            },
            content_type='application/merge-patch+json',
        )
    )
    params = db.op_get(op_id)['operation_params']
    assert params['vnfdId'] == 'vnfd-2' and params['vnfPkgId'] == new['id']
    assert params['vimConnectionInfo']['old'] is None
    shown = json_of(v1(client, 'GET', f'/vnf_lcm_op_occs/{op_id}'))
    assert shown['operationParams']['vimConnectionInfoDeleteIds'] == ['old']
    assert shown['operation'] == 'MODIFY_INFO'


@pytest.mark.parametrize(
    'body',
    [
        {'vnfPkgId': 'no-such-package'},
        {'vnfPkgId': 'PKG', 'vnfdId': 'vnfd-1'},
    ],
)
def test_modify_with_a_wrong_package(client, body):
    inst = make_instance(make_package())
    new = make_package('vnfd-2')
    body = {k: (new['id'] if v == 'PKG' else v) for k, v in body.items()}
    resp = v1(client, 'PATCH', f'/vnf_instances/{inst["id"]}', body)
    assert resp.status_int == 422, resp.body
    assert db.op_list() == []


def test_delete(client):
    inst = make_instance(make_package(usage='IN_USE'))
    assert (
        v1(client, 'DELETE', f'/vnf_instances/{inst["id"]}').status_int == 204
    )
    assert v1(client, 'GET', f'/vnf_instances/{inst["id"]}').status_int == 404


@pytest.mark.parametrize('vim_type', ['kubernetes', 'ETSINFV.KUBERNETES.V_1'])
def test_tacker_v1_vim_type_names_are_taken_and_shown_as_given(
    client, rpc, vim_type
):
    """Tacker's v1 user guides give vimType ``kubernetes``."""
    inst = make_instance(make_package())
    registered = registry.vim_create(
        {
            'name': 'k8s',
            'type': 'kubernetes',
            'status': 'ACTIVE',
            'auth_url': 'https://127.0.0.1:6443',
            'auth_cred': crypto.encrypt({'bearer_token': 't'}),
        }
    )
    vim = [{'id': 'k8s', 'vimId': registered['id'], 'vimType': vim_type}]
    op_id = op_id_of(
        v1(
            client,
            'POST',
            f'/vnf_instances/{inst["id"]}/instantiate',
            {'flavourId': 'simple', 'vimConnectionInfo': vim},
        )
    )
    shown = json_of(v1(client, 'GET', f'/vnf_lcm_op_occs/{op_id}'))
    assert shown['operationParams']['vimConnectionInfo'] == vim
    db.instance_update(
        inst['id'],
        {
            'instantiation_state': 'INSTANTIATED',
            'vim_connection_info': db.op_get(op_id)['operation_params'][
                'vimConnectionInfo'
            ],
        },
    )
    db.op_update(
        op_id, {'operation_state': 'COMPLETED', 'active_instance_id': None}
    )
    shown = json_of(v1(client, 'GET', f'/vnf_instances/{inst["id"]}'))
    assert shown['vimConnectionInfo'] == vim
    assert set(shown['_links']) == {
        'self',
        'terminate',
        'scale',
        'scaleToLevel',
        'changeFlavour',
        'heal',
        'operate',
    }


def test_tacker_openstack_vim_type_without_its_driver_is_422(client, rpc):
    inst = make_instance(make_package())
    resp = v1(
        client,
        'POST',
        f'/vnf_instances/{inst["id"]}/instantiate',
        {
            'flavourId': 'simple',
            'vimConnectionInfo': [{'id': 'os', 'vimType': 'openstack'}],
        },
    )
    assert resp.status_int == 422
    assert resp.headers['Version'] == '1.3.0'
    assert json_of(resp)['detail'] == (
        'vimConnectionInfo: vimType openstack is not served by any enabled '
        'infra driver (served: ETSINFV.KUBERNETES.V_1, VNFM.NOOP.V_1, '
        'kubernetes; [infra] enabled_infra_drivers: noop, kubernetes).'
    )
    assert db.op_list() == [] and rpc.calls == []


def test_change_ext_conn_no_driver_runs_is_409(client, rpc):
    inst = make_instance(make_package(), state='INSTANTIATED')
    shown = json_of(v1(client, 'GET', f'/vnf_instances/{inst["id"]}'))
    assert 'changeExtConn' not in shown['_links']
    resp = v1(
        client,
        'POST',
        f'/vnf_instances/{inst["id"]}/change_ext_conn',
        {
            'extVirtualLinks': [
                {
                    'id': 'e',
                    'resourceId': 'n',
                    'extCps': [
                        {'cpdId': 'CP1', 'cpConfig': [{'linkPortId': 'p'}]}
                    ],
                }
            ]
        },
    )
    assert resp.status_int == 409
    assert 'CHANGE_EXT_CONN is not supported' in json_of(resp)['detail']
    assert db.op_list() == [] and rpc.calls == []
