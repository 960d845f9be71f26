"""Forced rollback: Pods of a reverted template are removed, not failures."""

from __future__ import annotations

from typing import Any

import pytest

from vnfm.clients.kubernetes import errors
from vnfm.clients.kubernetes import workloads
from vnfm.clients.kubernetes.watcher import key

Obj = dict[str, Any]
BROKEN = {
    'phase': 'Pending',
    'containerStatuses': [
        {
            'name': 'c',
            'state': {
                'waiting': {
                    'reason': 'ImagePullBackOff',
                    'message': 'Back-off pulling image',
                }
            },
        }
    ],
}
READY = {
    'phase': 'Running',
    'conditions': [{'type': 'Ready', 'status': 'True'}],
}


def _sts(
    image: str, update_revision: str, generation: int = 2, observed: int = 2
) -> Obj:
    return {
        'apiVersion': 'apps/v1',
        'kind': 'StatefulSet',
        'metadata': {
            'name': 'db',
            'namespace': 'ns',
            'uid': 'sts',
            'generation': generation,
        },
        'spec': {
            'replicas': 2,
            'template': {
                'spec': {'containers': [{'name': 'c', 'image': image}]}
            },
        },
        'status': {
            'observedGeneration': observed,
            'replicas': 2,
            'readyReplicas': 1,
            'currentRevision': 'good',
            'updateRevision': update_revision,
        },
    }


def _pod(
    name: str, revision: str, image: str, pod_status: Obj, owner: str = 'sts'
) -> Obj:
    return {
        'apiVersion': 'v1',
        'kind': 'Pod',
        'metadata': {
            'name': name,
            'namespace': 'ns',
            'uid': f'uid-{name}',
            'creationTimestamp': name,
            'labels': {workloads.REVISION_LABEL: revision},
            'ownerReferences': [{'uid': owner}],
        },
        'spec': {'containers': [{'name': 'c', 'image': image}]},
        'status': pod_status,
    }


class _Informer:
    def __init__(self, *objs: Obj) -> None:
        self.objects = {key(o): o for o in objs}


class _Kube:
    def __init__(self, informer: _Informer) -> None:
        self.informer = informer
        self.deleted: list[str] = []

    def delete(
        self,
        api: str,
        kind: str,
        name: str,
        ns: str | None,
        propagation: str,
        grace: int | None,
    ) -> bool:
        self.deleted.append(name)
        pod = self.informer.objects[('Pod', ns or '', name)]
        pod['metadata']['deletionTimestamp'] = 'now'
        return True


def _check(
    informer: _Informer, workload: Obj
) -> tuple[_Kube, workloads.ForcedRollback]:
    kube = _Kube(informer)
    return kube, workloads.ForcedRollback(kube, informer, [workload], 0)  # type: ignore[arg-type]


def test_broken_pod_of_the_reverted_template_is_deleted() -> None:
    sts = _sts('nginx', update_revision='good')
    broken = _pod('db-1', 'bad', 'no-such-image', BROKEN)
    informer = _Informer(sts, broken, _pod('db-0', 'good', 'nginx', READY))
    kube, check = _check(informer, sts)

    ready, why = check()

    assert kube.deleted == ['db-1']
    assert not ready and '1 of 2' in why
    check()
    assert kube.deleted == ['db-1']  # once


def test_a_plain_wait_fails_on_that_pod() -> None:
    sts = _sts('nginx', update_revision='good')
    informer = _Informer(sts, _pod('db-1', 'bad', 'no-such-image', BROKEN))
    with pytest.raises(errors.WorkloadFailed, match='ImagePullBackOff'):
        workloads.ReadyCheck(informer, [sts])()  # type: ignore[arg-type]


def test_broken_pod_of_the_current_template_still_fails() -> None:
    sts = _sts('nginx', update_revision='good')
    informer = _Informer(sts, _pod('db-1', 'good', 'nginx', BROKEN))
    kube, check = _check(informer, sts)
    with pytest.raises(errors.WorkloadFailed, match='ImagePullBackOff'):
        check()
    assert kube.deleted == []


def test_nothing_is_judged_before_the_revert_is_observed() -> None:
    sts = _sts('nginx', update_revision='bad', generation=3, observed=2)
    informer = _Informer(sts, _pod('db-1', 'bad', 'no-such-image', BROKEN))
    kube, check = _check(informer, sts)
    assert check() == (
        False,
        'StatefulSet ns/db: new generation not observed yet',
    )
    assert kube.deleted == []


def test_ready_pods_of_the_old_template_are_left_to_the_controller() -> None:
    sts = _sts('nginx', update_revision='good')
    informer = _Informer(sts, _pod('db-1', 'bad', 'tomcat', READY))
    kube, check = _check(informer, sts)
    check()
    assert kube.deleted == []


def test_outdated_without_revisions_compares_images() -> None:
    rs = {
        'kind': 'ReplicaSet',
        'metadata': {'uid': 'rs'},
        'spec': {
            'template': {
                'spec': {'containers': [{'name': 'c', 'image': 'nginx'}]}
            }
        },
    }
    assert workloads.outdated(rs, _pod('a', '', 'tomcat', READY, 'rs'), [])
    assert not workloads.outdated(rs, _pod('a', '', 'nginx', READY, 'rs'), [])


def test_deployment_pods_are_outdated_by_their_replicaset_revision() -> None:
    dep = {
        'kind': 'Deployment',
        'metadata': {
            'uid': 'd',
            'annotations': {workloads.DEPLOYMENT_REVISION: '3'},
        },
        'spec': {
            'template': {
                'spec': {'containers': [{'name': 'c', 'image': 'nginx'}]}
            }
        },
    }
    old_rs = {
        'kind': 'ReplicaSet',
        'metadata': {
            'uid': 'rs2',
            'annotations': {workloads.DEPLOYMENT_REVISION: '2'},
        },
    }
    pod = _pod('a', '', 'nginx', BROKEN, 'rs2')
    assert workloads.outdated(dep, pod, [old_rs])
    old_rs['metadata']['annotations'][workloads.DEPLOYMENT_REVISION] = '3'
    assert not workloads.outdated(dep, pod, [old_rs])
