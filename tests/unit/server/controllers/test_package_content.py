"""A package's content on /vnfpkgm/v1: upload (body or URI, credentials
sealed), download with ranges, the VNFD as text or zip, artifacts, and
another project's content not found."""

from __future__ import annotations

import io
import zipfile

from tests.unit.server.conftest import csar_bytes
from tests.unit.server.conftest import identity
from tests.unit.server.conftest import json_of
from tests.unit.server.conftest import make_package
from vnfm.common import crypto
from vnfm.conf import CONF
from vnfm.db import api as db


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


def test_content_of_another_projects_package_is_404(keystone_client):
    pkg = make_package(content=csar_bytes(), project_id='pa')
    other = identity('pb', 'member', 'reader')
    for suffix in ('/package_content', '/vnfd'):
        resp = keystone_client.pkg(
            'GET', f'/vnf_packages/{pkg["id"]}{suffix}', headers=other
        )
        assert resp.status_int == 404
