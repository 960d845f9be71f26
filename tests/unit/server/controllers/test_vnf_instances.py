"""/vnflcm/v2/vnf_instances and its task resources."""

from __future__ import annotations

import socket

import pytest

from tests.unit.objects import test_lcm_params
from tests.unit.server.conftest import identity
from tests.unit.server.conftest import json_of
from tests.unit.server.conftest import make_instance
from tests.unit.server.conftest import make_op
from tests.unit.server.conftest import make_package
from vnfm.db import api as db

V1 = {'Version': '1.3.0'}
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


def test_instantiate_records_op_then_casts(client, rpc):
    inst = make_instance(make_package())
    resp = client.lcm(
        'POST',
        f'/vnf_instances/{inst["id"]}/instantiate',
        {'flavourId': 'simple', 'vimConnectionInfo': VIM},
    )
    assert resp.status_int == 202 and resp.body == b''
    op_id = resp.headers['Location'].rsplit('/', 1)[1]
    assert resp.headers['Location'] == (
        f'http://localhost/vnflcm/v2/vnf_lcm_op_occs/{op_id}'
    )
    op = db.op_get(op_id)
    assert op['operation'] == 'INSTANTIATE'
    assert op['operation_state'] == 'STARTING'
    assert 'SECRET' not in str(op['operation_params'])
    assert rpc.calls == [('start_lcm_op', (op_id,))]
    again = client.lcm(
        'POST',
        f'/vnf_instances/{inst["id"]}/instantiate',
        {'flavourId': 'simple'},
    )
    assert again.status_int == 409


def test_instantiate_unknown_flavour_or_level(client):
    inst = make_instance(make_package())
    path = f'/vnf_instances/{inst["id"]}/instantiate'
    resp = client.lcm('POST', path, {'flavourId': 'big'})
    assert resp.status_int == 422 and 'simple' in json_of(resp)['detail']
    resp = client.lcm(
        'POST', path, {'flavourId': 'simple', 'instantiationLevelId': 'nope'}
    )
    assert resp.status_int == 422


def test_instantiate_of_instantiated_is_409(client):
    inst = make_instance(make_package(), state='INSTANTIATED')
    resp = client.lcm(
        'POST',
        f'/vnf_instances/{inst["id"]}/instantiate',
        {'flavourId': 'simple'},
    )
    assert resp.status_int == 409


@pytest.mark.parametrize(
    'task,body,operation',
    [
        (
            'terminate',
            {'terminationType': 'GRACEFUL', 'gracefulTerminationTimeout': 10},
            'TERMINATE',
        ),
        ('scale', {'type': 'SCALE_OUT', 'aspectId': 'worker'}, 'SCALE'),
        ('heal', {'vnfcInstanceId': ['c1'], 'cause': 'x'}, 'HEAL'),
        (
            'change_vnfpkg',
            {'vnfdId': 'vnfd-1', 'additionalParams': {}},
            'CHANGE_VNFPKG',
        ),
    ],
)
def test_tasks_on_instantiated(client, rpc, task, body, operation):
    info = {
        'flavourId': 'simple',
        'vnfState': 'STARTED',
        'scaleStatus': [{'aspectId': 'worker', 'scaleLevel': 0}],
        'maxScaleLevels': [{'aspectId': 'worker', 'scaleLevel': 2}],
        'vnfcInfo': [{'id': 'c1', 'vduId': 'VDU1'}],
    }
    inst = make_instance(
        make_package(), state='INSTANTIATED', instantiated_vnf_info=info
    )
    resp = client.lcm('POST', f'/vnf_instances/{inst["id"]}/{task}', body)
    assert resp.status_int == 202, resp.body
    op = db.op_get(resp.headers['Location'].rsplit('/', 1)[1])
    assert op['operation'] == operation
    assert len(rpc.calls) == 1


@pytest.mark.parametrize(
    'task,body',
    [
        ('terminate', {'terminationType': 'FORCEFUL'}),
        ('scale', {'type': 'SCALE_IN', 'aspectId': 'a'}),
        ('heal', {}),
    ],
)
def test_tasks_need_instantiated(client, task, body):
    inst = make_instance(make_package())
    resp = client.lcm('POST', f'/vnf_instances/{inst["id"]}/{task}', body)
    assert resp.status_int == 409


@pytest.mark.parametrize(
    'body,words',
    [
        ({'type': 'SCALE_OUT', 'aspectId': 'nope'}, 'not a scaling aspect'),
        ({'type': 'SCALE_IN', 'aspectId': 'worker'}, 'outside'),
        (
            {'type': 'SCALE_OUT', 'aspectId': 'worker', 'numberOfSteps': 3},
            'outside',
        ),
    ],
)
def test_scale_checks_levels(client, body, words):
    info = {
        'scaleStatus': [{'aspectId': 'worker', 'scaleLevel': 0}],
        'maxScaleLevels': [{'aspectId': 'worker', 'scaleLevel': 2}],
    }
    inst = make_instance(
        make_package(), state='INSTANTIATED', instantiated_vnf_info=info
    )
    resp = client.lcm('POST', f'/vnf_instances/{inst["id"]}/scale', body)
    assert resp.status_int == 400 and words in json_of(resp)['detail']


def test_heal_unknown_vnfc_is_400(client):
    inst = make_instance(
        make_package(),
        state='INSTANTIATED',
        instantiated_vnf_info={'vnfcInfo': []},
    )
    resp = client.lcm(
        'POST', f'/vnf_instances/{inst["id"]}/heal', {'vnfcInstanceId': ['zz']}
    )
    assert resp.status_int == 400


def test_one_op_at_a_time(client):
    inst = make_instance(make_package(), state='INSTANTIATED')
    make_op(inst, state='PROCESSING', operation='HEAL')
    resp = client.lcm(
        'POST',
        f'/vnf_instances/{inst["id"]}/terminate',
        {'terminationType': 'FORCEFUL'},
    )
    assert resp.status_int == 409
    assert 'only one operation' in json_of(resp)['detail']


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


_LEVELS_VNFD = {
    'vnfd_id': 'vnfd-1',
    'flavours': {
        'simple': {
            'flavour_id': 'simple',
            'scaling_aspects': {
                'worker': {'max_scale_level': 2},
                'db': {'max_scale_level': 1},
            },
            'instantiation_levels': {
                'small': {'scale_info': {'worker': {'scale_level': 0}}},
                'big': {
                    'scale_info': {
                        'worker': {'scale_level': 2},
                        'db': {'scale_level': 1},
                    }
                },
            },
        }
    },
}


def v1(client, method: str, path: str, body=None):
    return client.request(method, '/vnflcm/v1' + path, body, headers=V1)


def _leveled_instance(**values) -> dict:
    info = {
        'flavourId': 'simple',
        'vnfState': 'STARTED',
        'scaleStatus': [
            {'aspectId': 'worker', 'scaleLevel': 0},
            {'aspectId': 'db', 'scaleLevel': 0},
        ],
    }
    return make_instance(
        make_package(vnfd=_LEVELS_VNFD),
        state='INSTANTIATED',
        instantiated_vnf_info=info,
        **values,
    )


@pytest.mark.parametrize(
    'body',
    [
        {'instantiationLevelId': 'big'},
        {
            'scaleInfo': [{'aspectId': 'worker', 'scaleLevel': 1}],
            'additionalParams': {'a': 1},
        },
    ],
)
@pytest.mark.parametrize('version', ['v1', 'v2'])
def test_scale_to_level_starts_an_op(client, rpc, body, version):
    inst = _leveled_instance()
    path = f'/vnf_instances/{inst["id"]}/scale_to_level'
    resp = (
        v1(client, 'POST', path, body)
        if version == 'v1'
        else client.lcm('POST', path, body)
    )
    assert resp.status_int == 202, resp.body
    op = db.op_get(resp.headers['Location'].rsplit('/', 1)[1])
    assert op['operation'] == 'SCALE_TO_LEVEL'
    assert op['operation_params'] == body
    assert rpc.calls == [('start_lcm_op', (op['id'],))]


@pytest.mark.parametrize(
    'body,status,words',
    [
        ({'instantiationLevelId': 'huge'}, 422, 'instantiationLevelId huge'),
        (
            {'scaleInfo': [{'aspectId': 'nope', 'scaleLevel': 1}]},
            400,
            'aspectId nope',
        ),
        (
            {'scaleInfo': [{'aspectId': 'db', 'scaleLevel': 2}]},
            400,
            'outside 0..1',
        ),
        ({}, 400, ''),
        (
            {
                'instantiationLevelId': 'big',
                'scaleInfo': [{'aspectId': 'db', 'scaleLevel': 1}],
            },
            400,
            '',
        ),
        ({'scaleInfo': [{'aspectId': 'db', 'scaleLevel': -1}]}, 400, ''),
    ],
)
def test_scale_to_level_checks_before_recording(
    client, rpc, body, status, words
):
    inst = _leveled_instance()
    resp = client.lcm(
        'POST', f'/vnf_instances/{inst["id"]}/scale_to_level', body
    )
    assert resp.status_int == status, resp.body
    assert words in json_of(resp)['detail']
    assert db.op_list() == [] and rpc.calls == []


def test_scale_to_level_needs_instantiated(client):
    inst = make_instance(make_package(vnfd=_LEVELS_VNFD))
    resp = client.lcm(
        'POST',
        f'/vnf_instances/{inst["id"]}/scale_to_level',
        {'instantiationLevelId': 'big'},
    )
    assert resp.status_int == 409


@pytest.mark.parametrize(
    'body',
    [
        {'changeStateTo': 'STOPPED'},
        {
            'changeStateTo': 'STOPPED',
            'stopType': 'GRACEFUL',
            'gracefulStopTimeout': 5,
        },
        {'changeStateTo': 'STOPPED', 'stopType': 'FORCEFUL'},
    ],
)
@pytest.mark.parametrize('version', ['v1', 'v2'])
def test_operate_starts_an_op(client, rpc, body, version):
    inst = _leveled_instance()
    path = f'/vnf_instances/{inst["id"]}/operate'
    resp = (
        v1(client, 'POST', path, body)
        if version == 'v1'
        else client.lcm('POST', path, body)
    )
    assert resp.status_int == 202, resp.body
    op = db.op_get(resp.headers['Location'].rsplit('/', 1)[1])
    assert (op['operation'], op['operation_params']) == ('OPERATE', body)
    assert rpc.calls == [('start_lcm_op', (op['id'],))]


@pytest.mark.parametrize(
    'body,status,words',
    [
        ({'changeStateTo': 'STARTED'}, 409, 'already STARTED'),
        ({'changeStateTo': 'PAUSED'}, 400, ''),
        ({}, 400, ''),
        (
            {
                'changeStateTo': 'STOPPED',
                'stopType': 'FORCEFUL',
                'gracefulStopTimeout': 3,
            },
            400,
            'only to stopType GRACEFUL',
        ),
        ({'changeStateTo': 'STOPPED', 'gracefulStopTimeout': -1}, 400, ''),
    ],
)
def test_operate_checks_before_recording(client, rpc, body, status, words):
    inst = _leveled_instance()
    resp = client.lcm('POST', f'/vnf_instances/{inst["id"]}/operate', body)
    assert resp.status_int == status, resp.body
    assert words in json_of(resp)['detail']
    assert db.op_list() == [] and rpc.calls == []


def test_operate_needs_instantiated(client):
    inst = make_instance(make_package())
    resp = client.lcm(
        'POST',
        f'/vnf_instances/{inst["id"]}/operate',
        {'changeStateTo': 'STOPPED'},
    )
    assert resp.status_int == 409


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


_CANNOT = 'Aspect worker scales VDU VDU1, which the top Heat template ...'


def _unscalable_instance() -> dict:
    inst = _leveled_instance()
    info = dict(
        inst['instantiated_vnf_info'],
        maxScaleLevels=[
            {'aspectId': 'worker', 'scaleLevel': 2},
            {'aspectId': 'db', 'scaleLevel': 1},
        ],
        metadata={'unscalableAspects': {'worker': _CANNOT}},
    )
    return db.instance_update(inst['id'], {'instantiated_vnf_info': info})


def test_scale_of_an_aspect_the_driver_cannot_scale_is_422(client, rpc):
    inst = _unscalable_instance()

    resp = client.lcm(
        'POST',
        f'/vnf_instances/{inst["id"]}/scale',
        {'type': 'SCALE_OUT', 'aspectId': 'worker', 'numberOfSteps': 2},
    )

    assert resp.status_int == 422, resp.body
    assert json_of(resp)['detail'] == _CANNOT
    assert db.op_list() == [] and rpc.calls == []
    other = client.lcm(
        'POST',
        f'/vnf_instances/{inst["id"]}/scale',
        {'type': 'SCALE_OUT', 'aspectId': 'db'},
    )
    assert other.status_int == 202, other.body


def test_scale_to_level_moving_an_unscalable_aspect_is_422(client, rpc):
    inst = _unscalable_instance()
    path = f'/vnf_instances/{inst["id"]}/scale_to_level'

    resp = client.lcm(
        'POST', path, {'scaleInfo': [{'aspectId': 'worker', 'scaleLevel': 1}]}
    )

    assert resp.status_int == 422 and json_of(resp)['detail'] == _CANNOT
    assert db.op_list() == [] and rpc.calls == []
