"""Apply order, labels, owner references and create-or-patch."""

import pytest

from vnfm.clients import kubernetes as k8s
from vnfm.clients.kubernetes import manifests
from vnfm.clients.kubernetes import workloads


def _obj(kind, name='x', **extra):
    return {
        'apiVersion': 'v1',
        'kind': kind,
        'metadata': {'name': name, 'namespace': 'ns'},
        **extra,
    }


def test_apply_order_puts_dependencies_first():
    objs = [
        _obj(k)
        for k in (
            'Deployment',
            'Service',
            'Pod',
            'ConfigMap',
            'Namespace',
            'Secret',
            'Widget',
            'RoleBinding',
        )
    ]
    kinds = [o['kind'] for o in manifests.apply_order(objs)]
    assert kinds[:2] == ['Namespace', 'RoleBinding']
    assert (
        kinds.index('ConfigMap') < kinds.index('Service') < kinds.index('Pod')
    )
    assert kinds.index('Widget') < kinds.index(
        'Pod'
    )  # unknown kinds before workloads
    assert [o['kind'] for o in manifests.delete_order(objs)][-1] == 'Namespace'


def test_labels_go_on_the_object_and_its_pod_template():
    dep = _obj(
        'Deployment', spec={'template': {'metadata': {'labels': {'app': 'a'}}}}
    )
    out = manifests.labelled(dep, {k8s.INSTANCE_LABEL: 'i1'})
    assert out['metadata']['labels'] == {k8s.INSTANCE_LABEL: 'i1'}
    assert out['spec']['template']['metadata']['labels'] == {
        'app': 'a',
        k8s.INSTANCE_LABEL: 'i1',
    }
    assert 'labels' not in dep['metadata']  # the input is not changed
    cron = _obj('CronJob', spec={'jobTemplate': {'spec': {'template': {}}}})
    out = manifests.labelled(cron, {'l': 'v'})
    assert out['spec']['jobTemplate']['spec']['template']['metadata'] == {
        'labels': {'l': 'v'}
    }


class FakeKube:
    """Records calls; ``existing`` answers get()."""

    def __init__(self, existing=None):
        self.existing = existing
        self.calls = []

    def create(self, obj):
        self.calls.append('create')
        if self.existing is not None:
            raise k8s.KubernetesConflict('exists')
        return obj

    def get(self, *args):
        self.calls.append('get')
        return self.existing

    def patch(self, api, kind, name, ns, body):
        self.calls.append('patch')
        return body


def test_apply_creates_then_patches_its_own_object():
    obj = manifests.labelled(_obj('ConfigMap'), {k8s.INSTANCE_LABEL: 'i1'})
    assert manifests.apply(FakeKube(), obj, 'i1') == (obj, True)
    kube = FakeKube(existing=obj)
    assert manifests.apply(kube, obj, 'i1') == (obj, False)
    assert kube.calls == ['create', 'get', 'patch']


def test_apply_never_adopts_an_object_of_someone_else():
    obj = manifests.labelled(
        _obj('ConfigMap', 'cm'), {k8s.INSTANCE_LABEL: 'i1'}
    )
    kube = FakeKube(existing=_obj('ConfigMap', 'cm'))
    with pytest.raises(
        k8s.KubernetesConflict,
        match='ConfigMap ns/cm already '
        'exists and is not managed by VNF instance i1',
    ):
        manifests.apply(kube, obj, 'i1')
    assert 'patch' not in kube.calls


def _owned(kind, name, uid, owner=None, **meta):
    refs = [{'uid': owner}] if owner else []
    return {
        'kind': kind,
        'metadata': {
            'name': name,
            'uid': uid,
            'namespace': 'ns',
            'ownerReferences': refs,
            **meta,
        },
    }


def test_pods_of_a_deployment_follow_owner_references():
    dep = _owned('Deployment', 'web', 'd1')
    objs = [
        dep,
        _owned('ReplicaSet', 'web-a', 'r1', 'd1'),
        _owned('ReplicaSet', 'other', 'r2', 'dX'),
        _owned('Pod', 'web-a-1', 'p1', 'r1', creationTimestamp='2'),
        _owned('Pod', 'web-a-0', 'p0', 'r1', creationTimestamp='1'),
        _owned('Pod', 'web-a-2', 'p2', 'r1', deletionTimestamp='x'),
        _owned('Pod', 'web-look-alike', 'p3', 'r2'),
    ]
    assert [p['metadata']['name'] for p in workloads.pods_of(dep, objs)] == [
        'web-a-0',
        'web-a-1',
    ]
    bare = _owned('Pod', 'solo', 'p9')
    assert workloads.pods_of(bare, objs + [bare]) == [bare]
