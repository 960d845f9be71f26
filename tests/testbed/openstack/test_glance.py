"""Unit tests for the local cloud's image service (Glance v2's API)."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

from vnfm_testbed.openstack import glance


class Client:
    """Calls the WSGI app as one project would through auth_token."""

    def __init__(self, app: glance.App, project: str = 'p1') -> None:
        self.app, self.project = app, project

    def call(
        self, method: str, path: str, body: bytes = b'', query: str = ''
    ) -> tuple[str, Any]:
        got: dict[str, Any] = {}
        environ = {
            'REQUEST_METHOD': method,
            'PATH_INFO': path,
            'QUERY_STRING': query,
            'CONTENT_LENGTH': str(len(body)),
            'wsgi.input': io.BytesIO(body),
            'wsgi.url_scheme': 'http',
            'HTTP_HOST': '127.0.0.1:9292',
            'HTTP_X_PROJECT_ID': self.project,
        }
        out = b''.join(
            self.app(environ, lambda s, h: got.update(status=s, headers=h))
        )
        kinds = dict(got['headers']).get('Content-Type')
        data = json.loads(out) if kinds == 'application/json' else out
        return got['status'], data

    def create(self, **fields: Any) -> dict[str, Any]:
        status, image = self.call(
            'POST', '/v2/images', json.dumps(fields).encode()
        )
        assert status == '201 Created', image
        return dict(image)


def test_upload_makes_the_image_active_with_its_checksums(
    tmp_path: Path,
) -> None:
    client = Client(glance.App(tmp_path))
    image = client.create(
        name='img', disk_format='qcow2', container_format='bare'
    )
    assert image['status'] == 'queued'

    data = b'an image' * 1000
    status, _ = client.call('PUT', f'/v2/images/{image["id"]}/file', data)
    _, shown = client.call('GET', f'/v2/images/{image["id"]}')
    _, downloaded = client.call('GET', f'/v2/images/{image["id"]}/file')

    assert status == '204 No Content'
    assert shown['status'] == 'active'
    assert shown['size'] == len(data)
    assert shown['checksum'] == hashlib.md5(data).hexdigest()  # noqa: S324
    assert shown['os_hash_algo'] == 'sha512'
    assert shown['os_hash_value'] == hashlib.sha512(data).hexdigest()
    assert downloaded == data


def test_a_second_upload_is_a_conflict(tmp_path: Path) -> None:
    client = Client(glance.App(tmp_path))
    image = client.create(name='img')
    client.call('PUT', f'/v2/images/{image["id"]}/file', b'a')

    status, body = client.call('PUT', f'/v2/images/{image["id"]}/file', b'b')

    assert status == '409 Conflict'
    assert 'active' in body['message']


def test_list_filters_by_field_and_project(tmp_path: Path) -> None:
    app = glance.App(tmp_path)
    mine, theirs = Client(app, 'p1'), Client(app, 'p2')
    kept = mine.create(name='a', img_key='x')
    mine.create(name='b')
    theirs.create(name='a')
    theirs.create(name='pub', visibility='public')

    _, by_name = mine.call('GET', '/v2/images', query='name=a')
    _, by_prop = mine.call('GET', '/v2/images', query='img_key=x')
    _, every = mine.call('GET', '/v2/images')

    assert [i['id'] for i in by_name['images']] == [kept['id']]
    assert [i['id'] for i in by_prop['images']] == [kept['id']]
    assert sorted(i['name'] for i in every['images']) == ['a', 'b', 'pub']


def test_another_projects_image_is_not_found(tmp_path: Path) -> None:
    app = glance.App(tmp_path)
    image = Client(app, 'p2').create(name='a')

    status, _ = Client(app, 'p1').call('DELETE', f'/v2/images/{image["id"]}')

    assert status == '404 Not Found'


def test_delete_removes_record_and_data(tmp_path: Path) -> None:
    client = Client(glance.App(tmp_path))
    image = client.create(name='img')
    client.call('PUT', f'/v2/images/{image["id"]}/file', b'data')

    status, _ = client.call('DELETE', f'/v2/images/{image["id"]}')

    assert status == '204 No Content'
    assert list((tmp_path / glance.STORE).iterdir()) == []
    assert client.call('GET', f'/v2/images/{image["id"]}')[0] == (
        '404 Not Found'
    )


def test_read_only_fields_are_refused(tmp_path: Path) -> None:
    client = Client(glance.App(tmp_path))

    status, body = client.call(
        'POST', '/v2/images', json.dumps({'status': 'active'}).encode()
    )

    assert status == '403 Forbidden'
    assert 'status' in body['message']
    assert glance.records(tmp_path) == []


def test_patch_sets_and_removes_properties(tmp_path: Path) -> None:
    client = Client(glance.App(tmp_path))
    image = client.create(name='img', old='1')
    ops = [
        {'op': 'add', 'path': '/new', 'value': '2'},
        {'op': 'remove', 'path': '/old'},
    ]

    _, patched = client.call(
        'PATCH', f'/v2/images/{image["id"]}', json.dumps(ops).encode()
    )

    assert patched['new'] == '2'
    assert 'old' not in patched


def test_root_lists_the_v2_api(tmp_path: Path) -> None:
    status, body = Client(glance.App(tmp_path)).call('GET', '/')

    assert status == '300 Multiple Choices'
    assert body['versions'][0]['links'][0]['href'] == (
        'http://127.0.0.1:9292/v2/'
    )


def test_paging_follows_next(tmp_path: Path) -> None:
    client = Client(glance.App(tmp_path))
    made = [client.create(name=f'i{n}')['id'] for n in range(3)]

    _, first = client.call('GET', '/v2/images', query='limit=2')
    query = first['next'].split('?', 1)[1]
    _, second = client.call('GET', '/v2/images', query=query)

    seen = [i['id'] for i in first['images'] + second['images']]
    assert sorted(seen) == sorted(made)
    assert 'next' not in second


def test_tags_are_added_removed_and_filtered_one_at_a_time(
    tmp_path: Path,
) -> None:
    client = Client(glance.App(tmp_path))
    image = client.create(name='img', tags=['keep'])
    path = f'/v2/images/{image["id"]}/tags'

    client.call('PUT', f'{path}/user%3Aa')
    client.call('PUT', f'{path}/user%3Ab')
    client.call('DELETE', f'{path}/user%3Aa')
    gone = client.call('DELETE', f'{path}/user%3Aa')[0]
    _, tagged = client.call('GET', '/v2/images', query='tag=user%3Ab')

    assert client.call('GET', f'/v2/images/{image["id"]}')[1]['tags'] == [
        'keep',
        'user:b',
    ]
    assert gone == '404 Not Found'
    assert [i['id'] for i in tagged['images']] == [image['id']]
