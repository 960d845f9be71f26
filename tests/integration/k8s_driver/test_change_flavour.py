"""Change VNF flavour on the local Kubernetes control plane, with the
two-flavour sample (cnf_flavours): the target flavour's manifests are
applied, the objects only the source flavour had are deleted, and a
failed change rolls back to the source flavour's objects."""

from __future__ import annotations

import io
import pathlib
import uuid
import zipfile
from typing import Any

import pytest

from vnfm.clients import kubernetes as k8s
from vnfm.csar import read_csar
from vnfm.csar.build import build_csar
from vnfm.drivers.infra import base
from vnfm.drivers.infra.kubernetes.driver import KubernetesInfraDriver
from vnfm.drivers.package_files import PackageFiles

from .conftest import labelled

pytestmark = pytest.mark.timeout(180, func_only=True)
DRIVER = KubernetesInfraDriver()
SAMPLE = (
    pathlib.Path(__file__).resolve().parents[3]
    / 'samples'
    / 'packages'
    / 'cnf_flavours'
)
_K = 'Files/kubernetes/'
SMALL = [f'{_K}configmap.yaml', f'{_K}deployment.yaml', f'{_K}pod.yaml']
LARGE = [f'{_K}configmap.yaml', f'{_K}deployment.yaml', f'{_K}cache.yaml']
KINDS = (('v1', 'ConfigMap'), ('apps/v1', 'Deployment'), ('v1', 'Pod'))


def _package(bad_cache: bool = False) -> tuple[PackageFiles, dict]:
    with zipfile.ZipFile(io.BytesIO(build_csar(str(SAMPLE)))) as zf:
        files = {n: zf.read(n) for n in zf.namelist()}
    if bad_cache:
        # The simulated kubelet cannot pull no-such-image (cluster.py).
        files[f'{_K}cache.yaml'] = files[f'{_K}cache.yaml'].replace(
            b'image: redis:7.2', b'image: no-such-image:1.0'
        )
    vnfd = read_csar(build_csar(str(SAMPLE))).vnfd.to_dict()
    return PackageFiles(str(uuid.uuid4()), files), vnfd


def _instantiated(make_ctx, namespace: str, files, vnfd) -> dict[str, Any]:
    ctx = make_ctx(
        'INSTANTIATE',
        {
            'flavourId': 'small',
            'additionalParams': {
                'lcm-kubernetes-def-files': SMALL,
                'namespace': namespace,
            },
        },
        package=files,
        vnfd=vnfd,
        flavour_id='small',
    )
    info = DRIVER.instantiate(ctx).instantiated_vnf_info
    return {**ctx.vnf_instance, 'instantiatedVnfInfo': info}


def _change_ctx(make_ctx, instance, files, vnfd, **kw) -> base.InfraContext:
    request = {
        'newFlavourId': 'large',
        'additionalParams': {'lcm-kubernetes-def-files': LARGE},
    }
    return make_ctx(
        'CHANGE_FLAVOUR',
        request,
        instance,
        package=files,
        vnfd=vnfd,
        flavour_id='small',
        **kw,
    )


def _replicas(kube: k8s.KubeClient, namespace: str, name: str) -> int:
    obj = kube.get('apps/v1', 'Deployment', name, namespace)
    assert obj is not None, name
    return obj['spec']['replicas']


def test_change_to_large_replaces_the_small_only_objects(
    make_ctx, kube, namespace
) -> None:
    files, vnfd = _package()
    instance = _instantiated(make_ctx, namespace, files, vnfd)
    small_vnfc = instance['instantiatedVnfInfo']['vnfcResourceInfo'][0]

    result = DRIVER.change_flavour(
        _change_ctx(make_ctx, instance, files, vnfd)
    )

    info = result.instantiated_vnf_info
    assert info is not None and info['flavourId'] == 'large'
    objects = labelled(kube, namespace, instance['id'], KINDS)
    assert objects['Deployment'] == ['vdu1', 'vdu3']
    assert 'vdu2' not in objects['Pod']
    assert _replicas(kube, namespace, 'vdu1') == 2
    vdus = sorted(v['vduId'] for v in info['vnfcResourceInfo'])
    assert vdus == ['VDU1', 'VDU1', 'VDU3']
    # VDU1's existing VNFC keeps its id; VDU2's is removed.
    assert small_vnfc['id'] in {v['id'] for v in info['vnfcResourceInfo']}
    assert info['metadata']['lcm-kubernetes-def-files'] == LARGE
    changes = {
        (c['vduId'], c['changeType'])
        for c in (result.resource_changes or {})['affectedVnfcs']
    }
    assert {('VDU2', 'REMOVED'), ('VDU3', 'ADDED')} <= changes


def test_failed_change_rolls_back_to_the_small_objects(
    make_ctx, kube, namespace
) -> None:
    files, vnfd = _package()
    bad_files, _ = _package(bad_cache=True)
    instance = _instantiated(make_ctx, namespace, files, vnfd)
    before = labelled(kube, namespace, instance['id'], KINDS)

    with pytest.raises(base.PartialFailure) as failed:
        DRIVER.change_flavour(_change_ctx(make_ctx, instance, bad_files, vnfd))
    assert 'ImagePullBackOff' in failed.value.detail

    DRIVER.rollback_change_flavour(
        _change_ctx(make_ctx, instance, files, vnfd, work=failed.value.work)
    )

    after = labelled(kube, namespace, instance['id'], KINDS)
    assert after['Deployment'] == before['Deployment'] == ['vdu1']
    assert after['ConfigMap'] == before['ConfigMap']
    assert 'vdu2' in after['Pod']
    assert _replicas(kube, namespace, 'vdu1') == 1
