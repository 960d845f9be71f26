"""A CNF of a StatefulSet, a DaemonSet and a Job, driven for real.

The cnf_simple VNFD is kept and other manifests are deployed: VDU1 (scaled
by vdu1_aspect) is the StatefulSet ``vdu1``, VDU2 the DaemonSet ``vdu2`` (one
Pod per node of the cluster, whatever the VNFD counts say).
The driver does not take a Job as a VDU (a Job runs to completion, it is
no VNFC), so the Job ``cnf-setup`` is an ordinary object of the instance.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from vnfm.clients import kubernetes as k8s
from vnfm.drivers.infra import base
from vnfm.drivers.infra.kubernetes.driver import KubernetesInfraDriver
from vnfm.drivers.package_files import PackageFiles
from vnfm_testbed.procs import wait_for

from .conftest import VIM_ID
from .conftest import labelled
from .conftest import package

DRIVER = KubernetesInfraDriver()
STATEFULSET = """\
apiVersion: v1
kind: Service
metadata:
  name: vdu1-headless
spec:
  clusterIP: None
  selector:
    app: cnf-kinds-db
  ports:
    - port: 5432
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: vdu1
spec:
  serviceName: vdu1-headless
  replicas: 1
  selector:
    matchLabels:
      app: cnf-kinds-db
  template:
    metadata:
      labels:
        app: cnf-kinds-db
    spec:
      terminationGracePeriodSeconds: 5
      containers:
        - name: db
          image: postgres:16
"""
DAEMONSET = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: vdu2
spec:
  selector:
    matchLabels:
      app: cnf-kinds-agent
  template:
    metadata:
      labels:
        app: cnf-kinds-agent
    spec:
      terminationGracePeriodSeconds: 5
      containers:
        - name: agent
          image: busybox:1.36
          command: [sleep, infinity]
"""
JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: cnf-setup
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: setup
          image: busybox:1.36
          command: ['true']
"""
MANIFESTS = {
    'Files/kubernetes/statefulset.yaml': STATEFULSET,
    'Files/kubernetes/daemonset.yaml': DAEMONSET,
    'Files/kubernetes/job.yaml': JOB,
}
KINDS = (
    ('v1', 'Service'),
    ('apps/v1', 'StatefulSet'),
    ('apps/v1', 'DaemonSet'),
    ('apps/v1', 'ControllerRevision'),
    ('batch/v1', 'Job'),
    ('v1', 'Pod'),
)
VDU_KINDS = {'VDU1': 'StatefulSet', 'VDU2': 'DaemonSet'}

Info = dict[str, Any]


@pytest.fixture(scope='module')
def cnf() -> tuple[PackageFiles, Info]:
    """(files, vnfd) of the sample with the VDUs as StatefulSet/DaemonSet."""
    return package(add=MANIFESTS)


@pytest.fixture
def ctx_for(
    make_ctx: Callable[..., base.InfraContext],
    cnf: tuple[PackageFiles, Info],
    namespace: str,
) -> Callable[..., base.InfraContext]:
    """make_ctx for this package; INSTANTIATE requests its manifests."""
    files, vnfd = cnf

    def make(
        operation: str,
        request: Info | None = None,
        instance: Info | None = None,
    ) -> base.InfraContext:
        if operation == 'INSTANTIATE':
            request = {
                'flavourId': 'simple',
                'additionalParams': {
                    'lcm-kubernetes-def-files': sorted(MANIFESTS),
                    'namespace': namespace,
                },
                **(request or {}),
            }
        return make_ctx(operation, request, instance, package=files, vnfd=vnfd)

    return make


def _instantiate(ctx_for, **request):
    ctx = ctx_for('INSTANTIATE', request)
    result = DRIVER.instantiate(ctx)
    instance = {
        **ctx.vnf_instance,
        'instantiatedVnfInfo': result.instantiated_vnf_info,
    }
    return result, instance


def _run(ctx_for, op, request, instance):
    """Run scale or heal; the result, with ``instance`` updated to it."""
    method = {'SCALE': DRIVER.scale, 'HEAL': DRIVER.heal}[op]
    result = method(ctx_for(op, request, instance))
    instance['instantiatedVnfInfo'] = result.instantiated_vnf_info
    return result


def _pods(info: Info, vdu: str) -> list[str]:
    return [
        e['computeResource']['resourceId']
        for e in info['vnfcResourceInfo']
        if e['vduId'] == vdu
    ]


def _ids(info: Info) -> dict[str, str]:
    """Pod name -> VNFC id."""
    return {
        e['computeResource']['resourceId']: e['id']
        for e in info['vnfcResourceInfo']
    }


def _changes(result: base.InfraResult) -> set[tuple[str, str, str]]:
    return {
        (a['changeType'], a['vduId'], a['computeResource']['resourceId'])
        for a in result.resource_changes['affectedVnfcs']
    }


def _live_vnfc_pods(
    kube: k8s.KubeClient, namespace: str, instance_id: str
) -> dict[str, dict[str, Any]]:
    """The instance's live Pods, but those of Jobs, by name."""
    sel = f'{k8s.INSTANCE_LABEL}={instance_id}'
    return {
        p['metadata']['name']: p
        for p in kube.list('v1', 'Pod', namespace, sel)[0]
        if not p['metadata'].get('deletionTimestamp')
        and not any(
            o['kind'] == 'Job'
            for o in p['metadata'].get('ownerReferences') or []
        )
    }


def _uids(kube: k8s.KubeClient, namespace: str, instance_id: str):
    return {
        n: p['metadata']['uid']
        for n, p in _live_vnfc_pods(kube, namespace, instance_id).items()
    }


def _assert_names_live_pods(
    kube: k8s.KubeClient, namespace: str, instance_id: str, info: Info
) -> None:
    """vnfcResourceInfo names exactly the live Ready Pods of the VDUs."""
    live = _live_vnfc_pods(kube, namespace, instance_id)
    entries = info['vnfcResourceInfo']
    assert sorted(e['computeResource']['resourceId'] for e in entries) == (
        sorted(live)
    )
    for e in entries:
        pod = live[e['computeResource']['resourceId']]
        assert pod['metadata']['labels'][k8s.VDU_LABEL] == e['vduId']
        assert (
            e['computeResource']['vimLevelResourceType']
            == (VDU_KINDS[e['vduId']])
        )
        assert e['computeResource']['vimConnectionId'] == VIM_ID
        assert k8s.status.pod(pod)[0], pod['metadata']['name']
    assert {v['vnfcResourceInfoId'] for v in info['vnfcInfo']} == {
        e['id'] for e in entries
    }


def _node_names(kube: k8s.KubeClient) -> set[str]:
    return {n['metadata']['name'] for n in kube.list('v1', 'Node')[0]}


def _wait_job_complete(kube: k8s.KubeClient, namespace: str) -> None:
    assert wait_for(
        lambda: k8s.status.job(
            kube.get('batch/v1', 'Job', 'cnf-setup', namespace) or {}
        )[0],
        60,
    ), 'Job cnf-setup did not complete'


def test_instantiate_waits_for_every_workload_and_maps_its_pods(
    ctx_for, kube, namespace
):
    result, instance = _instantiate(ctx_for)
    iid = instance['id']
    objs = labelled(kube, namespace, iid, KINDS)
    assert objs['StatefulSet'] == ['vdu1']
    assert objs['DaemonSet'] == ['vdu2']
    assert objs['Job'] == ['cnf-setup']
    assert objs['Service'] == ['vdu1-headless']
    nodes = _node_names(kube)
    sts = kube.get('apps/v1', 'StatefulSet', 'vdu1', namespace)
    assert sts['status']['readyReplicas'] == 1
    ds = kube.get('apps/v1', 'DaemonSet', 'vdu2', namespace)
    assert ds['status']['numberReady'] == len(nodes)
    info = result.instantiated_vnf_info
    _assert_names_live_pods(kube, namespace, iid, info)
    assert _pods(info, 'VDU1') == ['vdu1-0']
    # One DaemonSet Pod on each node of the cluster.
    live = _live_vnfc_pods(kube, namespace, iid)
    hosts = [live[p]['spec']['nodeName'] for p in _pods(info, 'VDU2')]
    assert sorted(hosts) == sorted(nodes)
    assert info['scaleStatus'] == [
        {'aspectId': 'vdu1_aspect', 'scaleLevel': 0}
    ]
    assert {a[0] for a in _changes(result)} == {'ADDED'}
    assert len(_changes(result)) == 1 + len(nodes)
    # The Job ran beside the VNFCs; its Pod is no VNFC.
    _wait_job_complete(kube, namespace)
    # Instantiate again (retry): the same objects, the same VNFCs.
    again = DRIVER.instantiate(ctx_for('INSTANTIATE', None, instance))
    assert _ids(again.instantiated_vnf_info) == _ids(info)
    assert labelled(kube, namespace, iid, KINDS)['StatefulSet'] == ['vdu1']


def test_scale_statefulset_out_and_in_by_aspect(ctx_for, kube, namespace):
    result, instance = _instantiate(ctx_for)
    iid = instance['id']
    first = _ids(result.instantiated_vnf_info)
    daemon = {p: first[p] for p in _pods(result.instantiated_vnf_info, 'VDU2')}
    out = _run(
        ctx_for,
        'SCALE',
        {'type': 'SCALE_OUT', 'aspectId': 'vdu1_aspect', 'numberOfSteps': 2},
        instance,
    )
    info = out.instantiated_vnf_info
    assert _pods(info, 'VDU1') == ['vdu1-0', 'vdu1-1', 'vdu1-2']
    assert info['scaleStatus'][0]['scaleLevel'] == 2
    _assert_names_live_pods(kube, namespace, iid, info)
    ids = _ids(info)
    assert ids['vdu1-0'] == first['vdu1-0']
    assert {p: ids[p] for p in _pods(info, 'VDU2')} == daemon
    assert _changes(out) == {
        ('ADDED', 'VDU1', 'vdu1-1'),
        ('ADDED', 'VDU1', 'vdu1-2'),
    }
    sts = kube.get('apps/v1', 'StatefulSet', 'vdu1', namespace)
    assert sts['spec']['replicas'] == 3
    # Scale in: the highest ordinal goes, the others keep their VNFC ids.
    back = _run(
        ctx_for,
        'SCALE',
        {'type': 'SCALE_IN', 'aspectId': 'vdu1_aspect'},
        instance,
    )
    info = back.instantiated_vnf_info
    assert _pods(info, 'VDU1') == ['vdu1-0', 'vdu1-1']
    assert info['scaleStatus'][0]['scaleLevel'] == 1
    _assert_names_live_pods(kube, namespace, iid, info)
    assert 'vdu1-2' not in _live_vnfc_pods(kube, namespace, iid)
    assert _ids(info) == {p: i for p, i in ids.items() if p != 'vdu1-2'}
    assert _changes(back) == {('REMOVED', 'VDU1', 'vdu1-2')}


def test_heal_replaces_one_pod_and_keeps_the_vnfc(ctx_for, kube, namespace):
    result, instance = _instantiate(
        ctx_for, instantiationLevelId='instantiation_level_2'
    )
    iid = instance['id']
    info = result.instantiated_vnf_info
    assert _pods(info, 'VDU1') == ['vdu1-0', 'vdu1-1']
    ids, uids = _ids(info), _uids(kube, namespace, iid)
    healed = _run(
        ctx_for,
        'HEAL',
        {'vnfcInstanceId': [f'VDU1-{ids["vdu1-0"]}']},
        instance,
    )
    new = healed.instantiated_vnf_info
    _assert_names_live_pods(kube, namespace, iid, new)
    # A StatefulSet Pod comes back under its ordinal name: a new Pod (uid)
    # for the same VNFC; nothing else was touched.
    now = _uids(kube, namespace, iid)
    assert now['vdu1-0'] != uids['vdu1-0']
    assert {p: u for p, u in now.items() if p != 'vdu1-0'} == {
        p: u for p, u in uids.items() if p != 'vdu1-0'
    }
    assert _ids(new) == ids
    assert _changes(healed) == {('MODIFIED', 'VDU1', 'vdu1-0')}
    # A DaemonSet Pod comes back under a new name on the same node: the
    # VNFC keeps its id and its resourceId follows the Pod.
    old_pod = _pods(new, 'VDU2')[0]
    node = _live_vnfc_pods(kube, namespace, iid)[old_pod]['spec']['nodeName']
    healed = _run(
        ctx_for, 'HEAL', {'vnfcInstanceId': [ids[old_pod]]}, instance
    )
    new = healed.instantiated_vnf_info
    _assert_names_live_pods(kube, namespace, iid, new)
    (replaced,) = set(_ids(new)) - set(ids)
    assert _ids(new)[replaced] == ids[old_pod]
    live = _live_vnfc_pods(kube, namespace, iid)
    assert old_pod not in live
    assert live[replaced]['spec']['nodeName'] == node
    assert _changes(healed) == {('MODIFIED', 'VDU2', replaced)}


def test_terminate_leaves_nothing_of_the_instance(ctx_for, kube, namespace):
    result, instance = _instantiate(ctx_for)
    iid = instance['id']
    _run(
        ctx_for,
        'SCALE',
        {'type': 'SCALE_OUT', 'aspectId': 'vdu1_aspect'},
        instance,
    )
    _wait_job_complete(kube, namespace)
    before = labelled(kube, namespace, iid, KINDS)
    assert before['ControllerRevision'] and before['Pod']
    out = DRIVER.terminate(
        ctx_for(
            'TERMINATE',
            {'terminationType': 'GRACEFUL', 'gracefulTerminationTimeout': 1},
            instance,
        )
    )
    assert labelled(kube, namespace, iid, KINDS) == {
        kind: [] for _, kind in KINDS
    }
    assert {a[0] for a in _changes(out)} == {'REMOVED'}
    assert len(_changes(out)) == len(
        instance['instantiatedVnfInfo']['vnfcResourceInfo']
    )


def test_forceful_terminate_leaves_nothing(ctx_for, kube, namespace):
    result, instance = _instantiate(ctx_for)
    iid = instance['id']
    DRIVER.terminate(
        ctx_for('TERMINATE', {'terminationType': 'FORCEFUL'}, instance)
    )
    left = labelled(kube, namespace, iid, KINDS)
    assert {k: v for k, v in left.items() if k != 'ControllerRevision'} == {
        kind: [] for _, kind in KINDS if kind != 'ControllerRevision'
    }
    # Without foreground deletion nothing waits for the workloads'
    # revisions (they run nothing): the garbage collector removes them.
    assert wait_for(
        lambda: (
            not labelled(
                kube, namespace, iid, (('apps/v1', 'ControllerRevision'),)
            )['ControllerRevision']
        ),
        60,
    ), 'ControllerRevisions of the instance were not garbage-collected'
