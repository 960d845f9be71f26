"""The task resources of /vnflcm/v2/vnf_instances/{id} (and v1's):
instantiate, terminate, scale, scale_to_level, heal, operate,
change_vnfpkg: what each checks before recording an op, and the op it
records and starts."""

from __future__ import annotations

import pytest

from tests.unit.server.conftest import json_of
from tests.unit.server.conftest import make_instance
from tests.unit.server.conftest import make_op
from tests.unit.server.conftest import make_package
from tests.unit.server.controllers.test_vnf_instances import VIM
from vnfm.db import api as db

V1 = {'Version': '1.3.0'}


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
