"""Rollback of a failed container update, for every workload kind.

The update changes a ConfigMap, a Secret and the image of the workload
under test to one that cannot be pulled: by any Pod (the failure is at the
first restarted Pod), or by any but the first (``pull-limit-1``: the
simulated kubelet pulls it once, so the rollout fails at a later Pod, after
one Pod was replaced). Rollback must leave every template, image,
ConfigMap and Secret as before, with every Pod Ready: a StatefulSet does
not replace a Pod of the bad template that never became Ready, so those
Pods must be removed (Kubernetes' "forced rollback").
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest

from vnfm.clients import kubernetes as k8s
from vnfm.clients.kubernetes import status

from .conftest import Cnf
from .conftest import files_of
from .manifests import configmap
from .manifests import controller
from .manifests import env_from
from .manifests import pod
from .manifests import secret
from .manifests import set_image
from .manifests import spec
from .test_failure_and_dry_run import _state_path  # noqa: F401 - fixture

pytestmark = pytest.mark.timeout(180, func_only=True)
Obj = dict[str, Any]
USES_ALL = spec(
    envFrom=[env_from('ConfigMap', 'cm'), env_from('Secret', 'sec')]
)
ROLLING = {'type': 'RollingUpdate'}
WORKLOADS = {
    'Deployment': [controller('Deployment', 'w', USES_ALL, replicas=2)],
    'DaemonSet': [
        controller('DaemonSet', 'w', USES_ALL, updateStrategy=ROLLING)
    ],
    'StatefulSet-RollingUpdate': [
        controller(
            'StatefulSet', 'w', USES_ALL, replicas=2, updateStrategy=ROLLING
        )
    ],
    'StatefulSet-OnDelete': [
        controller(
            'StatefulSet',
            'w',
            USES_ALL,
            replicas=2,
            updateStrategy={'type': 'OnDelete'},
        )
    ],
    'ReplicaSet': [controller('ReplicaSet', 'w', USES_ALL, replicas=2)],
    'Pod': [pod('w-a', USES_ALL), pod('w-b', USES_ALL)],
}


def _files(value: str, workloads: list[Obj]) -> dict[str, bytes]:
    return files_of(
        {
            'Files/all.yaml': [
                configmap('cm', k=value),
                secret('sec', password=value),
                *workloads,
            ]
        }
    )


def _bad_image(at: str) -> str:
    if at == 'first':
        return 'registry.example/no-such-image:2'
    # Pulled by one Pod only (vnfm_testbed/k8s/kubelet.py), unique per test.
    return f'registry.example/pull-limit-1/app:{uuid.uuid4().hex[:12]}'


def _state(cnf: Cnf, workloads: list[Obj]) -> Obj:
    """Templates (or bare Pods' specs and annotations), ConfigMap/Secret
    data, and the images of every live Pod, by workload."""
    out: Obj = {
        'cm': cnf.get('ConfigMap', 'cm')['data'],
        'sec': cnf.get('Secret', 'sec')['data'],
    }
    pods = [
        p
        for p in cnf.kube.list('v1', 'Pod', cnf.namespace, cnf.selector)[0]
        if not p['metadata'].get('deletionTimestamp')
    ]
    for w in workloads:
        live = cnf.get(w['kind'], w['metadata']['name'])
        if w['kind'] == 'Pod':
            out[w['metadata']['name']] = (
                live['spec']['containers'],
                live['metadata'].get('annotations'),
            )
        else:
            out[w['metadata']['name']] = live['spec']['template']
        mine = k8s.pods_of(live, pods)
        out[f'{w["metadata"]["name"]} pods'] = sorted(
            p['spec']['containers'][0]['image'] for p in mine
        )
    return out


def _ready_with(cnf: Cnf, image: str) -> int:
    """How many live Pods running ``image`` are Ready."""
    return sum(
        1
        for p in cnf.kube.list('v1', 'Pod', cnf.namespace, cnf.selector)[0]
        if not p['metadata'].get('deletionTimestamp')
        and p['spec']['containers'][0]['image'] == image
        and status.pod(p)[0]
    )


def _all_ready(cnf: Cnf, workloads: list[Obj]) -> None:
    pods = cnf.kube.list('v1', 'Pod', cnf.namespace, cnf.selector)[0]
    live = [p for p in pods if not p['metadata'].get('deletionTimestamp')]
    assert live and all(status.pod(p)[0] for p in live), [
        (p['metadata']['name'], status.pod(p)) for p in live
    ]
    for w in workloads:
        obj = cnf.get(w['kind'], w['metadata']['name'])
        assert status.readiness(obj) == (True, ''), obj.get('status')


@pytest.mark.parametrize('at', ['first', 'later'])
@pytest.mark.parametrize('kind', sorted(WORKLOADS))
def test_rollback_restores_every_kind(
    deploy: Callable[..., Cnf], kind: str, at: str
) -> None:
    workloads = WORKLOADS[kind]
    cnf = deploy(_files('v1', workloads))
    before = _state(cnf, workloads)
    image = _bad_image(at)
    broken = _files('v2', [set_image(w, image) for w in workloads])

    with pytest.raises(k8s.WorkloadFailed, match='ImagePullBackOff'):
        cnf.update(broken)
    assert cnf.get('ConfigMap', 'cm')['data'] == {'k': 'v2'}
    # 'later': one Pod was replaced before the failure.
    assert _ready_with(cnf, image) == (1 if at == 'later' else 0)

    cnf.rollback(broken)

    assert _state(cnf, workloads) == before
    _all_ready(cnf, workloads)
