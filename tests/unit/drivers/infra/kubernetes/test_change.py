"""Change current VNF package on Kubernetes: the target package's
manifests are applied at today's counts, what only the source had is
deleted, and a rollback applies the source package again as a forced
rollback, deleting what the change created (against a stand-in cluster)."""

from __future__ import annotations

import pytest

from tests.unit.drivers.infra.kubernetes import cluster
from vnfm.common import exceptions
from vnfm.drivers.infra import base
from vnfm.drivers.infra.kubernetes import change
from vnfm.drivers.infra.kubernetes import resources

NEW = 'Files/kubernetes/cnf-v2.yaml'
REQUEST = {
    'vnfdId': 'cnf-v2',
    'additionalParams': {resources.DEF_FILES: [NEW]},
}


@pytest.fixture
def kube(monkeypatch: pytest.MonkeyPatch) -> cluster.FakeKube:
    return cluster.install(monkeypatch, cluster.FakeKube({'web': 2, 'db': 1}))


def _info() -> dict:
    return cluster.instance_info({'vdu1_aspect': 1}, VDU1=2, VDU2=1)


def _change(info: dict) -> base.InfraResult:
    return change.change_vnfpkg(
        cluster.context(
            'CHANGE_VNFPKG',
            info,
            REQUEST,
            target_package='v2',
            target_vnfd=cluster.VNFD,
        )
    )


def test_the_workloads_roll_to_the_target_package(
    kube: cluster.FakeKube,
) -> None:
    info = _info()

    result = _change(info)

    assert kube.calls == [
        ('prepare', 'v2', [NEW], {'VDU1': 2, 'VDU2': 1}),
        ('apply', 'ConfigMap', 'config-v2'),
        ('apply', 'Deployment', 'web'),
        ('apply', 'StatefulSet', 'db'),
        ('wait_ready', 'db', 'web'),
        # What only the source package had goes once the rollout is done.
        ('delete_refs', ['config-v1'], 'Foreground'),
    ]
    assert not kube.forced_rollback
    new = result.instantiated_vnf_info
    assert new is not None
    assert new['metadata'][resources.DEF_FILES] == [NEW]
    assert [r['name'] for r in new['metadata']['resources']] == [
        'config-v2',
        'web',
        'db',
    ]
    assert sorted(e['id'] for e in new['vnfcResourceInfo']) == sorted(
        e['id'] for e in info['vnfcResourceInfo']
    )
    # What a rollback needs: the source's record and what was created.
    assert result.work['source_metadata'] == info['metadata']
    assert [r['name'] for r in result.work['created']] == ['config-v2']


def test_without_the_target_package_nothing_is_changed(
    kube: cluster.FakeKube,
) -> None:
    with pytest.raises(exceptions.OperationFailed, match='target package'):
        change.change_vnfpkg(
            cluster.context('CHANGE_VNFPKG', _info(), REQUEST)
        )
    assert kube.calls == []


def test_the_rollback_applies_the_source_and_deletes_what_was_created(
    kube: cluster.FakeKube,
) -> None:
    info = _info()
    work = _change(info).work
    kube.calls.clear()

    result = change.rollback_change_vnfpkg(
        cluster.context('CHANGE_VNFPKG', info, REQUEST, work)
    )

    assert kube.calls == [
        ('prepare', 'v1', [cluster.MANIFESTS], {'VDU1': 2, 'VDU2': 1}),
        ('apply', 'ConfigMap', 'config-v1'),
        ('apply', 'Deployment', 'web'),
        ('apply', 'StatefulSet', 'db'),
        ('wait_ready', 'db', 'web'),
        ('delete_refs', ['config-v2'], 'Foreground'),
    ]
    # Pods of the target's templates that are not Ready are not waited for.
    assert kube.forced_rollback
    new = result.instantiated_vnf_info
    assert new is not None
    assert new['metadata'] == info['metadata']
    assert result.work['rolled_back'] is True
    assert result.work['source_metadata'] == info['metadata']
