"""/vnfpkgm/v1/vnf_packages: create, list, show, modify, delete."""

from __future__ import annotations

import pytest

from tests.unit.server.conftest import identity
from tests.unit.server.conftest import json_of
from tests.unit.server.conftest import make_instance
from tests.unit.server.conftest import make_package
from vnfm.conf import CONF
from vnfm.db import api as db


def test_create_show_list_delete(client):
    resp = client.pkg('POST', '/vnf_packages', {'userDefinedData': {'k': 'v'}})
    assert resp.status_int == 201
    body = json_of(resp)
    assert resp.headers['Location'].endswith(body['id'])
    assert body['onboardingState'] == 'CREATED'
    assert body['operationalState'] == 'DISABLED'
    assert body['usageState'] == 'NOT_IN_USE'
    assert body['userDefinedData'] == {'k': 'v'}
    assert set(body['_links']) == {'self', 'vnfd', 'packageContent'}
    shown = json_of(client.pkg('GET', f'/vnf_packages/{body["id"]}'))
    assert shown == body
    listed = json_of(client.pkg('GET', '/vnf_packages'))
    assert [p['id'] for p in listed] == [body['id']]
    assert 'userDefinedData' not in listed[0]  # excluded by default
    resp = client.pkg('DELETE', f'/vnf_packages/{body["id"]}')
    assert resp.status_int == 204 and resp.body == b''
    assert client.pkg('GET', f'/vnf_packages/{body["id"]}').status_int == 404


def test_create_without_body(client):
    resp = client.request('POST', '/vnfpkgm/v1/vnf_packages')
    assert resp.status_int == 201


def test_list_filter_and_all_fields(client):
    make_package('a')
    make_package('b', operational='DISABLED')
    resp = client.pkg(
        'GET', '/vnf_packages?filter=(eq,operationalState,DISABLED)&all_fields'
    )
    body = json_of(resp)
    assert [p['vnfdId'] for p in body] == ['b']
    resp = client.pkg('GET', '/vnf_packages?filter=(eq,nope,1)')
    assert resp.status_int == 400


def test_paging(client):
    CONF.set_override('vnf_package_page_size', 1, group='api')
    try:
        make_package('a')
        make_package('b')
        resp = client.pkg('GET', '/vnf_packages')
        assert len(json_of(resp)) == 1
        link = resp.headers['Link']
        url = link[link.index('<') + 1 : link.index('>')]
        assert link.endswith('rel="next"')
        resp = client.request('GET', url.replace('http://localhost', ''))
        assert len(json_of(resp)) == 1 and 'Link' not in resp.headers
    finally:
        CONF.clear_override('vnf_package_page_size', group='api')


def test_patch_operational_state(client):
    pkg = make_package()
    resp = client.pkg(
        'PATCH',
        f'/vnf_packages/{pkg["id"]}',
        {'operationalState': 'DISABLED'},
        content_type='application/merge-patch+json',
    )
    assert resp.status_int == 200
    assert json_of(resp) == {'operationalState': 'DISABLED'}
    assert db.package_get(pkg['id'])['operational_state'] == 'DISABLED'
    resp = client.pkg(
        'PATCH', f'/vnf_packages/{pkg["id"]}', {'operationalState': 'DISABLED'}
    )
    assert resp.status_int == 409


def test_patch_user_data_is_merged(client):
    pkg = make_package(user_defined_data={'a': '1', 'b': '2'})
    resp = client.pkg(
        'PATCH',
        f'/vnf_packages/{pkg["id"]}',
        {'userDefinedData': {'b': None, 'c': '3'}},
    )
    assert resp.status_int == 200
    assert db.package_get(pkg['id'])['user_defined_data'] == {
        'a': '1',
        'c': '3',
    }


def test_patch_state_of_not_onboarded_is_409(client):
    pkg = make_package(state='CREATED', operational='DISABLED')
    resp = client.pkg(
        'PATCH', f'/vnf_packages/{pkg["id"]}', {'operationalState': 'ENABLED'}
    )
    assert resp.status_int == 409


def test_patch_nothing_is_400(client):
    pkg = make_package()
    resp = client.pkg('PATCH', f'/vnf_packages/{pkg["id"]}', {'x': 1})
    assert resp.status_int == 400


@pytest.mark.parametrize(
    'values,status',
    [
        ({'operational': 'ENABLED'}, 409),
        ({'operational': 'DISABLED', 'usage': 'IN_USE'}, 409),
        ({'operational': 'DISABLED'}, 204),
        ({'state': 'PROCESSING', 'operational': 'DISABLED'}, 409),
        ({'state': 'ERROR', 'operational': 'DISABLED'}, 204),
    ],
)
def test_delete_rules(client, values, status):
    pkg = make_package(**values)
    resp = client.pkg('DELETE', f'/vnf_packages/{pkg["id"]}')
    assert resp.status_int == status, resp.body


def test_delete_used_package_is_409(client):
    pkg = make_package(operational='DISABLED')
    make_instance(pkg)
    resp = client.pkg('DELETE', f'/vnf_packages/{pkg["id"]}')
    assert resp.status_int == 409
    assert 'used by 1' in json_of(resp)['detail']


def test_packages_belong_to_their_project(keystone_client):
    member_a = identity('pa', 'member', 'reader')
    member_b = identity('pb', 'member', 'reader')
    resp = keystone_client.pkg('POST', '/vnf_packages', {}, headers=member_a)
    created = json_of(resp)
    path = f'/vnf_packages/{created["id"]}'
    assert db.package_get(created['id'])['project_id'] == 'pa'

    listed = json_of(
        keystone_client.pkg('GET', '/vnf_packages', headers=member_b)
    )
    assert listed == []
    for method, body in (('GET', None), ('PATCH', {'userDefinedData': {}})):
        resp = keystone_client.pkg(method, path, body, headers=member_b)
        assert resp.status_int == 404
    resp = keystone_client.pkg('DELETE', path, headers=member_b)
    assert resp.status_int == 404
    resp = keystone_client.pkg('GET', path, headers=member_a)
    assert resp.status_int == 200
    admin = identity('padmin', 'admin', 'member', 'reader')
    listed = json_of(
        keystone_client.pkg('GET', '/vnf_packages', headers=admin)
    )
    assert [p['id'] for p in listed] == [created['id']]
