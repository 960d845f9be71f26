"""Images of a VIM's image service (Glance v2) through openstacksdk, on one
``Connection``.

Uploads run within one total deadline (``[openstack] image_timeout`` or
less): create, data, until ``active``; Glance's checksums of the stored
data are compared with the file's (md5 ``checksum``, sha512
``os_hash_value``) and an image that differs is deleted. Images vnfm uses
are marked with tags, one per user, which Glance adds and removes one at
a time (no read-modify-write).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import time
from collections.abc import Callable
from typing import Any, TypeVar

from openstack import connection as sdk_connection
from openstack import exceptions as sdk_exc

from vnfm.clients import deadlines
from vnfm.clients.openstack import errors
from vnfm.clients.openstack.connection import Connection
from vnfm.clients.openstack.errors import OpenStackError

T = TypeVar('T')
_ACTIVE_POLL = 0.2


@dataclasses.dataclass(frozen=True)
class Image:
    """An image of the VIM as vnfm reads it."""

    id: str
    name: str
    status: str
    checksum: str | None  # md5 of the data (Glance's ``checksum``)
    hash_value: str | None  # Glance's os_hash_value (sha512)
    tags: tuple[str, ...]
    properties: dict[str, Any]


@dataclasses.dataclass(frozen=True)
class ImageData:
    """A file to upload and what Glance must say of it."""

    name: str
    data: bytes
    disk_format: str | None
    container_format: str | None
    properties: dict[str, str]
    tags: tuple[str, ...] = ()

    @functools.cached_property
    def md5(self) -> str:
        """Glance's ``checksum`` of this data."""
        return hashlib.md5(self.data, usedforsecurity=False).hexdigest()

    @functools.cached_property
    def sha512(self) -> str:
        """Glance's ``os_hash_value`` of this data (os_hash_algo sha512)."""
        return hashlib.sha512(self.data).hexdigest()


def _image(obj: Any) -> Image:
    return Image(
        id=str(obj.id),
        name=str(obj.name or ''),
        status=str(obj.status or ''),
        checksum=obj.checksum,
        hash_value=getattr(obj, 'hash_value', None),
        tags=tuple(obj.tags or ()),
        properties=dict(obj.properties or {}),
    )


def _call(what: str, fn: Callable[[], T]) -> T:
    """Run one image service request; its failure as an OpenStackError."""
    try:
        return fn()
    except sdk_exc.NotFoundException:
        raise NotFound(
            f'The image service could not {what}: not found'
        ) from None
    except sdk_exc.HttpException as e:
        raise OpenStackError(
            f'The image service refused to {what}: HTTP {e.status_code} '
            f'{e.details or ""}'.rstrip()
        ) from None
    except sdk_exc.EndpointNotFound:
        raise OpenStackError(
            f'Could not {what}: the VIM has no image service (type "image") '
            'in its Keystone catalog.'
        ) from None
    except sdk_exc.SDKException as e:
        raise OpenStackError(f'Could not {what}: {e}') from None
    except errors.TRANSPORT as e:
        raise errors.transport(what, e) from None


class NotFound(OpenStackError):
    """The image is not there."""


class Glance:
    """Images of the VIM's project, in the VIM's region."""

    def __init__(self, conn: Connection, total: float) -> None:
        self.total = total
        self.sdk = sdk_connection.Connection(
            session=conn.long_session(total, 'Image service'),
            region_name=conn.region,
            interface='public',
            app_name='vnfm',
        )
        # The image API v2 proxy (typed as v1 or v2: which one is chosen
        # by discovery; vnfm needs v2's tags).
        self.images: Any = self.sdk.image

    def find(self, name: str, tag: str | None = None) -> list[Image]:
        """The images called ``name`` (with ``tag``, if given)."""
        query: dict[str, Any] = {'name': name}
        if tag:
            query['tag'] = tag
        return _call(
            f'list the images called {name}',
            lambda: [_image(i) for i in self.images.images(**query)],
        )

    def get(self, image_id: str) -> Image:
        """An image by id."""
        return _call(
            f'show image {image_id}',
            lambda: _image(self.images.get_image(image_id)),
        )

    def upload(self, image: ImageData, deadline: float) -> Image:
        """Create the image, upload its data and wait until it is active
        with the data's checksums; within ``deadline`` (monotonic)."""
        seconds = min(self.total, deadline - time.monotonic())
        what = f'upload image {image.name}'
        with deadlines.scope(max(seconds, 0.001), what):
            made = _call(what, lambda: self._create(image))
            try:
                return self._active(made, image, deadline)
            except BaseException:
                _call(
                    f'delete the failed upload {made.id}',
                    lambda: self.images.delete_image(
                        made.id, ignore_missing=True
                    ),
                )
                raise

    def _create(self, image: ImageData) -> Image:
        created = self.images.create_image(
            image.name,
            data=image.data,
            disk_format=image.disk_format,
            container_format=image.container_format,
            allow_duplicates=True,
            validate_checksum=True,
            tags=list(image.tags),
            **image.properties,
        )
        return _image(created)

    def _active(self, made: Image, image: ImageData, deadline: float) -> Image:
        """Wait for ``active``; the image, its checksums compared."""
        while True:
            shown = self.get(made.id)
            if shown.status == 'active':
                break
            if shown.status in ('killed', 'deleted', 'deactivated'):
                raise OpenStackError(
                    f'Image {made.id} ({image.name}) became {shown.status} '
                    'instead of active.'
                )
            if time.monotonic() + _ACTIVE_POLL > deadline:
                raise OpenStackError(
                    f'Image {made.id} ({image.name}) was not active before '
                    f'the deadline (status {shown.status}).'
                )
            time.sleep(_ACTIVE_POLL)
        if shown.checksum not in (None, image.md5) or (
            shown.hash_value not in (None, image.sha512)
        ):
            raise OpenStackError(
                f'The image service stored image {image.name} with other '
                'checksums than the file of the package: the upload was '
                'corrupted; it was deleted.'
            )
        return shown

    def add_tag(self, image_id: str, tag: str) -> None:
        """Tag an image (Glance's PUT of one tag)."""
        _call(
            f'tag image {image_id}',
            lambda: self.images.add_tag(image_id, tag),
        )

    def remove_tag(self, image_id: str, tag: str) -> None:
        """Untag an image (nothing if it is gone)."""
        try:
            _call(
                f'untag image {image_id}',
                lambda: self.images.remove_tag(image_id, tag),
            )
        except NotFound:
            return

    def delete(self, image_id: str) -> None:
        """Delete an image (nothing if it is gone)."""
        _call(
            f'delete image {image_id}',
            lambda: self.images.delete_image(image_id, ignore_missing=True),
        )
