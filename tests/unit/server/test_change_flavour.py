"""POST .../change_flavour on /vnflcm/v2 and /vnflcm/v1: what is checked
before an op is recorded, and the op that is."""

from __future__ import annotations

import pytest

from tests.unit.server.conftest import identity
from tests.unit.server.conftest import json_of
from tests.unit.server.conftest import make_instance
from tests.unit.server.conftest import make_package
from vnfm.db import api as db

V1 = {'Version': '1.3.0'}
NOOP = {'vim1': {'vimType': 'VNFM.NOOP.V_1'}}
_LEVELS = {'instantiation_level_1': {}, 'instantiation_level_2': {}}
_VNFD = {
    'vnfd_id': 'vnfd-1',
    'flavours': {
        'small': {'flavour_id': 'small', 'instantiation_levels': _LEVELS},
        'large': {'flavour_id': 'large', 'instantiation_levels': _LEVELS},
    },
}


def _instance(**values) -> dict:
    values.setdefault('state', 'INSTANTIATED')
    values.setdefault('vim_connection_info', NOOP)
    info = (
        {'flavourId': 'small', 'vnfState': 'STARTED'}
        if values['state'] == 'INSTANTIATED'
        else None
    )
    return make_instance(
        make_package(vnfd=_VNFD), instantiated_vnf_info=info, **values
    )


def _post(client, version: str, instance_id: str, body: dict):
    path = f'/vnf_instances/{instance_id}/change_flavour'
    if version == 'v1':
        return client.request('POST', '/vnflcm/v1' + path, body, headers=V1)
    return client.lcm('POST', path, body)


@pytest.mark.parametrize('version', ['v1', 'v2'])
def test_change_flavour_records_op_then_casts(client, rpc, version):
    inst = _instance()
    body = {
        'newFlavourId': 'large',
        'instantiationLevelId': 'instantiation_level_2',
        'additionalParams': {'lcm-kubernetes-def-files': ['a.yaml']},
    }
    resp = _post(client, version, inst['id'], body)
    assert resp.status_int == 202, resp.body
    op = db.op_get(resp.headers['Location'].rsplit('/', 1)[1])
    assert (op['operation'], op['operation_params']) == (
        'CHANGE_FLAVOUR',
        body,
    )
    assert op['operation_state'] == 'STARTING'
    assert rpc.calls == [('start_lcm_op', (op['id'],))]


@pytest.mark.parametrize('version', ['v1', 'v2'])
@pytest.mark.parametrize(
    'body,status,words',
    [
        (
            {'newFlavourId': 'huge'},
            422,
            'newFlavourId huge is not a flavour of VNFD vnfd-1; it has '
            'large, small.',
        ),
        (
            {'newFlavourId': 'large', 'instantiationLevelId': 'nope'},
            422,
            'instantiationLevelId nope is not a level of flavour large',
        ),
        ({'newFlavourId': 'small'}, 409, 'already has flavour small'),
        ({}, 400, 'newFlavourId'),
    ],
)
def test_change_flavour_checks_before_recording(
    client, rpc, version, body, status, words
):
    inst = _instance()
    resp = _post(client, version, inst['id'], body)
    assert resp.status_int == status, resp.body
    assert resp.content_type == 'application/problem+json'
    assert words in json_of(resp)['detail']
    assert db.op_list() == [] and rpc.calls == []


def test_change_flavour_needs_instantiated(client, rpc):
    inst = _instance(state='NOT_INSTANTIATED')
    resp = _post(client, 'v2', inst['id'], {'newFlavourId': 'large'})
    assert resp.status_int == 409
    assert 'NOT_INSTANTIATED; instantiate it first' in json_of(resp)['detail']
    assert db.op_list() == []


def test_change_flavour_on_a_vim_type_without_it_is_409(
    client, rpc, driver_lacks
):
    driver_lacks('CHANGE_FLAVOUR')
    inst = _instance()
    shown = json_of(client.lcm('GET', f'/vnf_instances/{inst["id"]}'))
    assert 'changeFlavour' not in shown['_links']
    resp = _post(client, 'v2', inst['id'], {'newFlavourId': 'large'})
    assert resp.status_int == 409
    assert json_of(resp)['detail'].startswith(
        f'CHANGE_FLAVOUR is not supported for VNF instance {inst["id"]}: '
        'no enabled infra driver runs it on vimType VNFM.NOOP.V_1'
    )
    assert db.op_list() == []


@pytest.mark.parametrize('version', ['v1', 'v2'])
def test_a_reader_cannot_change_the_flavour(keystone_client, rpc, version):
    inst = _instance(project_id='p1')
    reader = identity('p1', 'reader')
    path = f'/vnf_instances/{inst["id"]}/change_flavour'
    body = {'newFlavourId': 'large'}

    if version == 'v1':
        resp = keystone_client.request(
            'POST', '/vnflcm/v1' + path, body, headers={**V1, **reader}
        )
    else:
        resp = keystone_client.lcm('POST', path, body, headers=reader)

    assert resp.status_int == 403, resp.body
    assert 'Policy does not allow' in json_of(resp)['detail']
    assert rpc.calls == []
    assert db.op_list({'vnf_instance_id': inst['id']}) == []
