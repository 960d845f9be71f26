"""What an update overwrote is kept (Secrets encrypted) and restored."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from vnfm.conf import CONF
from vnfm.drivers.mgmt.container_update import planner
from vnfm.drivers.mgmt.container_update import snapshot


@pytest.fixture(autouse=True)
def _state(tmp_path: object) -> Iterator[None]:
    CONF.set_override('state_path', str(tmp_path))
    yield
    CONF.clear_override('state_path')


def _objects(cm: str, secret: str, image: str) -> dict:
    objs = [
        {
            'apiVersion': 'v1',
            'kind': 'ConfigMap',
            'metadata': {'name': 'cm', 'namespace': 'ns'},
            'data': {'k': cm},
        },
        {
            'apiVersion': 'v1',
            'kind': 'Secret',
            'type': 'Opaque',
            'metadata': {'name': 's', 'namespace': 'ns'},
            'stringData': {'p': secret},
        },
        {
            'apiVersion': 'v1',
            'kind': 'Pod',
            'metadata': {'name': 'p', 'namespace': 'ns', 'uid': 'u'},
            'spec': {
                'containers': [
                    {
                        'name': 'c',
                        'image': image,
                        'envFrom': [{'configMapRef': {'name': 'cm'}}],
                    }
                ]
            },
        },
    ]
    return {(o['kind'], 'ns', o['metadata']['name']): o for o in objs}


def test_record_keeps_the_first_state_and_restore_brings_it_back() -> None:
    before = _objects('old', 'old-secret', 'nginx')
    after = _objects('new', 'new-secret', 'tomcat')
    plan = planner.plan(before, after, list(before.values()))
    work: dict = {}
    assert snapshot.record(work, plan)
    assert 'old-secret' not in str(work)
    # A retry sees the half-updated cluster: the first record stays.
    assert not snapshot.record(
        work, planner.plan(before, after, list(after.values()))
    )
    restored = snapshot.restore(after, work)
    assert restored[('ConfigMap', 'ns', 'cm')]['data'] == {'k': 'old'}
    assert restored[('Secret', 'ns', 's')]['data'] == {'p': 'b2xkLXNlY3JldA=='}
    assert (
        restored[('Pod', 'ns', 'p')]['spec']['containers'][0]['image']
        == 'nginx'
    )
    assert work['snapshot']['annotations'] == {'Pod/ns/p': None}
