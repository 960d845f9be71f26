"""vnfm.clients.openstack.glance: openstacksdk against a Glance v2 API
(the local cloud's, served on loopback)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from wsgiref import simple_server

import pytest
from keystoneauth1 import session as ks_session
from keystoneauth1 import token_endpoint
from openstack import connection as sdk_connection

from vnfm.clients import openstack
from vnfm.clients.openstack import glance as glance_mod
from vnfm_testbed.openstack import glance as local_glance

DATA = b'\x00qcow image' * 100


class _Quiet(simple_server.WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:
        return


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, local_glance.App]]:
    app = local_glance.App(tmp_path)
    server = simple_server.make_server(
        '127.0.0.1', 0, lambda e, s: app(e, s), handler_class=_Quiet
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f'http://127.0.0.1:{server.server_port}', app
    finally:
        server.shutdown()
        server.server_close()


def _glance(url: str) -> glance_mod.Glance:
    client = glance_mod.Glance.__new__(glance_mod.Glance)
    client.total = 30
    client.sdk = sdk_connection.Connection(
        session=ks_session.Session(
            auth=token_endpoint.Token(f'{url}/v2', 'tok')
        ),
        app_name='vnfm-test',
    )
    client.images = client.sdk.image
    return client


def _data(**kw: Any) -> openstack.ImageData:
    fields: dict[str, Any] = {
        'name': 'img-1',
        'data': DATA,
        'disk_format': 'qcow2',
        'container_format': 'bare',
        'properties': {'vnfm_managed': 'true'},
        'tags': ('vnfm-instance:a',),
    }
    return openstack.ImageData(**(fields | kw))


def test_upload_makes_an_active_image_with_the_files_checksums(
    served: tuple[str, local_glance.App],
) -> None:
    glance = _glance(served[0])

    image = glance.upload(_data(), time.monotonic() + 30)

    assert image.status == 'active'
    assert image.checksum == _data().md5
    assert image.hash_value == _data().sha512
    assert image.tags == ('vnfm-instance:a',)
    assert image.properties['vnfm_managed'] == 'true'
    assert [i.id for i in glance.find('img-1')] == [image.id]


def test_an_image_stored_with_other_data_is_deleted_and_fails(
    served: tuple[str, local_glance.App],
) -> None:
    url, app = served
    store = app.images.upload

    def corrupt(image: dict[str, Any], stream: Any) -> dict[str, Any]:
        return store(image, [b''.join(stream) + b'!'])

    app.images.upload = corrupt  # type: ignore[method-assign]
    glance = _glance(url)

    with pytest.raises(openstack.OpenStackError, match='checksum'):
        glance.upload(_data(), time.monotonic() + 30)

    assert glance.find('img-1') == []


def test_tags_are_added_and_removed_one_by_one(
    served: tuple[str, local_glance.App],
) -> None:
    glance = _glance(served[0])
    image = glance.upload(_data(), time.monotonic() + 30)

    glance.add_tag(image.id, 'vnfm-instance:b')
    glance.remove_tag(image.id, 'vnfm-instance:a')
    glance.remove_tag(image.id, 'vnfm-instance:a')  # gone: nothing

    assert glance.get(image.id).tags == ('vnfm-instance:b',)
    assert [i.id for i in glance.find('img-1', 'vnfm-instance:b')] == [
        image.id
    ]


def test_delete_and_a_missing_image(
    served: tuple[str, local_glance.App],
) -> None:
    glance = _glance(served[0])
    image = glance.upload(_data(), time.monotonic() + 30)

    glance.delete(image.id)
    glance.delete(image.id)  # gone: nothing

    with pytest.raises(openstack.ImageNotFound):
        glance.get(image.id)
