"""A stand-in for a cluster whose VDU workloads run as many Pods as their
replicas say: patches, deletes and waits are recorded in order."""

from __future__ import annotations

import time
from typing import Any

import pytest

from vnfm.clients import kubernetes as k8s
from vnfm.drivers.infra import base
from vnfm.drivers.infra.kubernetes import common
from vnfm.drivers.infra.kubernetes import lifecycle
from vnfm.drivers.infra.kubernetes import resources
from vnfm.drivers.infra.kubernetes import vnfcs

Obj = dict[str, Any]
IID = 'inst-1'
NS = 'cnf'
VIM_ID = 'vim-1'
MANIFESTS = 'Files/kubernetes/cnf.yaml'  # what the instance was deployed with

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
        self.forced_rollback = False  # as the last wait_ready was told
        self.objects = {'web', 'db', 'config-v1'}  # the instance's objects
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

    def apply(self, kube: Any, obj: Obj, instance_id: str) -> tuple[Obj, bool]:
        """Create or update one object; its workload runs its replicas."""
        assert instance_id == IID
        name = obj['metadata']['name']
        self.calls.append(('apply', obj['kind'], name))
        new = name not in self.objects
        self.objects.add(name)
        replicas = (obj.get('spec') or {}).get('replicas')
        if replicas is not None:
            self.live.setdefault(name, [])
            self.made.setdefault(name, 0)
            self.replicas[name] = replicas
            self._set(name, replicas)
        return obj, new

    def prepare(self, kube, package, files, namespace, flavour, iid, counts):
        """resources.prepare of a package named ``package``: the VDU
        workloads at ``counts`` and a ConfigMap named after the package."""
        self.calls.append(('prepare', package, list(files), dict(counts)))
        vdus = {}
        for vdu_id, (version, kind, name) in WORKLOADS.items():
            if vdu_id in (flavour.get('vdus') or {}):
                vdus[vdu_id] = {
                    'apiVersion': version,
                    'kind': kind,
                    'metadata': {'name': name, 'namespace': NS},
                    'spec': {'replicas': counts[vdu_id]},
                }
        objects = [configmap(package), *vdus.values()]
        return resources.Deployed(NS, list(files), objects, vdus)

    def delete_refs(self, ctx, kube, refs, grace, propagation) -> None:
        self.calls.append(
            ('delete_refs', sorted(r['name'] for r in refs), propagation)
        )
        self.objects -= {r['name'] for r in refs}

    def wait_ready(self, kube, workloads, selector, deadline, *rest):
        assert selector == common.selector(IID)
        self.calls.append(
            ('wait_ready', *sorted(w['metadata']['name'] for w in workloads))
        )
        self.absent = list(rest[0]) if rest else []
        self.forced_rollback = bool(rest[1:] and rest[1])
        return self.pods(workloads)

    def list_pods(self, kube, workloads, selector):
        return self.pods(workloads)

    def wait_gone(self, kube, objs, selector, deadline):
        self.calls.append(
            ('wait_gone', *sorted(o['metadata']['name'] for o in objs))
        )


def configmap(package: str) -> Obj:
    """The ConfigMap of package ``package`` (v1: the instance's)."""
    return {
        'apiVersion': 'v1',
        'kind': 'ConfigMap',
        'metadata': {'name': f'config-{package}', 'namespace': NS},
    }


def install(monkeypatch: pytest.MonkeyPatch, kube: FakeKube) -> FakeKube:
    """Make the driver's operations talk to ``kube``."""
    monkeypatch.setattr(k8s, 'apply', kube.apply)
    monkeypatch.setattr(resources, 'prepare', kube.prepare)
    monkeypatch.setattr(lifecycle, 'delete_refs', kube.delete_refs)
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
    vdus = {
        vdu: {'apiVersion': v, 'kind': k, 'name': n, 'namespace': NS}
        for vdu, (v, k, n) in WORKLOADS.items()
    }
    meta = {
        'namespace': NS,
        resources.DEF_FILES: [MANIFESTS],
        'resources': [resources.ref_of(configmap('v1')), *vdus.values()],
        'vdus': vdus,
    }
    return common.vnf_info('simple', flavour, levels, entries, meta) | {
        'metadata': meta
    }


def context(
    operation: str,
    info: Obj,
    request: Obj,
    work: Obj | None = None,
    **more: Any,
) -> base.InfraContext:
    """The context of a step; ``package``, ``target_package``: names the
    stand-in's prepare makes a package's objects of."""
    return base.InfraContext(
        operation=operation,
        vnf_instance={'id': IID, 'instantiatedVnfInfo': info},
        request=request,
        vnfd=more.pop('vnfd', VNFD),
        flavour_id='simple',
        vim_connection_info={VIM_ID: {}},
        package=more.pop('package', 'v1'),
        deadline=time.monotonic() + 60,
        work=dict(work or {}),
        **more,
    )


def pods_of(info: Obj) -> dict[str, list[str]]:
    """VDU id -> the Pods instantiatedVnfInfo names."""
    out: dict[str, list[str]] = {}
    for e in info.get('vnfcResourceInfo') or []:
        out.setdefault(e['vduId'], []).append(
            e['computeResource']['resourceId']
        )
    return out
