"""Operate on Kubernetes: STOPPED scales every VDU workload to zero, each
Pod given at most the request's time, and remembers the counts in the
instance record; STARTED brings them back with the same VNFC ids
(against a stand-in cluster)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.drivers.infra.kubernetes import cluster
from vnfm.common import exceptions
from vnfm.drivers.infra.kubernetes import operate

STOP = {'changeStateTo': 'STOPPED'}
START = {'changeStateTo': 'STARTED'}


@pytest.fixture
def kube(monkeypatch: pytest.MonkeyPatch) -> cluster.FakeKube:
    return cluster.install(monkeypatch, cluster.FakeKube({'web': 2, 'db': 1}))


def _info() -> dict:
    return cluster.instance_info({'vdu1_aspect': 1}, VDU1=2, VDU2=1)


def _deleted(kube: cluster.FakeKube) -> dict[str, int]:
    return {c[2]: c[3] for c in kube.calls if c[0] == 'delete'}


def test_stop_scales_to_zero_and_remembers_the_counts(
    kube: cluster.FakeKube,
) -> None:
    ctx = cluster.context(
        'OPERATE',
        _info(),
        {**STOP, 'stopType': 'GRACEFUL', 'gracefulStopTimeout': 5},
    )

    result = operate.operate(ctx)

    assert kube.calls[:2] == [
        ('patch', 'Deployment', 'web', 0),
        ('patch', 'StatefulSet', 'db', 0),
    ]
    # Each Pod at most 5 s (it asks for 30), then vnfm waits for all.
    assert _deleted(kube) == {'web-0': 5, 'web-1': 5, 'db-0': 5}
    assert kube.calls[-1] == ('wait_gone', 'db-0', 'web-0', 'web-1')
    new = result.instantiated_vnf_info
    assert new is not None
    assert new['vnfState'] == 'STOPPED'
    assert new['vnfcResourceInfo'] == [] and new['vnfcInfo'] == []
    assert new['metadata'][operate.STOPPED_COUNTS] == {'VDU1': 2, 'VDU2': 1}
    assert result.resource_changes is not None
    assert {
        c['changeType'] for c in result.resource_changes['affectedVnfcs']
    } == {'REMOVED'}


def test_a_forceful_stop_gives_no_grace_and_the_default_is_the_config(
    kube: cluster.FakeKube, conf: Any
) -> None:
    operate.operate(
        cluster.context('OPERATE', _info(), {**STOP, 'stopType': 'FORCEFUL'})
    )
    assert set(_deleted(kube).values()) == {0}
    kube.calls.clear()
    kube.patch(
        'apps/v1', 'Deployment', 'web', 'cnf', {'spec': {'replicas': 2}}
    )
    kube.patch(
        'apps/v1', 'StatefulSet', 'db', 'cnf', {'spec': {'replicas': 1}}
    )
    conf('graceful_termination_timeout', 7, group='kubernetes')
    operate.operate(cluster.context('OPERATE', _info(), STOP))
    assert set(_deleted(kube).values()) == {7}


def test_start_restores_the_counts_and_the_vnfc_ids(
    kube: cluster.FakeKube,
) -> None:
    before = _info()
    stopped = operate.operate(cluster.context('OPERATE', before, STOP))
    assert stopped.instantiated_vnf_info is not None
    kube.calls.clear()

    result = operate.operate(
        cluster.context('OPERATE', stopped.instantiated_vnf_info, START)
    )

    assert kube.calls == [
        ('patch', 'Deployment', 'web', 2),
        ('patch', 'StatefulSet', 'db', 1),
        ('wait_ready', 'db', 'web'),
    ]
    new = result.instantiated_vnf_info
    assert new is not None
    assert new['vnfState'] == 'STARTED'
    assert operate.STOPPED_COUNTS not in new['metadata']
    assert sorted(e['id'] for e in new['vnfcResourceInfo']) == sorted(
        e['id'] for e in before['vnfcResourceInfo']
    )


def test_a_workload_that_cannot_stop_changes_nothing(
    kube: cluster.FakeKube,
) -> None:
    info = _info()
    info['metadata']['vdus']['VDU2']['kind'] = 'DaemonSet'
    with pytest.raises(
        exceptions.OperationFailed,
        match='VDU VDU2 is a DaemonSet .db.; only .* Nothing was changed.',
    ):
        operate.operate(cluster.context('OPERATE', info, STOP))
    assert kube.calls == []


def test_the_rollback_of_a_failed_stop_starts_the_workloads_again(
    kube: cluster.FakeKube,
) -> None:
    work = {'previous_counts': {'VDU1': 2, 'VDU2': 1}}
    result = operate.rollback_operate(
        cluster.context('OPERATE', _info(), STOP, work)
    )
    assert kube.calls == [
        ('patch', 'Deployment', 'web', 2),
        ('patch', 'StatefulSet', 'db', 1),
        ('wait_ready', 'db', 'web'),
    ]
    # The instance's record was never changed.
    assert result.instantiated_vnf_info is None
