"""Restarts per workload kind: rolled natively, or evicted one by one."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from vnfm.drivers.mgmt.container_update import content

from .conftest import Cnf
from .conftest import files_of
from .manifests import configmap
from .manifests import controller
from .manifests import env_from
from .manifests import set_image
from .manifests import spec

pytestmark = pytest.mark.timeout(180, func_only=True)
USES_A = spec(envFrom=[env_from('ConfigMap', 'cm-a')])
USES_B = spec(volumes=[{'name': 'v', 'configMap': {'name': 'cm-b'}}])


def _annotation(obj: dict) -> str | None:
    meta = obj['spec']['template']['metadata']
    return (meta.get('annotations') or {}).get(content.HASH_ANNOTATION)


def test_config_only_change_rolls_a_deployment(
    deploy: Callable[..., Cnf],
) -> None:
    def files(value: str) -> dict[str, bytes]:
        return files_of(
            {
                'Files/all.yaml': [
                    configmap('cm-a', k=value),
                    configmap('cm-b', k='same'),
                    controller('Deployment', 'web', USES_A, replicas=2),
                    controller('Deployment', 'other', USES_B),
                ]
            }
        )

    cnf = deploy(files('v1'))
    web, other = cnf.owner_uids('web-'), cnf.owner_uids('other-')

    changes = cnf.update(files('v2'))

    new_web = cnf.owner_uids('web-')
    assert len(new_web) == 2 and not new_web & web
    assert cnf.owner_uids('other-') == other
    assert _annotation(cnf.get('Deployment', 'web'))
    assert _annotation(cnf.get('Deployment', 'other')) is None
    # VNFC ids are kept; their resourceIds follow the new Pods.
    info = cnf.instance['instantiatedVnfInfo']
    web_vnfcs = [
        v for v in info['vnfcResourceInfo'] if v['vduId'] == 'VDU_web'
    ]
    assert {v['computeResource']['resourceId'] for v in web_vnfcs} == {
        n for n in cnf.uids() if n.startswith('web-')
    }
    affected = changes['resourceChanges']['affectedVnfcs']
    assert sorted(a['id'] for a in affected) == sorted(
        v['id'] for v in web_vnfcs
    )
    assert all(
        a['metadata']['restartReasons'] == ['uses ConfigMap cm-a, replaced']
        for a in affected
    )


def test_replicaset_with_three_replicas_restarts_all(
    deploy: Callable[..., Cnf],
) -> None:
    rs = controller('ReplicaSet', 'rs', USES_A, replicas=3)
    cnf = deploy(files_of({'Files/all.yaml': [configmap('cm-a', k='v1'), rs]}))
    before = cnf.owner_uids('rs-')
    assert len(before) == 3

    cnf.update(
        files_of(
            {
                'Files/all.yaml': [
                    configmap('cm-a', k='v1'),
                    set_image(rs, 'tomcat'),
                ]
            }
        )
    )

    pods = {n: cnf.get('Pod', n) for n in cnf.uids()}
    assert len(pods) == 3
    assert not {p['metadata']['uid'] for p in pods.values()} & before
    assert {p['spec']['containers'][0]['image'] for p in pods.values()} == {
        'tomcat'
    }


@pytest.mark.parametrize('strategy', ['RollingUpdate', 'OnDelete'])
def test_statefulset_restarts_with_either_strategy(
    deploy: Callable[..., Cnf], strategy: str
) -> None:
    def files(value: str) -> dict[str, bytes]:
        return files_of(
            {
                'Files/all.yaml': [
                    configmap('cm-a', k=value),
                    controller(
                        'StatefulSet',
                        'db',
                        USES_A,
                        replicas=2,
                        updateStrategy={'type': strategy},
                    ),
                ]
            }
        )

    cnf = deploy(files('v1'))
    before = cnf.uids()
    assert sorted(before) == ['db-0', 'db-1']

    changes = cnf.update(files('v2'))

    after = cnf.uids()
    assert sorted(after) == ['db-0', 'db-1']  # same names, new Pods
    assert not set(after.values()) & set(before.values())
    method = changes['changedInfo']['metadata']['vnfm_container_update'][
        'workloads'
    ][0]['method']
    assert method == ('evict' if strategy == 'OnDelete' else 'rollout')
    # A StatefulSet Pod keeps its name: its VNFC is still reported MODIFIED.
    assert {
        a['changeType'] for a in changes['resourceChanges']['affectedVnfcs']
    } == {'MODIFIED'}
    assert len(changes['resourceChanges']['affectedVnfcs']) == 2


def test_daemonset_image_change_rolls_it(deploy: Callable[..., Cnf]) -> None:
    ds = controller('DaemonSet', 'ds', spec())
    other = controller('DaemonSet', 'keep', spec())
    cnf = deploy(files_of({'Files/all.yaml': [ds, other]}))
    ds_before, keep = cnf.owner_uids('ds-'), cnf.owner_uids('keep-')

    cnf.update(files_of({'Files/all.yaml': [set_image(ds, 'tomcat'), other]}))

    assert not cnf.owner_uids('ds-') & ds_before
    assert len(cnf.owner_uids('ds-')) == len(ds_before)
    assert cnf.owner_uids('keep-') == keep
    assert (
        cnf.get('DaemonSet', 'ds')['spec']['template']['spec']['containers'][
            0
        ]['image']
        == 'tomcat'
    )


def test_same_names_in_two_namespaces_do_not_cross_talk(
    deploy: Callable[..., Cnf],
) -> None:
    def files(value: str) -> dict[str, bytes]:
        return files_of(
            {
                'Files/all.yaml': [
                    configmap('cm-a', k=value),
                    controller('Deployment', 'web', USES_A),
                ]
            }
        )

    first, second = deploy(files('v1')), deploy(files('v1'))
    untouched = second.uids()

    first.update(files('v2'))

    assert second.uids() == untouched
    assert second.get('ConfigMap', 'cm-a')['data'] == {'k': 'v1'}
    assert first.get('ConfigMap', 'cm-a')['data'] == {'k': 'v2'}
