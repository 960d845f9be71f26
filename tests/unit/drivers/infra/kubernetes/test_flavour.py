"""Change VNF flavour on Kubernetes: the target flavour's manifests (the
request's, else those the instance was deployed with) are applied at the
counts of the requested instantiation level, and the rollback returns to
the source flavour (against a stand-in cluster)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.unit.drivers.infra.kubernetes import cluster
from vnfm.drivers import scaling
from vnfm.drivers.infra import base
from vnfm.drivers.infra.kubernetes import flavour
from vnfm.drivers.infra.kubernetes import resources

LARGE = 'Files/kubernetes/large.yaml'
VNFD: dict[str, Any] = copy.deepcopy(cluster.VNFD)
VNFD['flavours']['large'] = {
    'flavour_id': 'large',
    'vdus': {'VDU1': {'min_instances': 2, 'max_instances': 3}},
    'default_instantiation_level': 'medium',
    'instantiation_levels': {
        'medium': {'vdu_levels': {'VDU1': 2}},
        'big': {'vdu_levels': {'VDU1': 3}},
        'huge': {'vdu_levels': {'VDU1': 5}},
    },
}


@pytest.fixture
def kube(monkeypatch: pytest.MonkeyPatch) -> cluster.FakeKube:
    return cluster.install(monkeypatch, cluster.FakeKube({'web': 2, 'db': 1}))


def _info() -> dict:
    return cluster.instance_info({'vdu1_aspect': 1}, VDU1=2, VDU2=1)


def _change(info: dict, **request: Any) -> base.InfraResult:
    return flavour.change_flavour(
        cluster.context(
            'CHANGE_FLAVOUR',
            info,
            {'newFlavourId': 'large', **request},
            vnfd=VNFD,
        )
    )


def test_the_request_level_sets_the_counts_and_the_source_rest_goes(
    kube: cluster.FakeKube,
) -> None:
    result = _change(
        _info(),
        instantiationLevelId='big',
        additionalParams={resources.DEF_FILES: [LARGE]},
    )

    assert kube.calls[0] == ('prepare', 'v1', [LARGE], {'VDU1': 3})
    # db is only in the source flavour: deleted once the rollout is done.
    assert kube.calls[-1] == ('delete_refs', ['db'], 'Foreground')
    new = result.instantiated_vnf_info
    assert new is not None
    assert new['flavourId'] == 'large'
    assert cluster.pods_of(new) == {'VDU1': ['web-0', 'web-1', 'web-2']}
    assert new['metadata'][resources.DEF_FILES] == [LARGE]


def test_the_manifests_default_to_those_the_instance_was_deployed_with(
    kube: cluster.FakeKube,
) -> None:
    _change(_info())
    # And the counts to the target flavour's default level.
    assert kube.calls[0] == ('prepare', 'v1', [cluster.MANIFESTS], {'VDU1': 2})


def test_a_level_outside_the_target_vdu_profile_changes_nothing(
    kube: cluster.FakeKube,
) -> None:
    with pytest.raises(
        scaling.ScaleNotPossible, match='outside its vdu_profile 2..3'
    ):
        _change(_info(), instantiationLevelId='huge')
    assert kube.calls == []


def test_the_rollback_returns_to_the_source_flavour(
    kube: cluster.FakeKube,
) -> None:
    info = _info()
    work = _change(info, instantiationLevelId='big').work
    kube.calls.clear()

    result = flavour.rollback_change_flavour(
        cluster.context(
            'CHANGE_FLAVOUR', info, {'newFlavourId': 'large'}, work, vnfd=VNFD
        )
    )

    # The source's manifests at the counts the instance had.
    assert kube.calls[0] == (
        'prepare',
        'v1',
        [cluster.MANIFESTS],
        {'VDU1': 2, 'VDU2': 1},
    )
    assert kube.forced_rollback
    new = result.instantiated_vnf_info
    assert new is not None
    assert new['flavourId'] == 'simple'
    assert new['metadata'] == info['metadata']
