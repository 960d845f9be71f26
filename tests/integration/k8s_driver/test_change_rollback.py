"""Rollback of a failed Change Current VNF Package is a forced rollback.

The target package gives the StatefulSet VDU1 (RollingUpdate) an image that
cannot be pulled: the change fails naming the Pod. A StatefulSet does not
replace that Pod when its template is reverted (it waits for it to become
Ready), so the rollback must delete it; then the StatefulSet is back on
its previous template with its Pod Ready.
"""

from __future__ import annotations

import pytest

from vnfm.clients import kubernetes as k8s
from vnfm.drivers.infra import base
from vnfm.drivers.infra.kubernetes.driver import KubernetesInfraDriver

from .conftest import package
from .test_workload_kinds import STATEFULSET

pytestmark = pytest.mark.timeout(180, func_only=True)
DRIVER = KubernetesInfraDriver()
STS = 'Files/kubernetes/statefulset.yaml'
DEF_FILES = [STS, 'Files/kubernetes/pod.yaml']


def _template(kube: k8s.KubeClient, namespace: str) -> dict:
    sts = kube.get('apps/v1', 'StatefulSet', 'vdu1', namespace)
    assert sts is not None
    return sts['spec']['template']


def test_rollback_of_failed_change_restores_a_statefulset(
    make_ctx, kube, namespace
) -> None:
    files, vnfd = package(add={STS: STATEFULSET})
    bad_files, bad_vnfd = package(
        {STS: ('image: postgres:16', 'image: no-such-image:16')},
        add={STS: STATEFULSET},
    )
    instance = _instantiated(make_ctx, namespace, files, vnfd)
    before = _template(kube, namespace)
    change = {
        'vnfdId': bad_vnfd['vnfd_id'],
        'additionalParams': {
            'lcm-kubernetes-def-files': DEF_FILES,
            'upgrade_type': 'RollingUpdate',
        },
    }

    def ctx_of(**kw: object) -> base.InfraContext:
        return make_ctx(
            'CHANGE_VNFPKG',
            change,
            instance,
            package=files,
            vnfd=vnfd,
            target_package=bad_files,
            target_vnfd=bad_vnfd,
            **kw,
        )

    with pytest.raises(base.PartialFailure) as failed:
        DRIVER.change_vnfpkg(ctx_of())
    assert 'Pod vdu1-0: ImagePullBackOff' in failed.value.detail

    DRIVER.rollback_change_vnfpkg(ctx_of(work=failed.value.work))

    assert _template(kube, namespace) == before
    _assert_the_statefulset_runs_its_old_image_ready(kube, namespace, instance)


def _instantiated(make_ctx, namespace: str, files, vnfd) -> dict:
    """The VNF instance after instantiating the package in ``namespace``."""
    request = {
        'flavourId': 'simple',
        'additionalParams': {
            'lcm-kubernetes-def-files': DEF_FILES,
            'namespace': namespace,
        },
    }
    ctx = make_ctx('INSTANTIATE', request, package=files, vnfd=vnfd)
    return {
        **ctx.vnf_instance,
        'instantiatedVnfInfo': DRIVER.instantiate(ctx).instantiated_vnf_info,
    }


def _assert_the_statefulset_runs_its_old_image_ready(
    kube, namespace: str, instance: dict
) -> None:
    sts = kube.get('apps/v1', 'StatefulSet', 'vdu1', namespace)
    selector = f'{k8s.INSTANCE_LABEL}={instance["id"]}'
    pods = k8s.list_pods(kube, [sts], selector)
    live = pods[('StatefulSet', namespace, 'vdu1')]
    assert [p['spec']['containers'][0]['image'] for p in live] == [
        'postgres:16'
    ]
    assert all(k8s.status.pod(p)[0] for p in live)
    assert k8s.status.readiness(sts) == (True, '')
