"""/vnfpkgm/v1/vnf_packages and its content."""

from __future__ import annotations

import io
import zipfile

import pytest

from tests.unit.server.conftest import csar_bytes
from tests.unit.server.conftest import identity
from tests.unit.server.conftest import json_of
from tests.unit.server.conftest import make_instance
from tests.unit.server.conftest import make_package
from vnfm.common import crypto
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


def test_upload_content(client, rpc):
    pkg = json_of(client.pkg('POST', '/vnf_packages', {}))
    data = csar_bytes()
    resp = client.pkg(
        'PUT',
        f'/vnf_packages/{pkg["id"]}/package_content',
        raw=data,
        content_type='application/zip',
    )
    assert resp.status_int == 202 and resp.body == b''
    row = db.package_get(pkg['id'])
    assert row['onboarding_state'] == 'PROCESSING'
    assert db.package_content_get(pkg['id']) == data
    assert rpc.calls == [('onboard_package', (pkg['id'],))]
    again = client.pkg(
        'PUT',
        f'/vnf_packages/{pkg["id"]}/package_content',
        raw=data,
        content_type='application/zip',
    )
    assert again.status_int == 409


def test_upload_rejects_non_zip_and_oversize(client):
    pkg = json_of(client.pkg('POST', '/vnf_packages', {}))
    path = f'/vnf_packages/{pkg["id"]}/package_content'
    assert (
        client.pkg(
            'PUT', path, raw=b'hello', content_type='application/zip'
        ).status_int
        == 400
    )
    assert (
        client.pkg(
            'PUT', path, raw=csar_bytes(), content_type='text/plain'
        ).status_int
        == 415
    )
    CONF.set_override('max_size', 1024, group='vnf_package')
    try:
        resp = client.pkg(
            'PUT',
            path,
            raw=b'PK\x03\x04' + b'x' * 2000,
            content_type='application/zip',
        )
        assert resp.status_int == 413
    finally:
        CONF.clear_override('max_size', group='vnf_package')
    assert db.package_get(pkg['id'])['onboarding_state'] == 'CREATED'


def test_upload_from_uri_seals_the_password_and_casts_the_id(client, rpc):
    pkg = json_of(client.pkg('POST', '/vnf_packages', {}))
    resp = client.pkg(
        'POST',
        f'/vnf_packages/{pkg["id"]}/package_content/upload_from_uri',
        {
            'addressInformation': 'http://u:s3cret@example.com/p.zip',
            'userName': 'user',
            'password': 'pa55word',
        },
    )
    assert resp.status_int == 202
    row = db.package_get(pkg['id'])
    assert row['onboarding_state'] == 'UPLOADING'
    source = dict(row['upload_source'])
    assert crypto.decrypt(source.pop(crypto.SEALED)) == {
        'password': 'pa55word'
    }
    assert source == {
        'addressInformation': 'http://example.com/p.zip',
        'userName': 'user',
    }
    assert 's3cret' not in str(row) and 'pa55word' not in str(row)
    # The cast (a message on a durable queue) carries the id only.
    assert rpc.calls == [('fetch_package', (pkg['id'],))]
    shown = client.pkg('GET', f'/vnf_packages/{pkg["id"]}')
    assert crypto.SEALED not in shown.text


def test_upload_from_uri_password_in_the_uri_is_sealed(client, rpc):
    pkg = json_of(client.pkg('POST', '/vnf_packages', {}))
    client.pkg(
        'POST',
        f'/vnf_packages/{pkg["id"]}/package_content/upload_from_uri',
        {'addressInformation': 'http://u:s3cret@example.com/p.zip'},
    )
    source = db.package_get(pkg['id'])['upload_source']
    assert source['userName'] == 'u'
    assert crypto.decrypt(source[crypto.SEALED]) == {'password': 's3cret'}


def test_upload_from_uri_scheme_must_be_allowed(client):
    pkg = json_of(client.pkg('POST', '/vnf_packages', {}))
    resp = client.pkg(
        'POST',
        f'/vnf_packages/{pkg["id"]}/package_content/upload_from_uri',
        {'addressInformation': 'file:///etc/passwd'},
    )
    assert resp.status_int == 400
    assert "'file'" in json_of(resp)['detail']


def test_download_content_and_range(client):
    data = csar_bytes()
    pkg = make_package(content=data)
    path = f'/vnf_packages/{pkg["id"]}/package_content'
    resp = client.pkg('GET', path, headers={'Accept': 'application/zip'})
    assert resp.status_int == 200 and resp.body == data
    assert resp.headers['Content-Type'] == 'application/zip'
    resp = client.pkg('GET', path, headers={'Range': 'bytes=0-3'})
    assert resp.status_int == 206 and resp.body == data[:4]


def test_download_of_not_onboarded_is_409(client):
    pkg = make_package(state='CREATED')
    resp = client.pkg('GET', f'/vnf_packages/{pkg["id"]}/package_content')
    assert resp.status_int == 409


def _fake_csar(
    monkeypatch, files, entry='Definitions/vnfd.yaml', artifacts=()
):
    from vnfm import csar

    class Art:
        def __init__(self, path):
            self.path = path

    class Fake:
        pass

    fake = Fake()
    fake.files = files
    fake.entry_definitions = entry
    fake.artifacts = [Art(a) for a in artifacts]
    monkeypatch.setattr(csar, 'read_csar', lambda data, limits: fake)


def test_vnfd_text_and_zip(client, monkeypatch):
    files = {
        'TOSCA-Metadata/TOSCA.meta': b'meta',
        'Definitions/vnfd.yaml': b'vnfd: 1\n',
        'Scripts/run.sh': b'#!/bin/sh\n',
    }
    _fake_csar(monkeypatch, files)
    pkg = make_package(content=csar_bytes())
    path = f'/vnf_packages/{pkg["id"]}/vnfd'
    resp = client.pkg('GET', path, headers={'Accept': 'text/plain'})
    assert resp.status_int == 200, resp.body
    assert resp.headers['Content-Type'] == 'text/plain'
    assert resp.body == b'vnfd: 1\n'
    resp = client.pkg(
        'GET', path, headers={'Accept': 'text/plain,application/zip'}
    )
    assert resp.headers['Content-Type'] == 'application/zip'
    names = zipfile.ZipFile(io.BytesIO(resp.body)).namelist()
    assert names == ['Definitions/vnfd.yaml', 'TOSCA-Metadata/TOSCA.meta']
    resp = client.pkg('GET', path, headers={'Accept': 'application/json'})
    assert resp.status_int == 406


def test_vnfd_of_several_files_as_text_is_406(client, monkeypatch):
    _fake_csar(
        monkeypatch,
        {'Definitions/a.yaml': b'a', 'Definitions/vnfd.yaml': b'b'},
    )
    pkg = make_package(content=csar_bytes())
    resp = client.pkg(
        'GET',
        f'/vnf_packages/{pkg["id"]}/vnfd',
        headers={'Accept': 'text/plain'},
    )
    assert resp.status_int == 406


def test_artifact(client, monkeypatch):
    _fake_csar(
        monkeypatch,
        {'Scripts/run.sh': b'#!/bin/sh\n', 'Definitions/vnfd.yaml': b'x'},
        artifacts=['Scripts/run.sh'],
    )
    pkg = make_package(content=csar_bytes())
    resp = client.pkg(
        'GET',
        f'/vnf_packages/{pkg["id"]}/artifacts/Scripts/run.sh',
        headers={'Accept': 'application/json'},
    )
    assert resp.status_int == 200
    assert resp.headers['Content-Type'] == 'application/octet-stream'
    assert resp.body == b'#!/bin/sh\n'
    for missing in ('Scripts/nope.sh', 'Definitions/vnfd.yaml'):
        resp = client.pkg(
            'GET', f'/vnf_packages/{pkg["id"]}/artifacts/{missing}'
        )
        assert resp.status_int == 404


def test_upload_from_uri_with_a_query_seals_the_uri(client, rpc):
    pkg = json_of(client.pkg('POST', '/vnf_packages', {}))
    client.pkg(
        'POST',
        f'/vnf_packages/{pkg["id"]}/package_content/upload_from_uri',
        {'addressInformation': 'https://example.com/p.zip?X-Sig=t0ken'},
    )
    source = db.package_get(pkg['id'])['upload_source']
    assert source['addressInformation'] == 'https://example.com/p.zip'
    assert crypto.decrypt(source[crypto.SEALED]) == {
        'addressInformation': 'https://example.com/p.zip?X-Sig=t0ken'
    }


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


def test_content_of_another_projects_package_is_404(keystone_client):
    pkg = make_package(content=csar_bytes(), project_id='pa')
    other = identity('pb', 'member', 'reader')
    for suffix in ('/package_content', '/vnfd'):
        resp = keystone_client.pkg(
            'GET', f'/vnf_packages/{pkg["id"]}{suffix}', headers=other
        )
        assert resp.status_int == 404
