"""Immutable ConfigMaps and Secrets: deleted and created again when their
content changes (Kubernetes refuses to update them), also on rollback."""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator

import pytest

from vnfm.clients import kubernetes as k8s
from vnfm.conf import CONF

from .conftest import Cnf
from .conftest import files_of
from .manifests import configmap
from .manifests import controller
from .manifests import env_from
from .manifests import immutable
from .manifests import pod
from .manifests import secret
from .manifests import set_image
from .manifests import spec

pytestmark = pytest.mark.timeout(180, func_only=True)
USES_CM = spec(envFrom=[env_from('ConfigMap', 'cm-a')])
USES_SECRET = spec(volumes=[{'name': 'v', 'secret': {'secretName': 'sec-a'}}])
USES_BOTH = spec(
    envFrom=[env_from('ConfigMap', 'cm-a'), env_from('Secret', 'sec-a')]
)
WEB = controller('Deployment', 'web', USES_BOTH)


@pytest.fixture(autouse=True)
def _state_path(tmp_path: object) -> Iterator[None]:
    # Secrets kept for rollback are encrypted with the key in state_path.
    CONF.set_override('state_path', str(tmp_path))
    yield
    CONF.clear_override('state_path')


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _actions(changes: dict) -> dict[str, str]:
    report = changes['changedInfo']['metadata']['vnfm_container_update']
    return {c['name']: c['action'] for c in report['configMapsAndSecrets']}


def _uid(cnf: Cnf, kind: str, name: str) -> str:
    return cnf.get(kind, name)['metadata']['uid']


def test_changed_immutable_objects_are_recreated_and_users_restart(
    deploy: Callable[..., Cnf],
) -> None:
    def files(value: str) -> dict[str, bytes]:
        return files_of(
            {
                'Files/all.yaml': [
                    immutable(configmap('cm-a', k=value)),
                    immutable(secret('sec-a', password=value)),
                    immutable(configmap('cm-same', k='same')),
                    pod('uses-cm', USES_CM),
                    pod('uses-secret', USES_SECRET),
                    WEB,
                    pod(
                        'bystander',
                        spec(envFrom=[env_from('ConfigMap', 'cm-same')]),
                    ),
                ]
            }
        )

    cnf = deploy(files('v1'))
    before = cnf.uids()
    old = {
        n: _uid(cnf, k, n)
        for k, n in (
            ('ConfigMap', 'cm-a'),
            ('Secret', 'sec-a'),
            ('ConfigMap', 'cm-same'),
        )
    }

    changes = cnf.update(files('v2'))

    cm, sec = cnf.get('ConfigMap', 'cm-a'), cnf.get('Secret', 'sec-a')
    assert cm['data'] == {'k': 'v2'} and cm['immutable'] is True
    assert sec['data'] == {'password': _b64('v2')}
    assert sec['immutable'] is True
    assert cm['metadata']['uid'] != old['cm-a']
    assert sec['metadata']['uid'] != old['sec-a']
    assert _uid(cnf, 'ConfigMap', 'cm-same') == old['cm-same']
    assert _actions(changes) == {'cm-a': 'recreate', 'sec-a': 'recreate'}
    after = cnf.uids()
    restarted = {n for n in before if after.get(n) != before[n]}
    web_before = {n for n in before if n.startswith('web-')}
    assert restarted == {'uses-cm', 'uses-secret'} | web_before
    assert len(cnf.owner_uids('web-')) == 1
    assert after['bystander'] == before['bystander']


def test_unchanged_immutable_configmap_restarts_nothing(
    deploy: Callable[..., Cnf],
) -> None:
    def files(other: str) -> dict[str, bytes]:
        return files_of(
            {
                'Files/all.yaml': [
                    immutable(configmap('cm-a', k='same')),
                    configmap('cm-unused', k=other),
                    pod('uses-cm', USES_CM),
                    controller('Deployment', 'web', USES_CM),
                ]
            }
        )

    cnf = deploy(files('v1'))
    before = cnf.uids()
    version = cnf.get('ConfigMap', 'cm-a')['metadata']['resourceVersion']

    changes = cnf.update(files('v2'))

    assert cnf.uids() == before
    assert (
        cnf.get('ConfigMap', 'cm-a')['metadata']['resourceVersion'] == version
    )
    assert _actions(changes) == {'cm-unused': 'patch'}
    report = changes['changedInfo']['metadata']['vnfm_container_update']
    assert report['workloads'] == []


def test_immutable_flag_flips_both_ways(deploy: Callable[..., Cnf]) -> None:
    v1 = _lock_and_unlock_package(lock=False, unlock=True, value='v1')
    v2 = _lock_and_unlock_package(lock=True, unlock=False, value='v2')
    cnf = deploy(v1)
    before = cnf.uids()
    lock_uid = _uid(cnf, 'ConfigMap', 'cm-lock')
    unlock_uid = _uid(cnf, 'ConfigMap', 'cm-unlock')

    changes = cnf.update(v2)

    # Making a ConfigMap immutable is an update Kubernetes accepts...
    lock = cnf.get('ConfigMap', 'cm-lock')
    assert lock['data'] == {'k': 'v2'} and lock['immutable'] is True
    assert lock['metadata']['uid'] == lock_uid
    # ... making one mutable again is not: it is created again.
    unlock = cnf.get('ConfigMap', 'cm-unlock')
    assert unlock['data'] == {'k': 'v2'} and not unlock.get('immutable')
    assert unlock['metadata']['uid'] != unlock_uid
    assert _actions(changes) == {'cm-lock': 'patch', 'cm-unlock': 'recreate'}
    after = cnf.uids()
    assert set(after) == set(before)
    assert not set(after.values()) & set(before.values())


def _lock_and_unlock_package(
    lock: bool, unlock: bool, value: str
) -> dict[str, bytes]:
    """ConfigMaps cm-lock and cm-unlock (k=``value``; immutable: True
    where ``lock``/``unlock`` says so, cm-lock plain when not, cm-unlock
    with immutable: false when not) and a Pod using each."""
    lock_cm = configmap('cm-lock', k=value)
    unlock_cm = configmap('cm-unlock', k=value)
    return files_of(
        {
            'Files/all.yaml': [
                immutable(lock_cm) if lock else lock_cm,
                immutable(unlock_cm, unlock),
                pod(
                    'uses-lock',
                    spec(envFrom=[env_from('ConfigMap', 'cm-lock')]),
                ),
                pod(
                    'uses-unlock',
                    spec(envFrom=[env_from('ConfigMap', 'cm-unlock')]),
                ),
            ]
        }
    )


def test_failed_update_rolls_back_immutable_content(
    deploy: Callable[..., Cnf],
) -> None:
    def files(value: str, web: dict = WEB) -> dict[str, bytes]:
        return files_of(
            {
                'Files/all.yaml': [
                    immutable(configmap('cm-a', k=value)),
                    immutable(secret('sec-a', password=value)),
                    immutable(configmap('cm-lock', k=value), value != 'v1'),
                    web,
                    pod(
                        'uses-lock',
                        spec(envFrom=[env_from('ConfigMap', 'cm-lock')]),
                    ),
                ]
            }
        )

    cnf = deploy(files('v1'))
    web_pods = cnf.owner_uids('web-')
    broken = files('v2', set_image(WEB, 'registry.example/no-such-image:1'))

    with pytest.raises(k8s.WorkloadFailed, match='no-such-image'):
        cnf.update(broken)
    updated = cnf.get('ConfigMap', 'cm-a')
    assert updated['data'] == {'k': 'v2'}
    assert cnf.get('ConfigMap', 'cm-lock')['immutable'] is True

    changes = cnf.rollback(broken)

    cm, sec = cnf.get('ConfigMap', 'cm-a'), cnf.get('Secret', 'sec-a')
    assert cm['data'] == {'k': 'v1'} and cm['immutable'] is True
    assert cm['metadata']['uid'] != updated['metadata']['uid']
    assert sec['data'] == {'password': _b64('v1')}
    assert sec['immutable'] is True
    lock = cnf.get('ConfigMap', 'cm-lock')
    assert lock['data'] == {'k': 'v1'} and not lock.get('immutable')
    assert _actions(changes) == {
        'cm-a': 'recreate',
        'cm-lock': 'recreate',
        'sec-a': 'recreate',
    }
    template = cnf.get('Deployment', 'web')['spec']['template']
    assert template['spec']['containers'][0]['image'] == 'nginx'
    # The Deployment is back on its first ReplicaSet: its Pod never left.
    assert cnf.owner_uids('web-') == web_pods
