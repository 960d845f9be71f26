"""A restart a PodDisruptionBudget forbids: its own deadline, what the op
waits for while it waits, and the request that accepts the disruption.

The PodDisruptionBudget is real: kube-controller-manager's disruption
controller computes its status, the API server refuses the eviction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from vnfm.clients import kubernetes as k8s
from vnfm.conf import CONF

from ..conftest import wait_for
from .conftest import Cnf
from .conftest import files_of
from .manifests import pod
from .manifests import set_image
from .manifests import spec

pytestmark = pytest.mark.timeout(120, func_only=True)
SINGLETON = pod('singleton', spec())


@pytest.fixture(autouse=True)
def _short_eviction_deadline() -> Iterator[None]:
    CONF.set_override('eviction_timeout', 3, group='kubernetes')
    yield
    CONF.clear_override('eviction_timeout', group='kubernetes')


def _guarded(deploy: Callable[..., Cnf]) -> Cnf:
    """The bare Pod, under a budget that allows no disruption."""
    cnf = deploy(files_of({'Files/pod.yaml': [SINGLETON]}))
    cnf.kube.create(
        {
            'apiVersion': 'policy/v1',
            'kind': 'PodDisruptionBudget',
            'metadata': {'name': 'keep-one', 'namespace': cnf.namespace},
            'spec': {
                'minAvailable': 1,
                'selector': {'matchLabels': {'app': 'singleton'}},
            },
        }
    )

    def computed() -> bool:
        pdb = (
            cnf.kube.get(
                'policy/v1', 'PodDisruptionBudget', 'keep-one', cnf.namespace
            )
            or {}
        )
        st = pdb.get('status') or {}
        return st.get('currentHealthy') == 1 and st.get(
            'observedGeneration'
        ) == pdb['metadata'].get('generation')

    wait_for(computed, 30, 'the disruption controller to compute the PDB')
    return cnf


def test_blocked_eviction_fails_after_its_deadline_naming_pod_and_budget(
    deploy: Callable[..., Cnf],
) -> None:
    cnf = _guarded(deploy)
    uid = cnf.uids()['singleton']
    shown: list[str | None] = []

    with pytest.raises(k8s.EvictionBlocked) as e:
        # The hook's own deadline is far: the eviction's (3 s) ends it.
        cnf.update(
            files_of({'Files/pod.yaml': [set_image(SINGLETON, 'tomcat')]}),
            timeout=90,
            progress=shown.append,
        )

    ns = cnf.namespace
    assert f'Pod {ns}/singleton' in e.value.detail
    assert f'PodDisruptionBudget {ns}/keep-one' in e.value.detail
    assert 'vnfm_disruption_allowed' in e.value.detail
    assert shown[0] == (
        f'waiting for eviction of Pod {ns}/singleton, blocked by '
        f'PodDisruptionBudget {ns}/keep-one (The disruption budget keep-one '
        'needs 1 healthy pods and has 1 currently)'
    )
    assert shown[-1] is None  # no longer waiting once it failed
    assert cnf.uids() == {'singleton': uid}


def test_accepted_disruption_deletes_instead_of_evicting(
    deploy: Callable[..., Cnf],
) -> None:
    cnf = _guarded(deploy)
    uid = cnf.uids()['singleton']
    shown: list[str | None] = []

    cnf.update(
        files_of({'Files/pod.yaml': [set_image(SINGLETON, 'tomcat')]}),
        metadata={'vnfm_disruption_allowed': True},
        progress=shown.append,
    )

    live = cnf.get('Pod', 'singleton')
    assert live['metadata']['uid'] != uid
    assert live['spec']['containers'][0]['image'] == 'tomcat'
    assert shown == []
