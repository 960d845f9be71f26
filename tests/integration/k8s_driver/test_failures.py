"""Failures name the object and the reason; rollback restores the namespace."""

from __future__ import annotations

import time

import pytest

from vnfm.clients import kubernetes as k8s
from vnfm.drivers.infra import base
from vnfm.drivers.infra.kubernetes.driver import KubernetesInfraDriver
from vnfm_testbed.k8s.cluster import NOACCESS_USER

from .conftest import labelled
from .conftest import package
from .conftest import vim_info

DRIVER = KubernetesInfraDriver()


def test_failing_image_fails_fast_and_rollback_cleans_up(
    make_ctx, kube, namespace
):
    kube.create(
        {
            'apiVersion': 'v1',
            'kind': 'ConfigMap',
            'metadata': {'name': 'not-ours', 'namespace': namespace},
        }
    )
    files, vnfd = package(
        {
            'Files/kubernetes/deployment.yaml': (
                'image: nginx:1.25',
                'image: no-such-image',
            )
        }
    )
    ctx = make_ctx('INSTANTIATE', package=files, vnfd=vnfd)
    start = time.monotonic()
    with pytest.raises(base.PartialFailure) as err:
        DRIVER.instantiate(ctx)
    assert time.monotonic() - start < 20  # not the 60 s ready_timeout
    assert 'Pod vdu1-' in err.value.detail
    assert 'ImagePullBackOff' in err.value.detail
    assert err.value.work['created']
    rollback = make_ctx(
        'INSTANTIATE',
        ctx.request,
        ctx.vnf_instance,
        package=files,
        vnfd=vnfd,
        work=err.value.work,
    )
    DRIVER.rollback_instantiate(rollback)
    assert all(
        not v
        for v in labelled(kube, namespace, ctx.vnf_instance['id']).values()
    )
    assert kube.get('v1', 'ConfigMap', 'not-ours', namespace)


def test_existing_object_of_someone_else_is_not_adopted(
    make_ctx, kube, namespace
):
    kube.create(
        {
            'apiVersion': 'v1',
            'kind': 'ConfigMap',
            'metadata': {'name': 'cnf-simple-config', 'namespace': namespace},
            'data': {'owner': 'someone else'},
        }
    )
    ctx = make_ctx('INSTANTIATE')
    with pytest.raises(k8s.KubernetesConflict) as err:
        DRIVER.instantiate(ctx)
    assert 'ConfigMap' in err.value.detail
    assert 'not managed by VNF instance' in err.value.detail
    # Rollback without work (nothing was recorded) leaves it alone too.
    DRIVER.rollback_instantiate(
        make_ctx('INSTANTIATE', ctx.request, ctx.vnf_instance)
    )
    live = kube.get('v1', 'ConfigMap', 'cnf-simple-config', namespace)
    assert live['data'] == {'owner': 'someone else'}


def test_wrong_ca_is_a_clear_tls_error(make_ctx, local_k8s, tmp_path):
    from vnfm_testbed.k8s import certs

    other = certs.make_ca('someone-else-ca')
    vim = vim_info(local_k8s)
    vim['interfaceInfo']['ssl_ca_cert'] = other.cert_pem.decode()
    with pytest.raises(k8s.KubernetesUnreachable) as err:
        DRIVER.instantiate(make_ctx('INSTANTIATE', vim=vim))
    assert 'TLS verification' in err.value.detail
    assert 'ssl_ca_cert' in err.value.detail


def test_token_without_rights_is_a_clear_403(make_ctx, local_k8s):
    vim = vim_info(local_k8s, bearer_token=local_k8s.user_token(NOACCESS_USER))
    with pytest.raises(k8s.KubernetesForbidden) as err:
        DRIVER.instantiate(make_ctx('INSTANTIATE', vim=vim))
    assert 'HTTP 403' in err.value.detail
    assert 'forbidden' in err.value.detail


def test_bad_token_is_a_clear_401(make_ctx, local_k8s):
    vim = vim_info(local_k8s, bearer_token='not-a-token')
    with pytest.raises(k8s.KubernetesForbidden) as err:
        DRIVER.instantiate(make_ctx('INSTANTIATE', vim=vim))
    assert 'HTTP 401' in err.value.detail


def test_one_deployment_completes_within_a_second_of_ready(
    make_ctx, kube, namespace
):
    """The wait returns on the watch event, not on a polling interval."""
    ctx = make_ctx('INSTANTIATE')
    start = time.monotonic()
    result = DRIVER.instantiate(ctx)
    took = time.monotonic() - start
    pods = [
        kube.get('v1', 'Pod', e['computeResource']['resourceId'], namespace)
        for e in result.instantiated_vnf_info['vnfcResourceInfo']
    ]
    assert all(k8s.status.pod(p)[0] for p in pods)
    assert took < 5, took  # Pods become Ready ~0.2 s after scheduling
    assert result.work['requests'] < 60
