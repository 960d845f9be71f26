"""Scale on Kubernetes: the aspect's VDU workloads get the new level's
replicas, the instance record follows the Pods, and a failed scale is
rolled back to the counts it had (against a stand-in cluster)."""

from __future__ import annotations

import pytest

from tests.unit.drivers.infra.kubernetes import cluster
from vnfm.common import exceptions
from vnfm.drivers import scaling
from vnfm.drivers.infra import base
from vnfm.drivers.infra.kubernetes import scale

OUT = {'type': 'SCALE_OUT', 'aspectId': 'vdu1_aspect'}


@pytest.fixture
def kube(monkeypatch: pytest.MonkeyPatch) -> cluster.FakeKube:
    return cluster.install(monkeypatch, cluster.FakeKube({'web': 2, 'db': 1}))


def _info() -> dict:
    return cluster.instance_info({'vdu1_aspect': 1}, VDU1=2, VDU2=1)


def test_scale_out_by_two_steps(kube: cluster.FakeKube) -> None:
    info = _info()
    ctx = cluster.context('SCALE', info, {**OUT, 'numberOfSteps': 2})

    result = scale.scale(ctx)

    # Only the aspect's VDU changes, to 1 + 3 steps.
    assert kube.calls == [
        ('patch', 'Deployment', 'web', 4),
        ('wait_ready', 'web'),
    ]
    new = result.instantiated_vnf_info
    assert new is not None
    assert new['scaleStatus'] == [{'aspectId': 'vdu1_aspect', 'scaleLevel': 3}]
    assert cluster.pods_of(new) == {
        'VDU2': ['db-0'],
        'VDU1': ['web-0', 'web-1', 'web-2', 'web-3'],
    }
    # The VNFCs that were there keep their ids; two are added.
    old_ids = {e['id'] for e in info['vnfcResourceInfo']}
    assert old_ids <= {e['id'] for e in new['vnfcResourceInfo']}
    assert result.resource_changes is not None
    added = result.resource_changes['affectedVnfcs']
    assert [(c['vduId'], c['changeType']) for c in added] == [
        ('VDU1', 'ADDED'),
        ('VDU1', 'ADDED'),
    ]
    # What a rollback needs.
    assert result.work['previous_counts'] == {'VDU1': 2}
    assert result.work['previous_levels'] == {'vdu1_aspect': 1}


def test_scale_in_removes_the_vnfcs_whose_pods_went(
    kube: cluster.FakeKube,
) -> None:
    ctx = cluster.context('SCALE', _info(), {**OUT, 'type': 'SCALE_IN'})

    result = scale.scale(ctx)

    assert kube.calls[0] == ('patch', 'Deployment', 'web', 1)
    assert result.instantiated_vnf_info is not None
    assert cluster.pods_of(result.instantiated_vnf_info)['VDU1'] == ['web-0']
    assert result.resource_changes is not None
    assert [
        c['changeType'] for c in result.resource_changes['affectedVnfcs']
    ] == ['REMOVED']


def test_a_scale_past_the_aspects_levels_changes_nothing(
    kube: cluster.FakeKube,
) -> None:
    ctx = cluster.context('SCALE', _info(), {**OUT, 'numberOfSteps': 3})
    with pytest.raises(scaling.ScaleNotPossible, match='outside 0..3'):
        scale.scale(ctx)
    assert kube.calls == []


def test_a_refused_patch_hands_the_rollback_the_previous_counts(
    kube: cluster.FakeKube,
) -> None:
    kube.refuse = 'web'
    ctx = cluster.context('SCALE', _info(), OUT)

    with pytest.raises(base.PartialFailure, match='web: forbidden') as e:
        scale.scale(ctx)

    work = e.value.work
    assert work['previous_counts'] == {'VDU1': 2}
    kube.refuse = None
    back = scale.rollback_scale(cluster.context('SCALE', _info(), OUT, work))
    assert kube.calls[-2:] == [
        ('patch', 'Deployment', 'web', 2),
        ('wait_ready', 'web'),
    ]
    assert back.instantiated_vnf_info is not None
    assert back.instantiated_vnf_info['scaleStatus'] == [
        {'aspectId': 'vdu1_aspect', 'scaleLevel': 1}
    ]


def test_a_rollback_without_previous_counts_says_so(
    kube: cluster.FakeKube,
) -> None:
    with pytest.raises(exceptions.OperationFailed, match='Nothing to roll'):
        scale.rollback_scale(cluster.context('SCALE', _info(), OUT))
    assert kube.calls == []
