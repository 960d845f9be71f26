"""Container update: Kubernetes reads per modify and planning time as the
CNF grows from 10 to 1,000 Pods. Prints JSON.

The CNF: a ConfigMap and a Secret, a Deployment (half the Pods) using the
ConfigMap, a ReplicaSet (a quarter) using the Secret, a StatefulSet (the
rest but one) and one bare Pod. The new package changes the ConfigMap and
the StatefulSet's image. The driver's own code reads the live objects
(``read_live``) from an in-memory cluster that counts requests at the
KubeClient interface (each ``list`` is one HTTP request on a real
cluster), then plans (``planner.plan``). Reads must stay constant: one
LIST per kind in the namespace, never one per Pod. Restarts are not timed
here (they wait for the cluster); the integration tests run them.

    python bench/container_update_plan.py [--sizes 10,100,1000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vnfm.clients import kubernetes as k8s  # noqa: E402
from vnfm.drivers.mgmt.container_update import content  # noqa: E402
from vnfm.drivers.mgmt.container_update import driver  # noqa: E402
from vnfm.drivers.mgmt.container_update import manifests  # noqa: E402
from vnfm.drivers.mgmt.container_update import planner  # noqa: E402

NS = 'bench'
INSTANCE = 'bench-instance'
Obj = dict[str, Any]


class CountingCluster:
    """The KubeClient methods ``read_live`` uses, over in-memory objects."""

    def __init__(self, objects: list[Obj]) -> None:
        self.objects = objects
        self.requests = 0

    def list(
        self,
        api_version: str,
        kind: str,
        namespace: str | None,
        label_selector: str | None = None,
    ) -> tuple[list[Obj], str]:
        """One LIST request."""
        self.requests += 1
        return [
            copy.deepcopy(o) for o in self.objects if o['kind'] == kind
        ], '1'


def _spec(image: str, **uses: Any) -> Obj:
    return {'containers': [{'name': 'c', 'image': image, **uses}]}


def _workload(kind: str, name: str, spec: Obj, replicas: int) -> Obj:
    body: Obj = {
        'selector': {'matchLabels': {'app': name}},
        'template': {'metadata': {'labels': {'app': name}}, 'spec': spec},
    }
    if kind != 'Pod':
        body['replicas'] = replicas
        return {
            'apiVersion': 'apps/v1',
            'kind': kind,
            'metadata': {'name': name, 'namespace': NS},
            'spec': body,
        }
    return {
        'apiVersion': 'v1',
        'kind': 'Pod',
        'metadata': {'name': name, 'namespace': NS},
        'spec': spec,
    }


def package(pods: int, version: int) -> dict:
    """The objects of the package, version 1 or 2."""
    cm = {
        'apiVersion': 'v1',
        'kind': 'ConfigMap',
        'metadata': {'name': 'cfg', 'namespace': NS},
        'data': {'k': f'value {version}'},
    }
    sec = {
        'apiVersion': 'v1',
        'kind': 'Secret',
        'type': 'Opaque',
        'metadata': {'name': 'sec', 'namespace': NS},
        'stringData': {'password': 'unchanged'},
    }
    deploy, rs = pods // 2, pods // 4
    sts = pods - deploy - rs - 1
    objs = [
        cm,
        sec,
        _workload(
            'Deployment',
            'web',
            _spec('nginx', envFrom=[{'configMapRef': {'name': 'cfg'}}]),
            deploy,
        ),
        _workload(
            'ReplicaSet',
            'cache',
            _spec('redis', envFrom=[{'secretRef': {'name': 'sec'}}]),
            rs,
        ),
        _workload('StatefulSet', 'db', _spec(f'postgres:{version}'), sts),
        _workload('Pod', 'helper', _spec('busybox'), 1),
    ]
    return {manifests.key(o): o for o in objs}


def cluster(objs: dict) -> list[Obj]:
    """Live objects for the package: uids, owned ReplicaSets and Pods."""
    out: list[Obj] = []
    for k, obj in objs.items():
        live = copy.deepcopy(obj)
        live['metadata']['uid'] = f'uid-{k[2]}'
        if k[0] == 'Secret':
            live['data'] = content.normal(obj)['data']
        out.append(live)
        if k[0] == 'Pod' or k[0] not in planner.references.WORKLOAD_KINDS:
            continue
        owner = live['metadata']['uid']
        if k[0] == 'Deployment':
            out.append(
                {
                    'kind': 'ReplicaSet',
                    'metadata': {
                        'name': f'{k[2]}-1',
                        'namespace': NS,
                        'uid': f'{owner}-rs',
                        'ownerReferences': [{'uid': owner}],
                    },
                    'spec': {},
                }
            )
            owner = f'{owner}-rs'
        for i in range(obj['spec']['replicas']):
            out.append(
                {
                    'kind': 'Pod',
                    'metadata': {
                        'name': f'{k[2]}-{i}',
                        'namespace': NS,
                        'uid': f'uid-{k[2]}-{i}',
                        'creationTimestamp': str(i),
                        'ownerReferences': [{'uid': owner}],
                    },
                    'spec': copy.deepcopy(obj['spec']['template']['spec']),
                }
            )
    return out


def measure(pods: int, repeat: int) -> Obj:
    """Reads and plan time for one CNF size."""
    current, new = package(pods, 1), package(pods, 2)
    live_objects = cluster(current)
    times, requests, plan = [], 0, None
    for _ in range(repeat):
        kube = CountingCluster(live_objects)
        start = time.perf_counter()
        live = driver.read_live(
            kube,
            NS,
            INSTANCE,  # type: ignore[arg-type]
            driver._kinds(new),
        )
        plan = planner.plan(current, new, live)
        times.append(time.perf_counter() - start)
        requests = kube.requests
    assert plan is not None
    restarted = sum(len(w.pods) for w in plan.workloads)
    return {
        'pods': sum(1 for o in live_objects if o['kind'] == 'Pod'),
        'kubernetes_read_requests': requests,
        'plan_seconds_median': round(statistics.median(times), 6),
        'plan_seconds_max': round(max(times), 6),
        'configs_replaced': len(plan.configs),
        'workloads_restarted': len(plan.workloads),
        'pods_restarted': restarted,
    }


def main() -> None:
    """Run the sizes and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--sizes', default='10,100,1000')
    parser.add_argument('--repeat', type=int, default=5)
    args = parser.parse_args()
    rows = [measure(int(n), args.repeat) for n in args.sizes.split(',')]
    print(
        json.dumps(
            {
                'benchmark': 'container_update_plan',
                'label_selector': f'{k8s.INSTANCE_LABEL}={INSTANCE}',
                'reads_constant': len(
                    {r['kubernetes_read_requests'] for r in rows}
                )
                == 1,
                'sizes': rows,
            },
            indent=2,
        )
    )


if __name__ == '__main__':
    main()
