"""The container-update plan: what is replaced, who restarts, what is
refused."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from vnfm.drivers.mgmt.container_update import content
from vnfm.drivers.mgmt.container_update import manifests
from vnfm.drivers.mgmt.container_update import planner

NS = 'ns1'
Obj = dict[str, Any]


def cm(name: str, data: dict[str, str], kind: str = 'ConfigMap') -> Obj:
    obj: Obj = {
        'apiVersion': 'v1',
        'kind': kind,
        'metadata': {'name': name, 'namespace': NS},
    }
    obj['stringData' if kind == 'Secret' else 'data'] = data
    return obj


def pod_spec(image: str = 'nginx', **uses: Any) -> Obj:
    container: Obj = {'name': 'c', 'image': image}
    container.update(uses.get('container', {}))
    spec: Obj = {'containers': [container]}
    if 'volumes' in uses:
        spec['volumes'] = uses['volumes']
    if 'ephemeral' in uses:
        spec['ephemeralContainers'] = uses['ephemeral']
    return spec


def workload(kind: str, name: str, spec: Obj, **extra: Any) -> Obj:
    meta = {'name': name, 'namespace': NS}
    if kind == 'Pod':
        return {
            'apiVersion': 'v1',
            'kind': 'Pod',
            'metadata': meta,
            'spec': spec,
        }
    body = {
        'replicas': 1,
        'selector': {'matchLabels': {'app': name}},
        'template': {'metadata': {'labels': {'app': name}}, 'spec': spec},
    }
    body.update(extra)
    return {
        'apiVersion': 'apps/v1',
        'kind': kind,
        'metadata': meta,
        'spec': body,
    }


def by_key(*objs: Obj) -> dict:
    return {manifests.key(o): o for o in objs}


def live_of(objs: dict, replicas: int = 1) -> list[Obj]:
    """Live copies with uids, and Pods owned by each workload."""
    out = []
    for k, obj in objs.items():
        live = copy.deepcopy(obj)
        live['metadata']['uid'] = f'uid-{k[2]}'
        if k[0] == 'Secret':  # the API server keeps data, not stringData
            live['data'] = content.normal(obj)['data']
            live.pop('stringData', None)
        out.append(live)
        if k[0] in ('Deployment', 'ReplicaSet', 'DaemonSet', 'StatefulSet'):
            owner = live['metadata']['uid']
            if k[0] == 'Deployment':
                out.append(
                    {
                        'kind': 'ReplicaSet',
                        'metadata': {
                            'name': f'{k[2]}-rs',
                            'namespace': NS,
                            'uid': f'uid-{k[2]}-rs',
                            'ownerReferences': [{'uid': owner}],
                        },
                    }
                )
                owner = f'uid-{k[2]}-rs'
            for i in range(replicas):
                out.append(
                    {
                        'kind': 'Pod',
                        'metadata': {
                            'name': f'{k[2]}-{i}',
                            'namespace': NS,
                            'uid': f'uid-{k[2]}-{i}',
                            'creationTimestamp': f'2026-01-01T00:00:0{i}Z',
                            'ownerReferences': [{'uid': owner}],
                        },
                        'spec': copy.deepcopy(obj['spec']['template']['spec']),
                    }
                )
    return out


def restarted(plan: planner.Plan) -> set[str]:
    return {w.key[2] for w in plan.workloads}


USERS = {
    'env-key': pod_spec(
        container={
            'env': [
                {
                    'name': 'X',
                    'valueFrom': {
                        'configMapKeyRef': {'name': 'cm-a', 'key': 'k'}
                    },
                }
            ]
        }
    ),
    'env-from': pod_spec(
        container={'envFrom': [{'configMapRef': {'name': 'cm-a'}}]}
    ),
    'volume': pod_spec(volumes=[{'name': 'v', 'configMap': {'name': 'cm-a'}}]),
    'projected': pod_spec(
        volumes=[
            {
                'name': 'v',
                'projected': {'sources': [{'configMap': {'name': 'cm-a'}}]},
            }
        ]
    ),
    'init': {
        'initContainers': [
            {
                'name': 'i',
                'image': 'busybox',
                'envFrom': [{'configMapRef': {'name': 'cm-a'}}],
            }
        ],
        'containers': [{'name': 'c', 'image': 'nginx'}],
    },
}


@pytest.mark.parametrize('use', sorted(USERS))
@pytest.mark.parametrize(
    'kind', ['Pod', 'Deployment', 'ReplicaSet', 'DaemonSet', 'StatefulSet']
)
def test_a_user_of_a_changed_configmap_restarts(use: str, kind: str) -> None:
    current = by_key(
        cm('cm-a', {'k': 'v1'}),
        cm('cm-b', {'k': 'v1'}),
        workload(kind, 'user', USERS[use]),
        workload(
            kind,
            'other',
            pod_spec(
                container={'envFrom': [{'configMapRef': {'name': 'cm-b'}}]}
            ),
        ),
    )
    new = copy.deepcopy(current)
    new[('ConfigMap', NS, 'cm-a')]['data'] = {'k': 'v2'}
    plan = planner.plan(current, new, live_of(current))
    assert [c.key[2] for c in plan.configs] == ['cm-a']
    assert restarted(plan) == {'user'}
    assert plan.workloads[0].reasons == ['uses ConfigMap cm-a, replaced']


@pytest.mark.parametrize(
    'spec',
    [
        pod_spec(
            container={
                'env': [
                    {
                        'name': 'P',
                        'valueFrom': {
                            'secretKeyRef': {'name': 'sec', 'key': 'password'}
                        },
                    }
                ]
            }
        ),
        pod_spec(container={'envFrom': [{'secretRef': {'name': 'sec'}}]}),
        pod_spec(volumes=[{'name': 'v', 'secret': {'secretName': 'sec'}}]),
        pod_spec(
            volumes=[
                {
                    'name': 'v',
                    'projected': {'sources': [{'secret': {'name': 'sec'}}]},
                }
            ]
        ),
        pod_spec(
            volumes=[
                {
                    'name': 'v',
                    'csi': {
                        'driver': 'd',
                        'nodePublishSecretRef': {'name': 'sec'},
                    },
                }
            ]
        ),
    ],
    ids=['secretKeyRef', 'secretRef', 'volume', 'projected', 'csi'],
)
def test_a_user_of_a_changed_secret_restarts(spec: Obj) -> None:
    current = by_key(
        cm('sec', {'password': 'a'}, 'Secret'),
        workload('Deployment', 'user', spec),
        workload('Deployment', 'bystander', pod_spec()),
    )
    new = copy.deepcopy(current)
    new[('Secret', NS, 'sec')]['stringData'] = {'password': 'b'}
    plan = planner.plan(current, new, live_of(current))
    assert [(c.key[2], c.action) for c in plan.configs] == [('sec', 'patch')]
    assert restarted(plan) == {'user'}


def test_plain_env_values_restart_nothing() -> None:
    spec = pod_spec(
        container={'env': [{'name': 'CM', 'value': 'cm-a'}, {'name': 'EMPTY'}]}
    )
    current = by_key(cm('cm-a', {'k': 'v1'}), workload('Pod', 'p', spec))
    new = copy.deepcopy(current)
    new[('ConfigMap', NS, 'cm-a')]['data'] = {'k': 'v2'}
    plan = planner.plan(current, new, live_of(current))
    assert [c.key[2] for c in plan.configs] == ['cm-a']
    assert plan.workloads == []


def test_ephemeral_containers_are_only_reported() -> None:
    spec = pod_spec(
        ephemeral=[
            {'name': 'dbg', 'envFrom': [{'configMapRef': {'name': 'cm-a'}}]}
        ]
    )
    current = by_key(cm('cm-a', {'k': 'v1'}), workload('Pod', 'p', spec))
    new = copy.deepcopy(current)
    new[('ConfigMap', NS, 'cm-a')]['data'] = {'k': 'v2'}
    plan = planner.plan(current, new, live_of(current))
    assert plan.workloads == []
    assert plan.notes == [
        'Pod ns1/p: only ephemeral containers use '
        'ConfigMap cm-a; they are not restarted.'
    ]


def test_image_change_restarts_only_that_workload() -> None:
    current = by_key(
        workload('Deployment', 'a', pod_spec('nginx')),
        workload('DaemonSet', 'b', pod_spec('nginx')),
    )
    new = copy.deepcopy(current)
    new[('Deployment', NS, 'a')]['spec']['template']['spec']['containers'][0][
        'image'
    ] = 'tomcat'
    plan = planner.plan(current, new, live_of(current))
    assert restarted(plan) == {'a'}
    change = plan.workloads[0]
    assert change.method == planner.ROLLOUT
    assert change.images == {'containers/c': 'tomcat'}
    assert change.reasons == ['image of containers/c: nginx -> tomcat']
    assert change.previous_images == {'containers/c': 'nginx'}


def test_unchanged_configmap_is_not_replaced_and_nothing_restarts() -> None:
    current = by_key(
        cm('cm-a', {'k': 'v1'}),
        cm('s', {'p': 'x'}, 'Secret'),
        workload('Deployment', 'a', USERS['env-from']),
    )
    plan = planner.plan(current, copy.deepcopy(current), live_of(current))
    assert plan.configs == [] and plan.workloads == []


def test_the_live_object_decides_what_is_replaced() -> None:
    current = by_key(
        cm('cm-a', {'k': 'v1'}), workload('Deployment', 'a', USERS['env-from'])
    )
    live = live_of(current)
    live[0]['data'] = {'k': 'edited on the cluster'}
    plan = planner.plan(current, copy.deepcopy(current), live)
    assert [(c.key[2], c.action) for c in plan.configs] == [('cm-a', 'patch')]
    assert restarted(plan) == {'a'}


def test_configmap_rename_is_refused() -> None:
    current = by_key(cm('cm-a', {'k': 'v1'}))
    new = by_key(cm('cm-renamed', {'k': 'v1'}))
    with pytest.raises(manifests.BadUpdate) as e:
        planner.plan(current, new, live_of(current))
    assert 'missing from the new package: ConfigMap ns1/cm-a' in e.value.detail
    assert 'new in the new package: ConfigMap ns1/cm-renamed' in e.value.detail
    assert 'keeps the kind, namespace and name' in e.value.detail


def test_other_workload_changes_are_refused_with_the_fields() -> None:
    current = by_key(workload('Deployment', 'a', pod_spec()))
    new = copy.deepcopy(current)
    new[('Deployment', NS, 'a')]['spec']['template']['spec']['containers'][0][
        'ports'
    ] = [{'containerPort': 80}]
    new[('Deployment', NS, 'a')]['spec']['replicas'] = 5  # VNFD's business
    with pytest.raises(manifests.BadUpdate) as e:
        planner.plan(current, new, live_of(current))
    assert (
        'Deployment ns1/a differs in spec.template.spec.containers[0]'
        '.ports' in e.value.detail
    )
    assert 'only container images may change' in e.value.detail


def test_service_changes_are_refused() -> None:
    svc = {
        'apiVersion': 'v1',
        'kind': 'Service',
        'metadata': {'name': 's', 'namespace': NS},
        'spec': {'ports': [{'port': 80}]},
    }
    new_svc = copy.deepcopy(svc)
    new_svc['spec']['ports'][0]['port'] = 81
    with pytest.raises(
        manifests.BadUpdate,
        match='Service ns1/s differs '
        r'in spec.ports\[0\].port: it must be unchanged',
    ):
        planner.plan(by_key(svc), by_key(new_svc), [])


def test_removed_key_is_deleted_and_secret_type_change_recreates() -> None:
    current = by_key(
        cm('cm-a', {'k': 'v', 'gone': 'x'}), cm('s', {'p': 'x'}, 'Secret')
    )
    live = live_of(current)
    new = copy.deepcopy(current)
    new[('ConfigMap', NS, 'cm-a')]['data'] = {'k': 'v'}
    new[('Secret', NS, 's')]['type'] = 'kubernetes.io/basic-auth'
    plan = planner.plan(current, new, live)
    actions = {c.key[2]: c.action for c in plan.configs}
    assert actions == {'cm-a': 'patch', 's': 'recreate'}
    body = content.patch_body(new[('ConfigMap', NS, 'cm-a')], live[0])
    assert body == {'data': {'k': 'v', 'gone': None}}


def test_replicaset_pods_are_evicted_one_by_one() -> None:
    current = by_key(workload('ReplicaSet', 'rs', pod_spec(), replicas=3))
    new = copy.deepcopy(current)
    new[('ReplicaSet', NS, 'rs')]['spec']['template']['spec']['containers'][0][
        'image'
    ] = 'tomcat'
    plan = planner.plan(current, new, live_of(current, replicas=3))
    (change,) = plan.workloads
    assert change.method == planner.EVICT
    assert change.pods == ['rs-0', 'rs-1', 'rs-2']


def test_statefulset_strategy_decides_the_method() -> None:
    rolling = workload('StatefulSet', 'r', pod_spec())
    on_delete = workload(
        'StatefulSet', 'o', pod_spec(), updateStrategy={'type': 'OnDelete'}
    )
    assert planner.method_of(rolling) == planner.ROLLOUT
    assert planner.method_of(on_delete) == planner.EVICT


def test_rerun_after_success_is_a_noop() -> None:
    current = by_key(
        cm('cm-a', {'k': 'v1'}),
        workload('Deployment', 'a', USERS['env-from']),
        workload('Pod', 'p', USERS['volume']),
    )
    new = copy.deepcopy(current)
    new[('ConfigMap', NS, 'cm-a')]['data'] = {'k': 'v2'}
    first = planner.plan(current, new, live_of(current))
    hashes = {w.key: w.config_hash for w in first.workloads}
    # The cluster after the update: new content, annotated templates.
    after = copy.deepcopy(new)
    for k, h in hashes.items():
        target = after[k] if k[0] == 'Pod' else after[k]['spec']['template']
        target['metadata'].setdefault('annotations', {})[
            content.HASH_ANNOTATION
        ] = h
    again = planner.plan(current, new, live_of(after))
    assert again.configs == [] and again.workloads == []


def test_retry_restarts_a_workload_the_first_attempt_missed() -> None:
    current = by_key(
        cm('cm-a', {'k': 'v1'}), workload('Deployment', 'a', USERS['env-from'])
    )
    new = copy.deepcopy(current)
    new[('ConfigMap', NS, 'cm-a')]['data'] = {'k': 'v2'}
    # The first attempt replaced the ConfigMap, then failed.
    live = live_of(new)
    plan = planner.plan(current, new, live)
    assert plan.configs == []
    assert restarted(plan) == {'a'}
