"""What the Kubernetes driver's operations share: applying objects so a
rollback finds what was created, the deadlines of waits, and what the
instance record says was deployed."""

from __future__ import annotations

import time
from typing import Any

import pytest

from vnfm.clients import kubernetes as k8s
from vnfm.common import exceptions
from vnfm.drivers.infra import base
from vnfm.drivers.infra.kubernetes import common

Obj = dict[str, Any]


def _cm(name: str) -> Obj:
    return {
        'apiVersion': 'v1',
        'kind': 'ConfigMap',
        'metadata': {'name': name, 'namespace': 'cnf'},
    }


def _ctx(deadline: float, **instance: Any) -> base.InfraContext:
    return base.InfraContext(
        operation='SCALE',
        vnf_instance={'id': 'inst-1', **instance},
        request={},
        vnfd={},
        flavour_id='simple',
        vim_connection_info={'vim-1': {}},
        package=None,  # type: ignore[arg-type]
        deadline=deadline,
    )


@pytest.fixture
def applied(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """k8s.apply: 'old' exists already, 'bad' is refused, others created."""
    seen: dict[str, Any] = {'names': []}

    def apply(kube: Any, obj: Obj, instance_id: str) -> tuple[Obj, bool]:
        name = obj['metadata']['name']
        seen['names'].append((name, instance_id))
        if name == 'bad':
            raise k8s.KubernetesError('ConfigMap cnf/bad: field is immutable')
        return dict(obj, live=True), name != 'old'

    monkeypatch.setattr(k8s, 'apply', apply)
    return seen


def test_apply_all_records_what_it_created_for_the_rollback(
    applied: dict[str, Any],
) -> None:
    work: Obj = {'created': [common.resources.ref_of(_cm('a'))]}

    live = common.apply_all(
        None,  # type: ignore[arg-type]
        [_cm('a'), _cm('old'), _cm('b')],
        'inst-1',
        work,
    )

    assert [o['metadata']['name'] for o in live] == ['a', 'old', 'b']
    assert all(o['live'] for o in live)
    # 'a' was created by an earlier try: recorded once; 'old' is not vnfm's.
    assert [r['name'] for r in work['created']] == ['a', 'b']
    assert applied['names'] == [
        ('a', 'inst-1'),
        ('old', 'inst-1'),
        ('b', 'inst-1'),
    ]


def test_a_refusal_before_anything_was_created_keeps_its_error(
    applied: dict[str, Any],
) -> None:
    work: Obj = {}
    with pytest.raises(k8s.KubernetesError, match='field is immutable') as e:
        common.apply_all(None, [_cm('old'), _cm('bad')], 'i', work)  # type: ignore[arg-type]
    assert not isinstance(e.value, base.PartialFailure)
    assert work == {'created': []}


def test_a_refusal_after_a_creation_hands_the_rollback_what_to_delete(
    applied: dict[str, Any],
) -> None:
    work: Obj = {'step': 'apply'}
    with pytest.raises(base.PartialFailure) as e:
        common.apply_all(None, [_cm('a'), _cm('bad'), _cm('b')], 'i', work)  # type: ignore[arg-type]
    assert e.value.detail == 'ConfigMap cnf/bad: field is immutable'
    assert e.value.work is work
    assert [r['name'] for r in work['created']] == ['a']
    assert [n for n, _ in applied['names']] == ['a', 'bad']


def test_a_workload_not_ready_is_a_partial_failure_with_the_work(
    monkeypatch: pytest.MonkeyPatch, conf: Any
) -> None:
    conf('ready_timeout', 30, group='kubernetes')
    calls = []

    def wait_ready(kube, workloads, selector, deadline, absent, forced):
        calls.append((selector, round(deadline - time.monotonic()), absent))
        raise exceptions.DeadlineExceeded('Deployment cnf/web: 1/2 ready')

    monkeypatch.setattr(k8s, 'wait_ready', wait_ready)
    work: Obj = {'created': []}
    with pytest.raises(base.PartialFailure, match='1/2 ready') as e:
        common.wait_ready(
            _ctx(time.monotonic() + 600),
            None,  # type: ignore[arg-type]
            [],
            'inst-1',
            work,
        )
    assert e.value.work is work
    # The config's timeout, the op's deadline being later.
    assert calls == [(f'{k8s.INSTANCE_LABEL}=inst-1', 30, [])]


def test_waits_end_at_the_ops_deadline_when_it_comes_first(conf: Any) -> None:
    conf('ready_timeout', 600, group='kubernetes')
    conf('delete_timeout', 600, group='kubernetes')
    end = time.monotonic() + 5
    ctx = _ctx(end)
    assert common.ready_deadline(ctx) == end
    assert common.delete_deadline(ctx, grace=30) == end


def test_no_wait_starts_past_the_ops_deadline() -> None:
    ctx = _ctx(time.monotonic() - 1)
    with pytest.raises(exceptions.DeadlineExceeded, match='SCALE ran past'):
        common.delete_deadline(ctx)


def test_delete_deadline_gives_the_pods_grace_on_top(conf: Any) -> None:
    conf('delete_timeout', 60, group='kubernetes')
    ctx = _ctx(time.monotonic() + 3600)
    left = common.delete_deadline(ctx, grace=30) - time.monotonic()
    assert 85 < left <= 90


def test_the_record_of_what_was_deployed_names_each_vdus_pods() -> None:
    web = {
        'apiVersion': 'apps/v1',
        'kind': 'Deployment',
        'metadata': {'name': 'web', 'namespace': 'cnf'},
    }
    info = {
        'scaleStatus': [{'aspectId': 'worker', 'scaleLevel': '2'}],
        'metadata': {'vdus': {'VDU1': common.resources.ref_of(web)}},
    }
    ctx = _ctx(time.monotonic() + 60, instantiatedVnfInfo=info)

    assert common.info_of(ctx) == info and common.info_of(ctx) is not info
    assert common.levels_of(info) == {'worker': 2}
    workloads = common.vdu_workloads(info)
    assert workloads == {'VDU1': web}
    pods = {('Deployment', 'cnf', 'web'): [{'metadata': {'name': 'web-x'}}]}
    assert common.pod_names(pods, workloads) == {'VDU1': ['web-x']}
    assert common.pod_names({}, workloads) == {'VDU1': []}
    assert common.levels_of({}) == {} and common.vdu_workloads({}) == {}
