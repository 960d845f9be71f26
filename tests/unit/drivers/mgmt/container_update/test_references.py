"""Which ConfigMaps/Secrets a Pod spec uses, and its images."""

from __future__ import annotations

from vnfm.drivers.mgmt.container_update import references


def test_every_reference_kind_is_found() -> None:
    spec = {
        'initContainers': [
            {
                'name': 'init',
                'image': 'busybox',
                'env': [
                    {
                        'name': 'A',
                        'valueFrom': {
                            'configMapKeyRef': {'name': 'cm-init', 'key': 'k'}
                        },
                    }
                ],
            }
        ],
        'containers': [
            {
                'name': 'app',
                'image': 'nginx',
                'env': [
                    {
                        'name': 'B',
                        'valueFrom': {
                            'secretKeyRef': {'name': 'sec-env', 'key': 'k'}
                        },
                    },
                    {'name': 'PLAIN', 'value': 'just a value'},
                    {
                        'name': 'FIELD',
                        'valueFrom': {
                            'fieldRef': {'fieldPath': 'metadata.name'}
                        },
                    },
                ],
                'envFrom': [
                    {'configMapRef': {'name': 'cm-from'}},
                    {'prefix': 'S_', 'secretRef': {'name': 'sec-from'}},
                ],
            }
        ],
        'volumes': [
            {'name': 'v1', 'configMap': {'name': 'cm-vol'}},
            {'name': 'v2', 'secret': {'secretName': 'sec-vol'}},
            {
                'name': 'v3',
                'projected': {
                    'sources': [
                        {'configMap': {'name': 'cm-proj'}},
                        {'secret': {'name': 'sec-proj'}},
                        {'downwardAPI': {'items': []}},
                    ]
                },
            },
            {
                'name': 'v4',
                'csi': {
                    'driver': 'x',
                    'nodePublishSecretRef': {'name': 'sec-csi'},
                },
            },
            {'name': 'v5', 'emptyDir': {}},
        ],
        'imagePullSecrets': [{'name': 'pull'}],
    }
    assert references.config_refs(spec) == {
        ('ConfigMap', 'cm-init'),
        ('Secret', 'sec-env'),
        ('ConfigMap', 'cm-from'),
        ('Secret', 'sec-from'),
        ('ConfigMap', 'cm-vol'),
        ('Secret', 'sec-vol'),
        ('ConfigMap', 'cm-proj'),
        ('Secret', 'sec-proj'),
        ('Secret', 'sec-csi'),
    }
    assert references.images(spec) == {
        'initContainers/init': 'busybox',
        'containers/app': 'nginx',
    }


def test_plain_env_values_are_not_references() -> None:
    spec = {
        'containers': [
            {
                'name': 'c',
                'env': [
                    {'name': 'A', 'value': 'cm-data'},
                    {'name': 'B'},
                    {'name': 'C', 'value': None},
                    'garbage',
                ],
            }
        ]
    }
    assert references.config_refs(spec) == set()


def test_ephemeral_containers_are_separate() -> None:
    spec = {
        'containers': [
            {'name': 'c', 'envFrom': [{'configMapRef': {'name': 'shared'}}]}
        ],
        'ephemeralContainers': [
            {
                'name': 'debug',
                'envFrom': [
                    {'configMapRef': {'name': 'debug-only'}},
                    {'configMapRef': {'name': 'shared'}},
                ],
            }
        ],
    }
    assert references.config_refs(spec) == {('ConfigMap', 'shared')}
    assert references.ephemeral_refs(spec) == {('ConfigMap', 'debug-only')}
    assert 'ephemeralContainers/debug' not in references.images(spec)


def test_pod_spec_of_each_workload_kind() -> None:
    spec = {'containers': [{'name': 'c', 'image': 'i'}]}
    assert references.pod_spec({'kind': 'Pod', 'spec': spec}) == spec
    for kind in ('Deployment', 'ReplicaSet', 'DaemonSet', 'StatefulSet'):
        obj = {'kind': kind, 'spec': {'template': {'spec': spec}}}
        assert references.pod_spec(obj) == spec
