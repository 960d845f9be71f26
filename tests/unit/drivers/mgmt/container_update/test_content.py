"""ConfigMaps and Secrets compared by content (not by labels or server
fields): what to do to the live object, the patch that does it, and the
hash that rolls the Pods using them."""

from __future__ import annotations

import base64

import pytest

from vnfm.drivers.mgmt.container_update import content


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def cm(data: dict | None = None, **extra: object) -> dict:
    return {
        'kind': 'ConfigMap',
        'metadata': {'name': 'cm', 'labels': {'a': '1'}},
        'data': data or {},
        **extra,
    }


def secret(**extra: object) -> dict:
    return {'kind': 'Secret', 'metadata': {'name': 's'}, **extra}


def test_string_data_counts_as_the_data_the_server_stores():
    manifest = secret(stringData={'pw': 'hunter2'})
    live = secret(type='Opaque', data={'pw': b64('hunter2')})

    assert content.normal(manifest) == content.normal(live)
    assert content.action(manifest, live) is None


def test_labels_and_server_fields_do_not_count():
    live = cm({'k': 'v'})
    live['metadata'] = {'name': 'cm', 'resourceVersion': '7', 'uid': 'u'}

    assert content.action(cm({'k': 'v'}), live) is None


@pytest.mark.parametrize(
    'desired,live,action',
    [
        (cm({'k': 'v'}), None, 'create'),
        (cm({'k': 'new'}), cm({'k': 'v'}), 'patch'),
        (cm({'k': 'new'}), cm({'k': 'v'}, immutable=True), 'recreate'),
        (
            secret(type='kubernetes.io/tls', data={}),
            secret(type='Opaque', data={}),
            'recreate',
        ),
    ],
)
def test_what_to_do_to_the_live_object(desired, live, action):
    assert content.action(desired, live) == action


def test_the_patch_sets_new_keys_and_removes_old_ones():
    body = content.patch_body(
        cm({'keep': '1', 'new': '2'}), cm({'keep': '0', 'old': 'x'})
    )

    assert body == {'data': {'keep': '1', 'new': '2', 'old': None}}


def test_the_patch_can_make_an_object_immutable():
    body = content.patch_body(cm({'k': 'v'}, immutable=True), cm({'k': 'v'}))

    assert body == {'data': {'k': 'v'}, 'immutable': True}


@pytest.mark.parametrize(
    'obj,where',
    [
        (
            secret(data={'pw': 'not base64!'}),
            'Secret s: data.pw is not base64.',
        ),
        (
            cm(binaryData={'bin': '%%%'}),
            'ConfigMap cm: binaryData.bin is not base64.',
        ),
    ],
)
def test_content_that_is_not_base64_is_named(obj, where):
    with pytest.raises(content.BadConfigObject) as e:
        content.normal(obj)

    assert str(e.value) == where


def test_as_manifest_keeps_identity_and_carries_the_content():
    obj = cm({'x': 'y'}, binaryData={'b': b64('raw')})
    obj['metadata'].update(namespace='ns', resourceVersion='9')

    out = content.as_manifest(obj, content.normal(obj))

    assert out == {
        'apiVersion': 'v1',
        'kind': 'ConfigMap',
        'metadata': {'name': 'cm', 'namespace': 'ns', 'labels': {'a': '1'}},
        'binaryData': {'b': b64('raw')},
        'data': {'x': 'y'},
    }


def test_the_config_hash_changes_with_content_or_image_only():
    used = {('ConfigMap', 'cm'): 'd1', ('Secret', 's'): 'd2'}
    images = {'app': 'nginx:1.25'}
    base = content.config_hash(used, images)

    assert len(base) == 32
    assert content.config_hash(dict(reversed(used.items())), images) == base
    assert content.config_hash({**used, ('Secret', 's'): 'd3'}, images) != base
    assert content.config_hash(used, {'app': 'nginx:1.26'}) != base
