"""Carrying out a container update's plan: what each ConfigMap or Secret
change sends, the patch that rolls a workload (new images, the hash
annotation), and how a Pod is removed (evicted, or deleted when the
request accepts the disruption or a rollback finds it not Ready), against
a recording stand-in for the cluster. The watched waits: the
integration tests of tests/integration/container_update."""

from __future__ import annotations

import time
from typing import Any

import pytest

from vnfm.clients import kubernetes as k8s
from vnfm.drivers.mgmt.container_update import content
from vnfm.drivers.mgmt.container_update import planner
from vnfm.drivers.mgmt.container_update import restart

Obj = dict[str, Any]
IID = 'inst-1'


def _cm(name: str, **data: str) -> Obj:
    return {
        'apiVersion': 'v1',
        'kind': 'ConfigMap',
        'metadata': {'name': name, 'namespace': 'cnf'},
        'data': data,
    }


class FakeKube:
    """Records what is sent; evictions of ``blocked`` Pods are refused."""

    def __init__(self, blocked: tuple[str, ...] = ()) -> None:
        self.calls: list[tuple] = []
        self.blocked = blocked

    def patch(self, api_version, kind, name, ns, body) -> Obj:
        self.calls.append(('patch', api_version, kind, name, body))
        return {'metadata': {'generation': 2}}

    def delete(self, api_version, kind, name, ns, propagation, grace=None):
        self.calls.append(('delete', kind, name, grace))
        return True

    def evict_until(self, name, ns, grace, deadline, on_refused) -> None:
        self.calls.append(('evict', name, grace))
        if name in self.blocked:
            on_refused(f'Pod {ns}/{name}: budget web allows no disruption')
            raise k8s.EvictionBlocked(
                f'Pod {ns}/{name} cannot be evicted: PodDisruptionBudget web.'
            )


@pytest.fixture
def applied(monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    """k8s.apply and k8s.delete_and_wait, recorded."""
    calls: list[tuple] = []

    def apply(kube: Any, obj: Obj, iid: str) -> tuple[Obj, bool]:
        calls.append(('apply', obj, iid))
        return obj, True

    monkeypatch.setattr(k8s, 'apply', apply)

    def delete_and_wait(kube, objs, selector, deadline, propagation):
        names = [o['metadata']['name'] for o in objs]
        calls.append(('delete_and_wait', names, selector, propagation))

    monkeypatch.setattr(k8s, 'delete_and_wait', delete_and_wait)
    return calls


def _config(action: str, live: Obj | None) -> planner.ConfigChange:
    desired = _cm('config', mode='new')
    return planner.ConfigChange(
        ('ConfigMap', 'cnf', 'config'), action, desired, live
    )


def test_a_changed_configmap_is_patched_its_old_keys_removed(
    applied: list[tuple],
) -> None:
    kube = FakeKube()
    live = _cm('config', mode='old', stale='x')
    restart.apply_config(kube, _config('patch', live), IID, time.monotonic())  # type: ignore[arg-type]
    assert kube.calls == [
        (
            'patch',
            'v1',
            'ConfigMap',
            'config',
            {'data': {'mode': 'new', 'stale': None}},
        )
    ]
    assert applied == []


def test_a_configmap_to_recreate_is_deleted_then_created_labelled(
    applied: list[tuple],
) -> None:
    kube = FakeKube()
    restart.apply_config(
        kube,  # type: ignore[arg-type]
        _config('recreate', _cm('config', mode='old')),
        IID,
        time.monotonic() + 60,
    )
    [deleted, created] = applied
    assert deleted == (
        'delete_and_wait',
        ['config'],
        f'{k8s.INSTANCE_LABEL}={IID}',
        'Background',
    )
    assert created[0] == 'apply' and created[2] == IID
    obj = created[1]
    assert obj['data'] == {'mode': 'new'}
    assert obj['metadata']['labels'] == {k8s.INSTANCE_LABEL: IID}
    assert kube.calls == []


def _workload(method: str, config_hash: str | None) -> planner.WorkloadChange:
    return planner.WorkloadChange(
        key=('Deployment', 'cnf', 'web'),
        method=method,
        desired={'kind': 'Pod', 'metadata': {'name': 'web'}},
        images={'containers/app': 'web:2', 'initContainers/setup': 'init:2'},
        config_hash=config_hash,
        reasons=[],
        pods=['web-0'],
        template_stale=True,
        previous_images={},
        previous_hash=None,
    )


def test_a_rolling_workloads_template_gets_the_images_and_the_hash() -> None:
    patch = restart.template_patch(_workload(planner.ROLLOUT, 'h-1'))
    assert patch == {
        'spec': {
            'template': {
                'metadata': {'annotations': {content.HASH_ANNOTATION: 'h-1'}},
                'spec': {
                    'containers': [{'name': 'app', 'image': 'web:2'}],
                    'initContainers': [{'name': 'setup', 'image': 'init:2'}],
                },
            }
        }
    }
    # A rollback removes the annotation; a bare Pod is patched itself.
    bare = restart.template_patch(_workload(planner.RECREATE, None))
    assert bare['metadata'] == {'annotations': {content.HASH_ANNOTATION: None}}
    assert bare['spec']['containers'] == [{'name': 'app', 'image': 'web:2'}]


def test_the_api_version_of_each_kind_updated() -> None:
    assert [
        restart.api_version(k)
        for k in ('Pod', 'ConfigMap', 'Secret', 'Deployment', 'StatefulSet')
    ] == ['v1', 'v1', 'v1', 'apps/v1', 'apps/v1']


def _restarter(kube: FakeKube, shown: list, **kw: Any) -> restart.Restarter:
    return restart.Restarter(
        kube,  # type: ignore[arg-type]
        IID,
        time.monotonic() + 60,
        show_waiting=shown.append,
        **kw,
    )


def test_a_pod_is_evicted_with_the_configured_grace(conf: Any) -> None:
    conf('graceful_termination_timeout', 11, group='kubernetes')
    kube, shown = FakeKube(), list[str | None]()
    _restarter(kube, shown)._remove('web-0', 'cnf', {'metadata': {}})
    assert kube.calls == [('evict', 'web-0', 11)]
    assert shown == [None]  # the op no longer shows a wait


def test_a_blocked_eviction_says_how_to_accept_the_disruption() -> None:
    kube, shown = FakeKube(blocked=('web-0',)), list[str | None]()
    with pytest.raises(k8s.EvictionBlocked) as e:
        _restarter(kube, shown)._remove('web-0', 'cnf', {'metadata': {}})
    assert str(e.value).startswith(
        'Pod cnf/web-0 cannot be evicted: PodDisruptionBudget web. To '
        'restart it anyway, accept the disruption'
    )
    assert '"vnfm_disruption_allowed": true' in str(e.value)
    # What the op showed while it waited, then nothing.
    assert shown == ['Pod cnf/web-0: budget web allows no disruption', None]


def test_an_accepted_disruption_deletes_instead(conf: Any) -> None:
    conf('graceful_termination_timeout', 11, group='kubernetes')
    kube = FakeKube(blocked=('web-0',))
    _restarter(kube, [], disruption_allowed=True)._remove('web-0', 'cnf', None)
    assert kube.calls == [('delete', 'Pod', 'web-0', 11)]


def test_a_rollback_deletes_a_pod_that_is_not_ready() -> None:
    kube = FakeKube(blocked=('web-0', 'web-1'))
    not_ready = {
        'metadata': {'name': 'web-0'},
        'status': {'phase': 'Pending', 'conditions': []},
    }
    ready = {
        'metadata': {'name': 'web-1'},
        'status': {
            'phase': 'Running',
            'conditions': [{'type': 'Ready', 'status': 'True'}],
        },
    }
    restarter = _restarter(kube, [], rollback=True)
    restarter._remove('web-0', 'cnf', not_ready)
    with pytest.raises(k8s.EvictionBlocked):
        restarter._remove('web-1', 'cnf', ready)
    assert [c[0] for c in kube.calls] == ['delete', 'evict']


def test_an_empty_plan_restarts_nothing() -> None:
    kube = FakeKube()
    assert _restarter(kube, []).run(planner.Plan([], [])) == {}
    assert kube.calls == []


def test_pod_names_by_workload() -> None:
    key = ('Deployment', 'cnf', 'web')
    pods = {
        key: [{'metadata': {'name': 'web-a'}}, {'metadata': {'name': 'web-b'}}]
    }
    assert restart.pod_names(pods) == {key: ['web-a', 'web-b']}
