"""PVCs are bound by the real persistentvolume-binder controller."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes import client

from .helpers import eventually

pytestmark = pytest.mark.timeout(60, func_only=True)


def test_pvc_binds_to_matching_pv_and_pod_runs(
    k8s_api: client.ApiClient, namespace: str
) -> None:
    core = client.CoreV1Api(k8s_api)
    pv_name = f'pv-{namespace}'
    _create_manual_pv(core, pv_name, namespace)
    try:
        pvc = _claim_500mi_until_bound(core, namespace)
        assert pvc.spec.volume_name == pv_name
        pv = core.read_persistent_volume(pv_name)
        assert pv.status.phase == 'Bound'
        assert pv.spec.claim_ref.name == 'data'
        assert pv.spec.claim_ref.namespace == namespace

        _run_a_pod_mounting_the_claim(core, namespace)
    finally:
        core.delete_persistent_volume(pv_name)


def _create_manual_pv(
    core: client.CoreV1Api, pv_name: str, namespace: str
) -> None:
    """A 1Gi hostPath PV of storage class manual, labelled for the test."""
    core.create_persistent_volume(
        {
            'metadata': {'name': pv_name, 'labels': {'test-ns': namespace}},
            'spec': {
                'capacity': {'storage': '1Gi'},
                'accessModes': ['ReadWriteOnce'],
                'storageClassName': 'manual',
                'persistentVolumeReclaimPolicy': 'Retain',
                'hostPath': {'path': f'/tmp/{pv_name}'},
            },
        }
    )


def _claim_500mi_until_bound(core: client.CoreV1Api, namespace: str) -> Any:
    """PVC data (500Mi of class manual), once Bound."""
    core.create_namespaced_persistent_volume_claim(
        namespace,
        {
            'metadata': {'name': 'data'},
            'spec': {
                'accessModes': ['ReadWriteOnce'],
                'storageClassName': 'manual',
                'resources': {'requests': {'storage': '500Mi'}},
            },
        },
    )
    return eventually(
        lambda: (
            (
                p := core.read_namespaced_persistent_volume_claim(
                    'data', namespace
                )
            ).status.phase
            == 'Bound'
            and p
        ),
        'PVC data Bound',
    )


def _run_a_pod_mounting_the_claim(
    core: client.CoreV1Api, namespace: str
) -> None:
    """Pod uses-pvc mounting PVC data at /data, until Running."""
    core.create_namespaced_pod(
        namespace,
        {
            'metadata': {'name': 'uses-pvc'},
            'spec': {
                'containers': [
                    {
                        'name': 'app',
                        'image': 'nginx',
                        'volumeMounts': [
                            {'name': 'data', 'mountPath': '/data'}
                        ],
                    }
                ],
                'volumes': [
                    {
                        'name': 'data',
                        'persistentVolumeClaim': {'claimName': 'data'},
                    }
                ],
            },
        },
    )
    eventually(
        lambda: (
            core.read_namespaced_pod('uses-pvc', namespace).status.phase
            == 'Running'
        ),
        'pod with the PVC Running',
    )
