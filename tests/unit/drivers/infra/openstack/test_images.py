"""vnfm.drivers.infra.openstack.images: the package's image files in the
VIM's image service, one tag per instance using them."""

from __future__ import annotations

import dataclasses
import hashlib
import time
from typing import Any

import pytest

from vnfm.clients import openstack
from vnfm.common import exceptions
from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack import images
from vnfm.drivers.package_files import PackageFiles

FILE = 'Files/images/img.qcow2'
DATA = b'image data'
SHA256 = hashlib.sha256(DATA).hexdigest()


def _sw_image(**kw: Any) -> dict[str, Any]:
    return {
        'name': 'img',
        'file': FILE,
        'checksum': {'algorithm': 'sha-256', 'hash': SHA256},
        'disk_format': 'qcow2',
        'container_format': 'bare',
    } | kw


def _vnfd(**vdus: dict[str, Any] | None) -> dict[str, Any]:
    return {
        'vnfd_id': 'd1',
        'flavours': {
            'simple': {'vdus': {n: {'sw_image': i} for n, i in vdus.items()}}
        },
    }


def _ctx(vnfd: dict[str, Any], instance: str = 'i1') -> base.InfraContext:
    return base.InfraContext(
        operation='INSTANTIATE',
        vnf_instance={'id': instance},
        request={},
        vnfd=vnfd,
        flavour_id='simple',
        vim_connection_info={},
        package=PackageFiles('p1', {FILE: DATA}),
        deadline=time.monotonic() + 60,
    )


class FakeGlance:
    """The image service as the driver uses it."""

    def __init__(self) -> None:
        self.images: dict[str, openstack.Image] = {}
        self.uploads: list[openstack.ImageData] = []

    def __call__(self, conn: Any, total: float) -> FakeGlance:
        return self

    def add(self, image_id: str, data: bytes, **kw: Any) -> None:
        self.images[image_id] = openstack.Image(
            id=image_id,
            name=kw.pop('name', 'img'),
            status=kw.pop('status', 'active'),
            checksum=hashlib.md5(data, usedforsecurity=False).hexdigest(),
            hash_value=hashlib.sha512(data).hexdigest(),
            tags=tuple(kw.pop('tags', ())),
            properties=kw,
        )

    def find(self, name: str, tag: str | None = None) -> list[Any]:
        return [i for i in self.images.values() if i.name == name]

    def get(self, image_id: str) -> openstack.Image:
        if image_id not in self.images:
            raise openstack.ImageNotFound('gone')
        return self.images[image_id]

    def upload(self, image: openstack.ImageData, deadline: float) -> Any:
        self.uploads.append(image)
        new_id = f'up{len(self.uploads)}'
        self.add(
            new_id,
            image.data,
            name=image.name,
            tags=image.tags,
            **image.properties,
        )
        return self.images[new_id]

    def add_tag(self, image_id: str, tag: str) -> None:
        image = self.images[image_id]
        tags = (*image.tags, tag)
        self.images[image_id] = dataclasses.replace(image, tags=tags)

    def remove_tag(self, image_id: str, tag: str) -> None:
        image = self.images.get(image_id)
        if image:
            tags = tuple(t for t in image.tags if t != tag)
            self.images[image_id] = dataclasses.replace(image, tags=tags)

    def delete(self, image_id: str) -> None:
        self.images.pop(image_id, None)


@pytest.fixture
def glance(monkeypatch: pytest.MonkeyPatch) -> FakeGlance:
    fake = FakeGlance()
    monkeypatch.setattr(openstack, 'Glance', fake)
    return fake


def test_images_with_a_file_are_carried_once_by_name() -> None:
    vnfd = _vnfd(
        VDU1=_sw_image(),
        VDU2=_sw_image(),
        VDU3={'name': 'catalogued'},
        VDU4=None,
    )

    assert list(images.carried(vnfd, 'simple')) == ['img']


def test_two_files_of_one_name_are_refused() -> None:
    vnfd = _vnfd(VDU1=_sw_image(), VDU2=_sw_image(file='Files/other'))

    with pytest.raises(exceptions.OperationFailed, match='Files/other'):
        images.carried(vnfd, 'simple')


def test_a_file_that_does_not_match_its_checksum_is_refused() -> None:
    package = PackageFiles('p1', {FILE: b'changed'})

    with pytest.raises(exceptions.OperationFailed, match='sha-256') as e:
        images.checked_data(package, _sw_image())

    assert FILE in e.value.detail
    assert images.checked_data(
        PackageFiles('p1', {FILE: DATA}), _sw_image()
    ) == (DATA)


def test_instantiate_uploads_the_file_tagged_for_the_instance(
    glance: FakeGlance,
) -> None:
    used = images.ensure(_ctx(_vnfd(VDU1=_sw_image())), conn=None, work={})  # type: ignore[arg-type]

    assert used == {'img': {'id': 'up1', 'managed': True}}
    (upload,) = glance.uploads
    assert (upload.name, upload.data, upload.disk_format) == (
        'img',
        DATA,
        'qcow2',
    )
    assert glance.images['up1'].tags == ('vnfm-instance:i1',)


def test_a_second_instance_reuses_the_image_and_the_last_removes_it(
    glance: FakeGlance,
) -> None:
    vnfd = _vnfd(VDU1=_sw_image())
    first = images.ensure(_ctx(vnfd, 'i1'), conn=None, work={})  # type: ignore[arg-type]
    second = images.ensure(_ctx(vnfd, 'i2'), conn=None, work={})  # type: ignore[arg-type]

    assert first == second
    assert len(glance.uploads) == 1
    assert images.release(None, 'i1', first) == []  # type: ignore[arg-type]
    assert glance.images['up1'].tags == ('vnfm-instance:i2',)
    assert images.release(None, 'i2', second) == ['up1']  # type: ignore[arg-type]
    assert glance.images == {}


def test_an_image_of_the_vim_with_the_same_data_is_used_never_deleted(
    glance: FakeGlance,
) -> None:
    glance.add('theirs', DATA)
    glance.add('other-data', b'other')

    used = images.ensure(_ctx(_vnfd(VDU1=_sw_image())), conn=None, work={})  # type: ignore[arg-type]
    images.release(None, 'i1', used)  # type: ignore[arg-type]

    assert used == {'img': {'id': 'theirs', 'managed': False}}
    assert glance.uploads == []
    assert glance.images['theirs'].tags == ()


def test_without_image_files_the_image_service_is_not_used() -> None:
    vnfd = _vnfd(VDU1={'name': 'cirros-0.6'})

    assert images.ensure(_ctx(vnfd), conn=None, work={}) == {}  # type: ignore[arg-type]


def test_the_heat_input_names_uploaded_images_by_id() -> None:
    params = {
        'nfv': {
            'VDU': {
                'VDU1': {'vcImageId': 'img', 'computeFlavourId': 'img'},
                'VDU2': {'image': 'img'},
                'VDU3': {'vcImageId': 'given-by-request'},
            },
            'CP': {'CP1': {'network': 'img'}},
        }
    }

    out = images.with_ids(params, {'img': {'id': 'up1', 'managed': True}})

    assert out['nfv']['VDU'] == {
        'VDU1': {'vcImageId': 'up1', 'computeFlavourId': 'img'},
        'VDU2': {'image': 'up1'},
        'VDU3': {'vcImageId': 'given-by-request'},
    }
    assert out['nfv']['CP'] == params['nfv']['CP']
    assert params['nfv']['VDU']['VDU1']['vcImageId'] == 'img'


def test_a_failure_after_an_upload_keeps_it_in_work_for_rollback(
    glance: FakeGlance,
) -> None:
    other = 'Files/images/other.img'
    ctx = _ctx(
        _vnfd(
            VDU1=_sw_image(),
            VDU2=_sw_image(name='zz', file=other, checksum=None),
        )
    )
    ctx.package = PackageFiles('p1', {FILE: DATA, other: b'x'})
    glance.upload = _fail_second(glance.upload)  # type: ignore[method-assign]
    work: dict[str, Any] = {}

    with pytest.raises(base.PartialFailure, match='full') as failed:
        images.ensure(ctx, None, work)  # type: ignore[arg-type]

    assert failed.value.work['images'] == {
        'img': {'id': 'up1', 'managed': True}
    }
    assert images.release(None, 'i1', work['images']) == ['up1']  # type: ignore[arg-type]


def _fail_second(upload: Any) -> Any:
    calls = []

    def fail(image: openstack.ImageData, deadline: float) -> Any:
        calls.append(image.name)
        if len(calls) > 1:
            raise openstack.OpenStackError('the image service is full')
        return upload(image, deadline)

    return fail


def test_an_image_deleted_while_it_is_tagged_is_uploaded_again(
    glance: FakeGlance,
) -> None:
    glance.add('theirs-gone', DATA, vnfm_managed='true')
    add_tag = glance.add_tag

    def deleted_first(image_id: str, tag: str) -> None:
        if image_id == 'theirs-gone':
            raise openstack.ImageNotFound('gone')
        add_tag(image_id, tag)

    glance.add_tag = deleted_first  # type: ignore[method-assign]

    used = images.ensure(_ctx(_vnfd(VDU1=_sw_image())), None, {})  # type: ignore[arg-type]

    assert used == {'img': {'id': 'up1', 'managed': True}}
