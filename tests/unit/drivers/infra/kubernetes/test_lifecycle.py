"""Terminate: how long each Pod may take to stop, and what is deleted how,
in which order (against a recording stand-in for the cluster)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from vnfm.clients import kubernetes as k8s
from vnfm.clients.kubernetes import workloads
from vnfm.common import exceptions
from vnfm.drivers.infra import base
from vnfm.drivers.infra.kubernetes import common
from vnfm.drivers.infra.kubernetes import lifecycle

IID = 'inst-1'
NS = 'cnf'
Obj = dict[str, Any]


def _obj(kind: str, name: str, **meta: Any) -> Obj:
    api = 'v1' if kind in ('Pod', 'ConfigMap') else 'apps/v1'
    return {
        'apiVersion': 'batch/v1' if kind == 'CronJob' else api,
        'kind': kind,
        'metadata': {
            'name': name,
            'namespace': NS,
            'labels': {k8s.INSTANCE_LABEL: IID},
            **meta,
        },
    }


def _pod(name: str, own: int | None, **meta: Any) -> Obj:
    pod = _obj('Pod', name, **meta)
    pod['spec'] = {} if own is None else {'terminationGracePeriodSeconds': own}
    return pod


class FakeKube:
    """The instance's objects; records deletes and waits in order."""

    requests = 0

    def __init__(self, objs: list[Obj]) -> None:
        self.objs = {(o['kind'], o['metadata']['name']): o for o in objs}
        self.calls: list[tuple] = []

    def __enter__(self) -> FakeKube:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def get(self, api_version: str, kind: str, name: str, ns: Any) -> Any:
        return self.objs.get((kind, name))

    def list(self, api_version: str, kind: str, ns: Any, sel: Any) -> Any:
        assert (ns, sel) == (NS, common.selector(IID))
        return [o for (k, _), o in self.objs.items() if k == kind], ''

    def delete(self, api_version, kind, name, ns, propagation, grace=None):
        self.calls.append(('delete', kind, name, propagation, grace))
        return (kind, name) in self.objs

    def wait_gone(self, kube: Any, objs: list[Obj], *args: Any) -> None:
        names = sorted(o['metadata']['name'] for o in objs)
        self.calls.append(('wait', *names))
        for o in objs:
            self.objs.pop((o['kind'], o['metadata']['name']), None)


@pytest.fixture
def cluster(monkeypatch: pytest.MonkeyPatch) -> FakeKube:
    kube = FakeKube(
        [
            _obj('CronJob', 'report'),
            _obj('Deployment', 'web'),
            _obj('StatefulSet', 'db'),
            _obj('ConfigMap', 'config'),
            _obj('ReplicaSet', 'web-1'),
            _obj('ControllerRevision', 'db-1'),
            _pod('web-1-a', None),
            _pod('web-1-b', 600),
            _pod('db-0', 2),
            _pod(
                'helper',
                5,
                deletionTimestamp='2024-01-01T00:00:00Z',
                deletionGracePeriodSeconds=1,
            ),
        ]
    )
    monkeypatch.setattr(common, 'kube_for', lambda ctx: ('vim', kube))
    monkeypatch.setattr(k8s, 'wait_gone', kube.wait_gone)
    monkeypatch.setattr(workloads, 'wait_gone', kube.wait_gone)
    return kube


def _terminate(request: Obj) -> None:
    refs = [
        {'apiVersion': v, 'kind': k, 'name': n, 'namespace': NS}
        for v, k, n in (
            ('v1', 'ConfigMap', 'config'),
            ('apps/v1', 'Deployment', 'web'),
            ('apps/v1', 'StatefulSet', 'db'),
            ('v1', 'Pod', 'helper'),
            ('batch/v1', 'CronJob', 'report'),
        )
    ]
    ctx = base.InfraContext(
        operation='TERMINATE',
        vnf_instance={
            'id': IID,
            'instantiatedVnfInfo': {'metadata': {'resources': refs}},
        },
        request=request,
        vnfd={},
        flavour_id='simple',
        vim_connection_info={},
        package=None,  # type: ignore[arg-type]
        deadline=time.monotonic() + 60,
    )
    lifecycle.terminate(ctx)


def test_graceful_pods_get_at_most_the_timeout(cluster: FakeKube) -> None:
    _terminate(
        {'terminationType': 'GRACEFUL', 'gracefulTerminationTimeout': 3}
    )
    assert cluster.calls == [
        # Controllers first: they stop, and leave their Pods to vnfm.
        ('delete', 'CronJob', 'report', 'Background', None),
        ('delete', 'StatefulSet', 'db', 'Orphan', None),
        ('delete', 'Deployment', 'web', 'Orphan', None),
        # What they made, ReplicaSets before Pods; each Pod at most 3 s,
        # less if it asks for less; the helper already has 1 s.
        ('delete', 'ReplicaSet', 'web-1', 'Orphan', None),
        ('delete', 'ControllerRevision', 'db-1', 'Background', None),
        ('delete', 'Pod', 'web-1-a', 'Background', 3),
        ('delete', 'Pod', 'web-1-b', 'Background', 3),
        ('delete', 'Pod', 'db-0', 'Background', 2),
        (
            'wait',
            'db',
            'db-0',
            'db-1',
            'helper',
            'report',
            'web',
            'web-1',
            'web-1-a',
            'web-1-b',
        ),
        # Only then what the stopping Pods may still use.
        ('delete', 'ConfigMap', 'config', 'Background', None),
        ('wait', 'config'),
    ]


def test_graceful_default_timeout_from_config(
    cluster: FakeKube, conf: Any
) -> None:
    conf('graceful_termination_timeout', 7, group='kubernetes')
    _terminate({'terminationType': 'GRACEFUL'})
    pods = {c[2]: c[4] for c in cluster.calls if c[1] == 'Pod'}
    assert pods == {'web-1-a': 7, 'web-1-b': 7, 'db-0': 2}


def test_forceful_pods_get_no_grace(cluster: FakeKube) -> None:
    _terminate({'terminationType': 'FORCEFUL'})
    pods = {c[2]: c[4] for c in cluster.calls if c[1] == 'Pod'}
    assert pods == {'web-1-a': 0, 'web-1-b': 0, 'db-0': 0, 'helper': 0}
    # Nothing waits for the garbage collector to orphan anything.
    assert {c[3] for c in cluster.calls if c[0] == 'delete'} == {'Background'}


def test_an_object_left_at_the_deadline_is_named(
    cluster: FakeKube, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(common, 'delete_deadline', lambda ctx, grace: 0.0)
    with pytest.raises(
        exceptions.DeadlineExceeded, match='ReplicaSet cnf/web-1 still exists'
    ):
        _terminate({'terminationType': 'FORCEFUL'})
