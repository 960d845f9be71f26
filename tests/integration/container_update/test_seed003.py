"""Seed 003 with the sample packages: instantiate cnf_update_v1 with the
Kubernetes infra driver, then the hook of cnf_update_v2."""

from __future__ import annotations

import io
import pathlib
import time
import uuid
import zipfile
from typing import Any

import pytest

from vnfm.clients import kubernetes as k8s
from vnfm.csar import read_csar
from vnfm.csar.build import build_csar
from vnfm.drivers.infra import base as infra_base
from vnfm.drivers.infra.kubernetes.driver import KubernetesInfraDriver
from vnfm.drivers.mgmt import base
from vnfm.drivers.mgmt.container_update import ContainerUpdateDriver
from vnfm.drivers.package_files import PackageFiles
from vnfm_testbed.demo import seed003
from vnfm_testbed.k8s.cluster import LocalCluster

from .conftest import VIM_ID

pytestmark = pytest.mark.timeout(240, func_only=True)
SAMPLES = pathlib.Path(__file__).resolve().parents[3] / 'samples' / 'packages'
DEF_FILES = seed003.DEF_FILES
RESTARTED = {
    'env-test',
    'volume-test',
    'vdu1-update',
    'vdu2-update',
    'daemonset-vdu5',
}
KEPT = {'env-test2', 'volume-test2', 'deployment2-vdu6'}


def _package(name: str) -> tuple[PackageFiles, dict[str, Any]]:
    data = build_csar(str(SAMPLES / name))
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        files = {n: zf.read(n) for n in zf.namelist()}
    return PackageFiles(name, files), read_csar(data).vnfd.to_dict()


def _by_workload(
    kube: k8s.KubeClient, ns: str, instance_id: str
) -> dict[str, set[str]]:
    """Workload name -> uids of its live Pods (VDU label -> name)."""
    out: dict[str, set[str]] = {}
    pods = kube.list('v1', 'Pod', ns, f'{k8s.INSTANCE_LABEL}={instance_id}')
    for p in pods[0]:
        if p['metadata'].get('deletionTimestamp'):
            continue
        name = p['metadata']['labels'].get('app')
        out.setdefault(name, set()).add(p['metadata']['uid'])
    return out


def test_seed003_update(
    kube: k8s.KubeClient, vim: dict, local_k8s: LocalCluster
) -> None:
    (v1, vnfd1), (v2, vnfd2) = (
        _package('cnf_update_v1'),
        _package('cnf_update_v2'),
    )
    ns = local_k8s.create_namespace(f'cu-{uuid.uuid4().hex[:8]}')
    instance = {'id': f'seed003-{ns}'}
    try:
        instance['instantiatedVnfInfo'] = _instantiate_v1(
            instance, ns, vim, v1, vnfd1
        )
        before = _by_workload(kube, ns, instance['id'])
        hook = vnfd2['interfaces']['modify_information_end']
        assert hook['builtin'] == 'container_update'

        changes = _modify_to_v2(instance, vim, v1, vnfd1, v2, vnfd2, hook)

        after = _by_workload(kube, ns, instance['id'])
        assert {w for w in before if not before[w] & after[w]} == RESTARTED
        assert {w for w in before if before[w] == after[w]} == KEPT
        cm = kube.get('v1', 'ConfigMap', 'cm-data', ns)
        assert cm['data']['cmKey1.txt'] == 'configmap2 data2\nfoo2\nbar2\n'
        report = changes['changedInfo']['metadata']['vnfm_container_update']
        assert [c['name'] for c in report['configMapsAndSecrets']] == [
            'cm-data',
            'secret-data',
        ]
        _assert_every_vnfc_kept_and_on_a_live_pod(kube, ns, instance, changes)
        affected = changes['resourceChanges']['affectedVnfcs']
        vdus = {a['vduId'] for a in affected}
        assert vdus == {'VDU1', 'VDU2', 'VDU3', 'VDU4', 'VDU5'}
    finally:
        kube.delete('v1', 'Namespace', ns, None, 'Background')


def _instantiate_v1(instance: dict, ns: str, vim: dict, v1, vnfd1) -> dict:
    """instantiatedVnfInfo of ``instance`` instantiated from v1 in ``ns``
    by the Kubernetes infra driver."""
    request = {
        'flavourId': 'simple',
        'additionalParams': {
            'lcm-kubernetes-def-files': DEF_FILES,
            'namespace': ns,
        },
    }
    result = KubernetesInfraDriver().instantiate(
        infra_base.InfraContext(
            operation='INSTANTIATE',
            vnf_instance=instance,
            request=request,
            vnfd=vnfd1,
            flavour_id='simple',
            vim_connection_info={VIM_ID: vim},
            package=v1,
            deadline=time.monotonic() + 90,
        )
    )
    return result.instantiated_vnf_info


def _modify_to_v2(
    instance: dict, vim: dict, v1, vnfd1, v2, vnfd2, hook: dict
) -> dict:
    """The changes of the container_update hook of a Modify VNF
    Information to v2 with its ConfigMap and Secret paths."""
    return (
        ContainerUpdateDriver()
        .modify_information_end(
            base.HookContext(
                hook='modify_information_end',
                operation='MODIFY_INFO',
                vnf_instance=instance,
                vnf_lcm_op_occ={},
                request={
                    'vnfdId': vnfd2['vnfd_id'],
                    'metadata': {
                        'configmap_secret_paths': [
                            'Files/kubernetes/configmap_1.yaml',
                            'Files/kubernetes/secret_1.yaml',
                        ]
                    },
                },
                vim_connection_info={VIM_ID: vim},
                vnfd=vnfd2,
                package=v2,
                definition=hook,
                deadline=time.monotonic() + 120,
                source_vnfd=vnfd1,
                source_package=v1,
            )
        )
        .changes
    )


def _assert_every_vnfc_kept_and_on_a_live_pod(
    kube: k8s.KubeClient, ns: str, instance: dict, changes: dict
) -> None:
    # Every VNFC keeps its id; restarted ones follow their new Pod.
    old = {
        v['id']: v for v in instance['instantiatedVnfInfo']['vnfcResourceInfo']
    }
    new = {
        v['id']: v for v in changes['instantiatedVnfInfo']['vnfcResourceInfo']
    }
    assert set(new) == set(old)
    live = {
        p['metadata']['name']
        for p in kube.list(
            'v1', 'Pod', ns, f'{k8s.INSTANCE_LABEL}={instance["id"]}'
        )[0]
        if not p['metadata'].get('deletionTimestamp')
    }
    assert {v['computeResource']['resourceId'] for v in new.values()} <= live
