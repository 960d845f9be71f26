"""Each kind of ConfigMap/Secret reference restarts its Pod, and only it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from .conftest import Cnf
from .conftest import files_of
from .manifests import configmap
from .manifests import env_from
from .manifests import pod
from .manifests import secret
from .manifests import spec

pytestmark = pytest.mark.timeout(180, func_only=True)

USERS = {
    'cm-env-key': spec(
        env=[
            {
                'name': 'X',
                'valueFrom': {'configMapKeyRef': {'name': 'cm-a', 'key': 'k'}},
            }
        ]
    ),
    'cm-env-from': spec(envFrom=[env_from('ConfigMap', 'cm-a')]),
    'cm-volume': spec(volumes=[{'name': 'v', 'configMap': {'name': 'cm-a'}}]),
    'cm-projected': spec(
        volumes=[
            {
                'name': 'v',
                'projected': {'sources': [{'configMap': {'name': 'cm-a'}}]},
            }
        ]
    ),
    'cm-init': spec(
        initContainers=[
            {
                'name': 'i',
                'image': 'busybox',
                'envFrom': [env_from('ConfigMap', 'cm-a')],
            }
        ]
    ),
    'sec-env-key': spec(
        env=[
            {
                'name': 'P',
                'valueFrom': {
                    'secretKeyRef': {'name': 'sec-a', 'key': 'password'}
                },
            }
        ]
    ),
    'sec-env-from': spec(envFrom=[env_from('Secret', 'sec-a')]),
    'sec-volume': spec(
        volumes=[{'name': 'v', 'secret': {'secretName': 'sec-a'}}]
    ),
    'sec-projected': spec(
        volumes=[
            {
                'name': 'v',
                'projected': {'sources': [{'secret': {'name': 'sec-a'}}]},
            }
        ]
    ),
    'sec-csi': spec(
        volumes=[
            {
                'name': 'v',
                'csi': {
                    'driver': 'example.csi',
                    'nodePublishSecretRef': {'name': 'sec-a'},
                },
            }
        ]
    ),
}
BYSTANDERS = {
    'uses-cm-b': spec(envFrom=[env_from('ConfigMap', 'cm-b')]),
    'uses-sec-b': spec(
        volumes=[{'name': 'v', 'secret': {'secretName': 'sec-b'}}]
    ),
    # Plain values that happen to name a ConfigMap: values, not references.
    'plain-env': spec(
        env=[{'name': 'CM', 'value': 'cm-a'}, {'name': 'EMPTY', 'value': ''}]
    ),
}


def _files(cm_a: str, sec_a: str) -> dict[str, bytes]:
    return files_of(
        {
            'Files/config.yaml': [
                configmap('cm-a', k=cm_a),
                configmap('cm-b', k='same'),
                secret('sec-a', password=sec_a),
                secret('sec-b', password='same'),
            ],
            'Files/pods.yaml': [
                pod(n, s) for n, s in sorted({**USERS, **BYSTANDERS}.items())
            ],
        }
    )


def test_only_the_users_of_changed_configmaps_and_secrets_restart(
    deploy: Callable[..., Cnf],
) -> None:
    cnf = deploy(_files('v1', 'pw1'))
    before = cnf.uids()

    changes = cnf.update(_files('v2', 'pw2'))

    after = cnf.uids()
    restarted = {n for n in before if after.get(n) != before[n]}
    assert restarted == set(USERS)
    assert set(after) == set(before)  # bare Pods come back with their names
    assert cnf.get('ConfigMap', 'cm-a')['data'] == {'k': 'v2'}
    report = changes['changedInfo']['metadata']['vnfm_container_update']
    assert sorted(c['name'] for c in report['configMapsAndSecrets']) == [
        'cm-a',
        'sec-a',
    ]
    affected = changes['resourceChanges']['affectedVnfcs']
    assert {a['computeResource']['resourceId'] for a in affected} == set(USERS)
    assert {a['changeType'] for a in affected} == {'MODIFIED'}
    # Re-running the same update is a no-op.
    again = cnf.update(_files('v2', 'pw2'))
    assert cnf.uids() == after
    assert (
        again['changedInfo']['metadata']['vnfm_container_update']['workloads']
        == []
    )


def test_unchanged_configmaps_are_not_rewritten(
    deploy: Callable[..., Cnf],
) -> None:
    cnf = deploy(_files('v1', 'pw1'))
    before = cnf.uids()
    versions = {
        n: cnf.get('ConfigMap', n)['metadata']['resourceVersion']
        for n in ('cm-a', 'cm-b')
    }

    changes = cnf.update(_files('v1', 'pw1'))

    assert cnf.uids() == before
    assert {
        n: cnf.get('ConfigMap', n)['metadata']['resourceVersion']
        for n in ('cm-a', 'cm-b')
    } == versions
    report = changes['changedInfo']['metadata']['vnfm_container_update']
    assert report['configMapsAndSecrets'] == [] and report['workloads'] == []
    assert 'resourceChanges' not in changes
