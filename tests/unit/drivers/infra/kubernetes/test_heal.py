"""Heal on Kubernetes: the Pods of the chosen VNFCs (all when none is
named) are evicted, their controllers replace them, and the VNFCs keep
their ids with the new Pods (against a stand-in cluster)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.drivers.infra.kubernetes import cluster
from vnfm.common import exceptions
from vnfm.drivers.infra.kubernetes import heal


@pytest.fixture
def kube(monkeypatch: pytest.MonkeyPatch) -> cluster.FakeKube:
    return cluster.install(monkeypatch, cluster.FakeKube({'web': 2, 'db': 1}))


def _info() -> dict:
    return cluster.instance_info({'vdu1_aspect': 1}, VDU1=2, VDU2=1)


def _vnfc_of(info: dict, pod: str) -> str:
    return next(
        e['id']
        for e in info['vnfcResourceInfo']
        if e['computeResource']['resourceId'] == pod
    )


def test_a_named_vnfc_gets_a_new_pod_under_its_id(
    kube: cluster.FakeKube, conf: Any
) -> None:
    conf('graceful_termination_timeout', 9, group='kubernetes')
    info = _info()
    healed = _vnfc_of(info, 'web-1')

    result = heal.heal(
        cluster.context('HEAL', info, {'vnfcInstanceId': [healed]})
    )

    # Evicted (so budgets hold) with the configured grace; the wait is for
    # a replacement, not for the old Pod.
    assert kube.calls == [('evict', 'web-1', 9), ('wait_ready', 'web')]
    assert kube.absent == ['uid-web-1']
    new = result.instantiated_vnf_info
    assert new is not None
    assert cluster.pods_of(new) == {
        'VDU2': ['db-0'],
        'VDU1': ['web-0', 'web-2'],
    }
    assert _vnfc_of(new, 'web-2') == healed
    assert sorted(e['id'] for e in new['vnfcResourceInfo']) == sorted(
        e['id'] for e in info['vnfcResourceInfo']
    )
    assert result.resource_changes is not None
    assert [
        (c['id'], c['changeType'])
        for c in result.resource_changes['affectedVnfcs']
    ] == [(healed, 'MODIFIED')]


def test_no_vnfc_named_heals_them_all(kube: cluster.FakeKube) -> None:
    result = heal.heal(cluster.context('HEAL', _info(), {}))

    assert sorted(c[1] for c in kube.calls if c[0] == 'evict') == [
        'db-0',
        'web-0',
        'web-1',
    ]
    assert result.instantiated_vnf_info is not None
    assert cluster.pods_of(result.instantiated_vnf_info) == {
        'VDU1': ['web-2', 'web-3'],
        'VDU2': ['db-1'],
    }


def test_a_pod_already_gone_is_left_to_its_controller(
    kube: cluster.FakeKube,
) -> None:
    info = _info()
    kube.live['web'] = ['web-0', 'web-5']  # web-1 was replaced meanwhile

    result = heal.heal(
        cluster.context(
            'HEAL', info, {'vnfcInstanceId': [_vnfc_of(info, 'web-1')]}
        )
    )

    assert kube.calls == [('wait_ready', 'web')]
    assert result.instantiated_vnf_info is not None
    assert cluster.pods_of(result.instantiated_vnf_info)['VDU1'] == [
        'web-0',
        'web-5',
    ]


def test_an_unknown_vnfc_is_named_and_nothing_is_evicted(
    kube: cluster.FakeKube,
) -> None:
    with pytest.raises(
        exceptions.OperationFailed, match='vnfcInstanceId nope is not a VNFC'
    ):
        heal.heal(
            cluster.context('HEAL', _info(), {'vnfcInstanceId': ['nope']})
        )
    assert kube.calls == []
