"""A stand-in for a cluster whose VDU workloads run as many Pods as their
replicas say: patches, deletes and waits are recorded in order."""

from __future__ import annotations

import time
from typing import Any

import pytest

from vnfm.clients import kubernetes as k8s
from vnfm.drivers.infra import base
from vnfm.drivers.infra.kubernetes import common
from vnfm.drivers.infra.kubernetes import vnfcs

Obj = dict[str, Any]
IID = 'inst-1'
NS = 'cnf'
VIM_ID = 'vim-1'

# VDU1 (Deployment web) scales by vdu1_aspect, 1 + 1 a step up to 3
# steps, at most 4 Pods; VDU2 (StatefulSet db) keeps its one Pod.
VNFD: Obj = {
    'vnfd_id': 'cnf',
    'flavours': {
        'simple': {
            'flavour_id': 'simple',
            'vdus': {
                'VDU1': {'min_instances': 1, 'max_instances': 4},
                'VDU2': {'min_instances': 1, 'max_instances': 1},
            },
            'scaling_aspects': {
                'vdu1_aspect': {
                    'max_scale_level': 3,
                    'vdu_deltas': {'VDU1': {'delta_1': 1}},
                    'step_deltas': ['delta_1'],
                }
            },
        }
    },
}
WORKLOADS = {
    'VDU1': ('apps/v1', 'Deployment', 'web'),
    'VDU2': ('apps/v1', 'StatefulSet', 'db'),
}


class FakeKube:
    """Replicas by workload name; records calls in order."""

    def __init__(self, replicas: dict[str, int]) -> None:
        self.calls: list[tuple] = []
        self.requests = 0
        self.refuse: str | None = None  # a workload whose patch fails
        self.absent: list[str] = []  # uids the last wait_ready wanted gone
        self.made = dict.fromkeys(replicas, 0)  # Pods made per workload
        self.live: dict[str, list[str]] = {w: [] for w in replicas}
        self.replicas = dict(replicas)
        for workload, n in replicas.items():
            self._set(workload, n)

    def _set(self, workload: str, n: int) -> None:
        """``n`` Pods, the newest going first, new ones named in turn."""
        live = self.live[workload][:n]
        while len(live) < n:
            live.append(f'{workload}-{self.made[workload]}')
            self.made[workload] += 1
        self.live[workload] = live

    def __enter__(self) -> FakeKube:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def patch(self, api_version, kind, name, ns, body) -> Obj:
        self.requests += 1
        self.calls.append(('patch', kind, name, body['spec']['replicas']))
        if name == self.refuse:
            raise k8s.KubernetesError(f'{kind} {ns}/{name}: forbidden')
        self.replicas[name] = body['spec']['replicas']
        self._set(name, self.replicas[name])
        return {
            'apiVersion': api_version,
            'kind': kind,
            'metadata': {'name': name, 'namespace': ns},
        }

    def delete(self, api_version, kind, name, ns, propagation, grace=None):
        self.requests += 1
        self.calls.append(('delete', kind, name, grace))
        return True

    def get(self, api_version, kind, name, ns) -> Obj | None:
        assert (kind, ns) == ('Pod', NS)
        for pods in self.live.values():
            if name in pods:
                return {'metadata': {'name': name, 'uid': f'uid-{name}'}}
        return None

    def evict_until(self, name, ns, grace, deadline) -> None:
        """The Pod goes; its controller makes another."""
        self.calls.append(('evict', name, grace))
        workload = name.rsplit('-', 1)[0]
        self.live[workload] = [p for p in self.live[workload] if p != name]
        self._set(workload, self.replicas[workload])

    def pods(self, workloads: list[Obj]) -> dict[tuple, list[Obj]]:
        """The Pods of each workload, by (kind, namespace, name)."""
        out = {}
        for w in workloads:
            name = w['metadata']['name']
            out[(w['kind'], NS, name)] = [
                {
                    'metadata': {'name': pod, 'namespace': NS},
                    'spec': {'terminationGracePeriodSeconds': 30},
                }
                for pod in self.live.get(name, [])
            ]
        return out

    def wait_ready(self, kube, workloads, selector, deadline, *rest):
        assert selector == common.selector(IID)
        self.calls.append(
            ('wait_ready', *sorted(w['metadata']['name'] for w in workloads))
        )
        self.absent = list(rest[0]) if rest else []
        return self.pods(workloads)

    def list_pods(self, kube, workloads, selector):
        return self.pods(workloads)

    def wait_gone(self, kube, objs, selector, deadline):
        self.calls.append(
            ('wait_gone', *sorted(o['metadata']['name'] for o in objs))
        )


def install(monkeypatch: pytest.MonkeyPatch, kube: FakeKube) -> FakeKube:
    """Make the driver's operations talk to ``kube``."""
    monkeypatch.setattr(common, 'kube_for', lambda ctx: (VIM_ID, kube))
    monkeypatch.setattr(k8s, 'wait_ready', kube.wait_ready)
    monkeypatch.setattr(k8s, 'list_pods', kube.list_pods)
    monkeypatch.setattr(k8s, 'wait_gone', kube.wait_gone)
    return kube


def instance_info(levels: dict[str, int], **pods: int) -> Obj:
    """instantiatedVnfInfo of an instance whose VDUs run ``pods``
    (VDU id -> how many), at aspect ``levels``."""
    flavour = VNFD['flavours']['simple']
    names = {
        vdu: [f'{WORKLOADS[vdu][2]}-{i}' for i in range(n)]
        for vdu, n in pods.items()
    }
    kinds = {vdu: WORKLOADS[vdu][1] for vdu in pods}
    entries = vnfcs.build(IID, [], names, kinds, VIM_ID)
    meta = {
        'namespace': NS,
        'vdus': {
            vdu: {'apiVersion': v, 'kind': k, 'name': n, 'namespace': NS}
            for vdu, (v, k, n) in WORKLOADS.items()
        },
    }
    return common.vnf_info('simple', flavour, levels, entries, meta) | {
        'metadata': meta
    }


def context(
    operation: str, info: Obj, request: Obj, work: Obj | None = None
) -> base.InfraContext:
    return base.InfraContext(
        operation=operation,
        vnf_instance={'id': IID, 'instantiatedVnfInfo': info},
        request=request,
        vnfd=VNFD,
        flavour_id='simple',
        vim_connection_info={VIM_ID: {}},
        package=None,  # type: ignore[arg-type]
        deadline=time.monotonic() + 60,
        work=dict(work or {}),
    )


def pods_of(info: Obj) -> dict[str, list[str]]:
    """VDU id -> the Pods instantiatedVnfInfo names."""
    out: dict[str, list[str]] = {}
    for e in info.get('vnfcResourceInfo') or []:
        out.setdefault(e['vduId'], []).append(
            e['computeResource']['resourceId']
        )
    return out
