"""The content of ConfigMaps and Secrets, compared and hashed.

A manifest and the live object are compared on a normal form: ConfigMap
``data``/``binaryData``, Secret ``type`` and ``data`` (``stringData`` of a
manifest is folded into ``data`` as the API server does), and
``immutable``. Labels, annotations and server fields do not count.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from typing import Any

from vnfm.common import exceptions

Obj = dict[str, Any]
HASH_ANNOTATION = 'vnfm.io/config-hash'


class BadConfigObject(exceptions.OperationFailed):
    """A ConfigMap or Secret manifest cannot be read."""

    title = 'Bad ConfigMap or Secret'


def _b64(value: bytes) -> str:
    return base64.b64encode(value).decode('ascii')


def _secret_data(obj: Obj, where: str) -> dict[str, str]:
    out = {}
    for key, value in (obj.get('data') or {}).items():
        try:
            raw = base64.b64decode(''.join(str(value).split()), validate=True)
        except (binascii.Error, ValueError):
            raise BadConfigObject(
                f'{where}: data.{key} is not base64.'
            ) from None
        out[key] = _b64(raw)
    for key, value in (obj.get('stringData') or {}).items():
        out[key] = _b64(str(value).encode('utf-8'))
    return out


def normal(obj: Obj) -> Obj:
    """Comparable content of a ConfigMap or Secret (manifest or live)."""
    where = f'{obj.get("kind")} {(obj.get("metadata") or {}).get("name")}'
    if obj.get('kind') == 'Secret':
        return {
            'type': obj.get('type') or 'Opaque',
            'data': _secret_data(obj, where),
            'immutable': bool(obj.get('immutable')),
        }
    binary = {}
    for key, value in (obj.get('binaryData') or {}).items():
        try:
            binary[key] = _b64(
                base64.b64decode(''.join(str(value).split()), validate=True)
            )
        except (binascii.Error, ValueError):
            raise BadConfigObject(
                f'{where}: binaryData.{key} is not base64.'
            ) from None
    return {
        'data': {
            k: '' if v is None else str(v)
            for k, v in (obj.get('data') or {}).items()
        },
        'binaryData': binary,
        'immutable': bool(obj.get('immutable')),
    }


def digest(content: Obj) -> str:
    """A stable digest of a normal form."""
    text = json.dumps(content, sort_keys=True, separators=(',', ':'))
    return hashlib.sha256(text.encode()).hexdigest()


def action(desired: Obj, live: Obj | None) -> str | None:
    """How to bring ``live`` to ``desired``: None (equal), 'create',
    'recreate' (type or immutability forbid an update) or 'patch'."""
    if live is None:
        return 'create'
    want, have = normal(desired), normal(live)
    if want == have:
        return None
    if have['immutable'] or want.get('type') != have.get('type'):
        return 'recreate'
    return 'patch'


def patch_body(desired: Obj, live: Obj) -> Obj:
    """A strategic-merge patch making ``live``'s content ``desired``'s
    (keys only the live object has are removed with null)."""
    want, have = normal(desired), normal(live)
    body: Obj = {}
    for field in ('data', 'binaryData'):
        if field not in want:
            continue
        values: dict[str, Any] = dict(want[field])
        values.update({k: None for k in have[field] if k not in want[field]})
        if values:
            body[field] = values
    if want['immutable'] != have['immutable']:
        body['immutable'] = want['immutable']
    return body


def as_manifest(obj: Obj, content: Obj) -> Obj:
    """``obj`` (identity and labels kept) carrying a normal form's content."""
    meta = obj.get('metadata') or {}
    out: Obj = {
        'apiVersion': 'v1',
        'kind': obj['kind'],
        'metadata': {
            k: meta[k]
            for k in ('name', 'namespace', 'labels', 'annotations')
            if meta.get(k)
        },
    }
    if obj['kind'] == 'Secret':
        out['type'] = content['type']
    else:
        out['binaryData'] = dict(content['binaryData'])
    out['data'] = dict(content['data'])
    if content['immutable']:
        out['immutable'] = True
    return out


def config_hash(
    used: dict[tuple[str, str], str], images: dict[str, str]
) -> str:
    """The value of the Pod template annotation: what the Pods run with
    (the digests of the ConfigMaps/Secrets they use, their images)."""
    doc = {
        'config': sorted(f'{k}/{n}={d}' for (k, n), d in used.items()),
        'images': sorted(f'{c}={i}' for c, i in images.items()),
    }
    return digest(doc)[:32]
