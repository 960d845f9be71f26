"""The local cloud's image service: the part of Glance's v2 API that
clients uploading images and Heat's image lookups use, images kept on disk.

``/v2/images``: list (filters by any image field, ``limit``/``marker``),
create, show, ``PATCH`` (JSON patch of properties), delete;
``/v2/images/<id>/file``: upload (``queued`` -> ``active``, md5
``checksum``, sha512 ``os_hash_value``, ``size``) and download. ``/``
answers 300 with the version document, as Glance does. Each image is
``glance/<id>.json`` and ``glance/<id>.data`` in the cloud's state
directory (the Heat plugin reads the records there); a project sees its
own images and the public ones.

Standard library only (``wsgi_host.py`` puts keystonemiddleware's
auth_token in front of it, in the OpenStack virtualenv): tests call
``app`` with the ``X-Project-Id`` header auth_token would set.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import re
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib import parse

Image = dict[str, Any]
StartResponse = Callable[..., Any]
STORE = 'glance'
_CHUNK = 1 << 20
#: Fields a client may not set (Glance answers 403 to them).
_READ_ONLY = (
    'id',
    'status',
    'size',
    'virtual_size',
    'checksum',
    'os_hash_algo',
    'os_hash_value',
    'created_at',
    'updated_at',
    'owner',
    'self',
    'file',
    'schema',
    'direct_url',
    'locations',
)
_DEFAULTS: dict[str, Any] = {
    'disk_format': None,
    'container_format': None,
    'visibility': 'shared',
    'protected': False,
    'min_disk': 0,
    'min_ram': 0,
    'tags': [],
}
_IMAGE = re.compile(r'^/v2/images/([0-9a-f-]{36})(/file|/tags/[^/]+)?$')


class HttpError(Exception):
    """An answer other than success: status and Glance's message."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime(
        '%Y-%m-%dT%H:%M:%SZ'
    )


def records(state_dir: Path) -> list[Image]:
    """Every image of the cloud (all projects)."""
    out = []
    for path in sorted((state_dir / STORE).glob('*.json')):
        try:
            out.append(json.loads(path.read_text()))
        except FileNotFoundError:  # deleted meanwhile
            continue
    return out


class Images:
    """The image records and data of one state directory."""

    def __init__(self, state_dir: Path) -> None:
        self.dir = state_dir / STORE

    def _path(self, image_id: str, suffix: str) -> Path:
        return self.dir / f'{image_id}{suffix}'

    def save(self, image: Image) -> Image:
        """Write ``image`` (atomically), stamped ``updated_at``."""
        image['updated_at'] = _now()
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self._path(image['id'], '.tmp')
        tmp.write_text(json.dumps(image))
        tmp.replace(self._path(image['id'], '.json'))
        return image

    def get(self, image_id: str, project: str) -> Image:
        """An image ``project`` may see; 404 otherwise."""
        path = self._path(image_id, '.json')
        if path.exists():
            image: Image = json.loads(path.read_text())
            if _visible(image, project):
                return image
        raise HttpError('404 Not Found', f'No image found with ID {image_id}')

    def listed(self, project: str, query: dict[str, str]) -> list[Image]:
        """The images ``project`` sees that match ``query``'s fields."""
        found = [
            i
            for i in records(self.dir.parent)
            if _visible(i, project)
            and all(_matches(i, k, v) for k, v in query.items())
        ]
        return sorted(found, key=lambda i: (i['created_at'], i['id']))

    def create(self, body: Any, project: str) -> Image:
        """A ``queued`` image of ``body``'s fields and properties."""
        if not isinstance(body, dict):
            raise HttpError('400 Bad Request', 'The body must be an object.')
        fixed = sorted(set(body) & set(_READ_ONLY) - {'id'})
        if fixed:
            raise HttpError(
                '403 Forbidden', f'Attribute {fixed[0]} is read-only.'
            )
        now = _now()
        image = {
            **_DEFAULTS,
            **body,
            'id': str(body.get('id') or uuid.uuid4()),
            'status': 'queued',
            'owner': project,
            'size': None,
            'virtual_size': None,
            'checksum': None,
            'os_hash_algo': None,
            'os_hash_value': None,
            'created_at': now,
        }
        image['self'] = f'/v2/images/{image["id"]}'
        image['file'] = f'{image["self"]}/file'
        image['schema'] = '/v2/schemas/image'
        if self._path(image['id'], '.json').exists():
            raise HttpError('409 Conflict', f'Image {image["id"]} exists.')
        return self.save(image)

    def upload(self, image: Image, stream: Iterable[bytes]) -> Image:
        """Store the data of a ``queued`` image and make it ``active``."""
        if image['status'] != 'queued':
            raise HttpError(
                '409 Conflict',
                f'Image status transition from {image["status"]} to saving '
                'is not allowed',
            )
        md5 = hashlib.md5(usedforsecurity=False)
        sha512, size = hashlib.sha512(), 0
        tmp = self._path(image['id'], '.part')
        with tmp.open('wb') as out:
            for chunk in stream:
                md5.update(chunk)
                sha512.update(chunk)
                size += len(chunk)
                out.write(chunk)
        tmp.replace(self._path(image['id'], '.data'))
        image.update(
            status='active',
            size=size,
            virtual_size=size,
            checksum=md5.hexdigest(),
            os_hash_algo='sha512',
            os_hash_value=sha512.hexdigest(),
        )
        return self.save(image)

    def data(self, image: Image) -> Path | None:
        """The file of an ``active`` image (None: no data yet)."""
        if image['status'] != 'active':
            return None
        return self._path(image['id'], '.data')

    def patch(self, image: Image, ops: Any) -> Image:
        """Apply a JSON patch (add, replace, remove of top-level fields)."""
        if not isinstance(ops, list):
            raise HttpError('400 Bad Request', 'A JSON patch is a list.')
        for op in ops:
            field = str(op.get('path', '')).lstrip('/')
            if field in _READ_ONLY or '/' in field or not field:
                raise HttpError(
                    '403 Forbidden', f'Attribute {field} is read-only.'
                )
            if op.get('op') in ('add', 'replace'):
                image[field] = op.get('value')
            elif op.get('op') == 'remove':
                image.pop(field, None)
            else:
                raise HttpError(
                    '400 Bad Request', f'Unknown patch op {op.get("op")!r}.'
                )
        return self.save(image)

    def delete(self, image: Image) -> None:
        """Remove an image, its data first."""
        if image.get('protected'):
            raise HttpError(
                '403 Forbidden', f'Image {image["id"]} is protected.'
            )
        self._path(image['id'], '.data').unlink(missing_ok=True)
        self._path(image['id'], '.json').unlink(missing_ok=True)


def _matches(image: Image, key: str, value: str) -> bool:
    if key == 'tag':
        return value in (image.get('tags') or [])
    return str(image.get(key)) == value


def _visible(image: Image, project: str) -> bool:
    return image.get('owner') == project or image.get('visibility') in (
        'public',
        'community',
    )


def _versions(host: str) -> dict[str, Any]:
    return {
        'versions': [
            {
                'id': 'v2.9',
                'status': 'CURRENT',
                'links': [{'rel': 'self', 'href': f'{host}/v2/'}],
            }
        ]
    }


class App:
    """The WSGI application of the image service of one state directory."""

    def __init__(self, state_dir: Path) -> None:
        self.images = Images(state_dir)

    def __call__(
        self, environ: dict[str, Any], start_response: StartResponse
    ) -> Iterable[bytes]:
        try:
            status, body = self._route(environ)
        except HttpError as e:
            status, body = e.status, {'message': str(e), 'code': e.status}
        if isinstance(body, Path):
            start_response(
                status, [('Content-Type', 'application/octet-stream')]
            )
            return _file_chunks(body)
        data = b'' if body is None else json.dumps(body).encode()
        headers = [('Content-Length', str(len(data)))]
        if body is not None:
            headers.append(('Content-Type', 'application/json'))
        start_response(status, headers)
        return [data]

    def _route(self, environ: dict[str, Any]) -> tuple[str, Any]:
        method = environ['REQUEST_METHOD']
        path = environ.get('PATH_INFO') or '/'
        project = environ.get('HTTP_X_PROJECT_ID') or ''
        host = f'{environ["wsgi.url_scheme"]}://{environ["HTTP_HOST"]}'
        if path.rstrip('/') in ('', '/versions'):
            code = '300 Multiple Choices' if path == '/' else '200 OK'
            return code, _versions(host)
        if path.rstrip('/') == '/v2/images':
            if method == 'POST':
                body = _json(environ)
                return '201 Created', self.images.create(body, project)
            return '200 OK', self._list(environ, project)
        match = _IMAGE.match(path)
        if not match:
            raise HttpError('404 Not Found', f'No route for {path}.')
        image = self.images.get(match.group(1), project)
        sub = match.group(2) or ''
        if sub.startswith('/tags/'):
            tag = parse.unquote(sub[len('/tags/') :])
            return self._tag(method, image, tag)
        return self._one(environ, method, image, bool(sub))

    def _tag(self, method: str, image: Image, tag: str) -> tuple[str, Any]:
        tags = [t for t in image.get('tags') or [] if t != tag]
        if method == 'PUT':
            tags.append(tag)
        elif method != 'DELETE':
            raise HttpError('405 Method Not Allowed', f'{method} not allowed.')
        elif len(tags) == len(image.get('tags') or []):
            raise HttpError('404 Not Found', f'Tag {tag} not found.')
        image['tags'] = tags
        self.images.save(image)
        return '204 No Content', None

    def _one(
        self, environ: dict[str, Any], method: str, image: Image, file: bool
    ) -> tuple[str, Any]:
        if file and method == 'PUT':
            self.images.upload(image, _body_chunks(environ))
            return '204 No Content', None
        if file and method == 'GET':
            data = self.images.data(image)
            return ('200 OK' if data else '204 No Content'), data
        if not file and method == 'GET':
            return '200 OK', image
        if not file and method == 'PATCH':
            return '200 OK', self.images.patch(image, _json(environ))
        if not file and method == 'DELETE':
            self.images.delete(image)
            return '204 No Content', None
        raise HttpError('405 Method Not Allowed', f'{method} not allowed.')

    def _list(self, environ: dict[str, Any], project: str) -> dict[str, Any]:
        query = dict(parse.parse_qsl(environ.get('QUERY_STRING') or ''))
        limit = int(query.pop('limit', '25'))
        marker = query.pop('marker', None)
        for key in ('sort', 'sort_key', 'sort_dir', 'member_status'):
            query.pop(key, None)
        found = self.images.listed(project, query)
        if marker:
            ids = [i['id'] for i in found]
            found = found[ids.index(marker) + 1 :] if marker in ids else []
        page = found[:limit]
        out: dict[str, Any] = {
            'images': page,
            'schema': '/v2/schemas/images',
            'first': '/v2/images',
        }
        if len(found) > limit:
            params = parse.urlencode({**query, 'limit': limit})
            out['next'] = f'/v2/images?{params}&marker={page[-1]["id"]}'
        return out


def _json(environ: dict[str, Any]) -> Any:
    length = int(environ.get('CONTENT_LENGTH') or 0)
    try:
        return json.loads(environ['wsgi.input'].read(length) or b'null')
    except ValueError:
        raise HttpError('400 Bad Request', 'The body is not JSON.') from None


def _body_chunks(environ: dict[str, Any]) -> Iterable[bytes]:
    """The request body: Content-Length bytes, else chunked until EOF."""
    stream = environ['wsgi.input']
    length = environ.get('CONTENT_LENGTH')
    left = int(length) if length else None
    while left is None or left > 0:
        chunk = stream.read(_CHUNK if left is None else min(_CHUNK, left))
        if not chunk:
            return
        if left is not None:
            left -= len(chunk)
        yield chunk


def _file_chunks(path: Path) -> Iterable[bytes]:
    with path.open('rb') as f:
        while chunk := f.read(_CHUNK):
            yield chunk
