"""Instantiate, scale, heal, change package and terminate a CNF for real."""

from __future__ import annotations

import time

from vnfm.clients import kubernetes as k8s
from vnfm.drivers.infra.kubernetes import sync
from vnfm.drivers.infra.kubernetes.driver import KubernetesInfraDriver

from .conftest import VIM_ID
from .conftest import labelled
from .conftest import live_pods
from .conftest import package

DRIVER = KubernetesInfraDriver()


def _instantiate(make_ctx, **kw):
    ctx = make_ctx('INSTANTIATE', **kw)
    result = DRIVER.instantiate(ctx)
    instance = {
        **ctx.vnf_instance,
        'instantiatedVnfInfo': result.instantiated_vnf_info,
    }
    return ctx, result, instance


def _pods_of(info, vdu):
    return [
        e['computeResource']['resourceId']
        for e in info['vnfcResourceInfo']
        if e['vduId'] == vdu
    ]


def test_instantiate_creates_labelled_objects_and_maps_pods(
    make_ctx, kube, namespace
):
    ctx, result, instance = _instantiate(make_ctx)
    iid = instance['id']
    objs = labelled(kube, namespace, iid)
    assert objs['ConfigMap'] == ['cnf-simple-config']
    assert objs['Secret'] == ['cnf-simple-secret']
    assert objs['Service'] == ['cnf-simple-web']
    assert objs['Deployment'] == ['vdu1']
    info = result.instantiated_vnf_info
    assert info['flavourId'] == 'simple' and info['vnfState'] == 'STARTED'
    assert info['scaleStatus'] == [
        {'aspectId': 'vdu1_aspect', 'scaleLevel': 0}
    ]
    # vnfcResourceInfo names exactly the live, Ready Pods.
    assert {
        e['computeResource']['resourceId'] for e in info['vnfcResourceInfo']
    } == set(objs['Pod'])
    assert _pods_of(info, 'VDU2') == ['vdu2']
    kinds = {
        e['vduId']: e['computeResource']['vimLevelResourceType']
        for e in info['vnfcResourceInfo']
    }
    assert kinds == {'VDU1': 'Deployment', 'VDU2': 'Pod'}
    assert all(
        e['computeResource']['vimConnectionId'] == VIM_ID
        for e in info['vnfcResourceInfo']
    )
    for pod in objs['Pod']:
        live = kube.get('v1', 'Pod', pod, namespace)
        assert k8s.status.pod(live)[0]
    assert info['metadata']['namespace'] == namespace
    assert {
        a['changeType'] for a in result.resource_changes['affectedVnfcs']
    } == {'ADDED'}
    # Instantiate again (retry): nothing new, same objects, patched.
    again = DRIVER.instantiate(ctx)
    assert labelled(kube, namespace, iid)['Deployment'] == ['vdu1']
    assert len(again.instantiated_vnf_info['vnfcResourceInfo']) == 2


def test_instantiation_level_and_scale_out_in(make_ctx, kube, namespace):
    ctx, result, instance = _instantiate(make_ctx)
    first = result.instantiated_vnf_info['vnfcResourceInfo']
    scale = make_ctx(
        'SCALE',
        {'type': 'SCALE_OUT', 'aspectId': 'vdu1_aspect', 'numberOfSteps': 2},
        instance,
    )
    out = DRIVER.scale(scale)
    info = out.instantiated_vnf_info
    assert len(_pods_of(info, 'VDU1')) == 3
    assert info['scaleStatus'][0]['scaleLevel'] == 2
    assert set(_pods_of(info, 'VDU1')) | {'vdu2'} == live_pods(
        kube, namespace, instance['id']
    )
    # Existing VNFCs keep their ids; two were added.
    assert {e['id'] for e in first} <= {
        e['id'] for e in info['vnfcResourceInfo']
    }
    added = [
        a
        for a in out.resource_changes['affectedVnfcs']
        if a['changeType'] == 'ADDED'
    ]
    assert len(added) == 2
    instance['instantiatedVnfInfo'] = info
    scale_in = make_ctx(
        'SCALE', {'type': 'SCALE_IN', 'aspectId': 'vdu1_aspect'}, instance
    )
    back = DRIVER.scale(scale_in).instantiated_vnf_info
    assert len(_pods_of(back, 'VDU1')) == 2
    assert back['scaleStatus'][0]['scaleLevel'] == 1
    assert set(_pods_of(back, 'VDU1')) | {'vdu2'} == live_pods(
        kube, namespace, instance['id']
    )
    # Beyond max_scale_level: refused before touching anything.
    instance['instantiatedVnfInfo'] = back
    too_far = make_ctx(
        'SCALE',
        {'type': 'SCALE_OUT', 'numberOfSteps': 3, 'aspectId': 'vdu1_aspect'},
        instance,
    )
    try:
        DRIVER.scale(too_far)
    except Exception as e:  # noqa: BLE001 - asserting on the message
        assert 'outside 0..3' in str(e)
    else:
        raise AssertionError('scale beyond max_scale_level was accepted')


def test_heal_one_vnfc_keeps_its_id_with_a_new_pod(make_ctx, kube):
    ctx, result, instance = _instantiate(make_ctx)
    info = result.instantiated_vnf_info
    vdu1 = next(e for e in info['vnfcResourceInfo'] if e['vduId'] == 'VDU1')
    vnfc_info_id = f'VDU1-{vdu1["id"]}'
    heal = make_ctx('HEAL', {'vnfcInstanceId': [vnfc_info_id]}, instance)
    healed = DRIVER.heal(heal)
    new = next(
        e
        for e in healed.instantiated_vnf_info['vnfcResourceInfo']
        if e['id'] == vdu1['id']
    )
    old_pod = vdu1['computeResource']['resourceId']
    assert new['computeResource']['resourceId'] != old_pod
    ns = info['metadata']['namespace']
    assert kube.get('v1', 'Pod', old_pod, ns) is None or kube.get(
        'v1', 'Pod', old_pod, ns
    )['metadata'].get('deletionTimestamp')
    assert [
        a['changeType'] for a in healed.resource_changes['affectedVnfcs']
    ] == ['MODIFIED']
    # The bare Pod: re-created under the same name, same VNFC id.
    bare = next(e for e in info['vnfcResourceInfo'] if e['vduId'] == 'VDU2')
    uid = kube.get('v1', 'Pod', 'vdu2', ns)['metadata']['uid']
    instance['instantiatedVnfInfo'] = healed.instantiated_vnf_info
    DRIVER.heal(make_ctx('HEAL', {'vnfcInstanceId': [bare['id']]}, instance))
    again = kube.get('v1', 'Pod', 'vdu2', ns)
    assert again['metadata']['uid'] != uid
    assert k8s.status.pod(again)[0]


def test_heal_whole_vnf_replaces_every_pod(make_ctx, kube):
    ctx, result, instance = _instantiate(make_ctx)
    info = result.instantiated_vnf_info
    ns = info['metadata']['namespace']
    uids = {
        p: kube.get('v1', 'Pod', p, ns)['metadata']['uid']
        for p in _pods_of(info, 'VDU1') + _pods_of(info, 'VDU2')
    }
    healed = DRIVER.heal(make_ctx('HEAL', {}, instance))
    new = healed.instantiated_vnf_info
    assert {e['id'] for e in new['vnfcResourceInfo']} == {
        e['id'] for e in info['vnfcResourceInfo']
    }
    for pod in _pods_of(new, 'VDU1') + _pods_of(new, 'VDU2'):
        assert kube.get('v1', 'Pod', pod, ns)['metadata']['uid'] not in (
            uids.values()
        )


def test_change_vnfpkg_rolls_the_deployment(make_ctx, kube, namespace):
    ctx, result, instance = _instantiate(make_ctx)
    info = result.instantiated_vnf_info
    files, vnfd = package(
        {
            'Files/kubernetes/deployment.yaml': (
                'image: nginx:1.25',
                'image: nginx:1.27',
            )
        }
    )
    change = _change_to_nginx_1_27_without_the_service(
        make_ctx, instance, files, vnfd
    )
    changed = DRIVER.change_vnfpkg(change)
    new = changed.instantiated_vnf_info
    dep = kube.get('apps/v1', 'Deployment', 'vdu1', namespace)
    assert dep['spec']['template']['spec']['containers'][0]['image'] == (
        'nginx:1.27'
    )
    vdu1_old, vdu1_new = _pods_of(info, 'VDU1'), _pods_of(new, 'VDU1')
    assert vdu1_old != vdu1_new
    assert {e['id'] for e in new['vnfcResourceInfo']} == {
        e['id'] for e in info['vnfcResourceInfo']
    }
    # The Service is not in the new package's list: removed.
    assert kube.get('v1', 'Service', 'cnf-simple-web', namespace) is None
    assert set(vdu1_new) | {'vdu2'} == live_pods(
        kube, namespace, instance['id']
    )
    # Roll back to the source package: the Service and old image return.
    instance['instantiatedVnfInfo'] = new
    back = make_ctx(
        'CHANGE_VNFPKG',
        change.request,
        instance,
        target_package=files,
        target_vnfd=vnfd,
        work=changed.work,
    )
    DRIVER.rollback_change_vnfpkg(back)
    dep = kube.get('apps/v1', 'Deployment', 'vdu1', namespace)
    assert dep['spec']['template']['spec']['containers'][0]['image'] == (
        'nginx:1.25'
    )
    assert kube.get('v1', 'Service', 'cnf-simple-web', namespace)


def _change_to_nginx_1_27_without_the_service(make_ctx, instance, files, vnfd):
    """The CHANGE_VNFPKG context to ``files``, whose manifest list leaves
    out the Service."""
    return make_ctx(
        'CHANGE_VNFPKG',
        {
            'vnfdId': vnfd['vnfd_id'],
            'additionalParams': {
                'lcm-kubernetes-def-files': [
                    'Files/kubernetes/configmap.yaml',
                    'Files/kubernetes/secret.yaml',
                    'Files/kubernetes/deployment.yaml',
                    'Files/kubernetes/pod.yaml',
                ],
                'upgrade_type': 'RollingUpdate',
            },
        },
        instance,
        target_package=files,
        target_vnfd=vnfd,
    )


def test_terminate_removes_everything(make_ctx, kube, namespace):
    ctx, result, instance = _instantiate(make_ctx)
    before = labelled(kube, namespace, instance['id'])
    assert before['Pod']
    term = make_ctx(
        'TERMINATE',
        {'terminationType': 'GRACEFUL', 'gracefulTerminationTimeout': 1},
        instance,
    )
    out = DRIVER.terminate(term)
    assert all(
        not v for v in labelled(kube, namespace, instance['id']).values()
    )
    assert {
        a['changeType'] for a in out.resource_changes['affectedVnfcs']
    } == {'REMOVED'}
    # Terminate again: nothing left, still fine.
    DRIVER.terminate(term)


def test_forceful_terminate(make_ctx, kube, namespace):
    ctx, result, instance = _instantiate(make_ctx)
    DRIVER.terminate(
        make_ctx('TERMINATE', {'terminationType': 'FORCEFUL'}, instance)
    )
    assert all(
        not v for v in labelled(kube, namespace, instance['id']).values()
    )


def test_sync_follows_pods_kubernetes_replaced(make_ctx, kube, vim, namespace):
    ctx, result, instance = _instantiate(make_ctx)
    info = result.instantiated_vnf_info
    old_pod = _pods_of(info, 'VDU1')[0]
    kube.delete('v1', 'Pod', old_pod, namespace, 'Background', 0)
    deadline = time.monotonic() + 30
    while True:  # the ReplicaSet controller creates a replacement
        synced = sync.sync_vnfc_resource_info(
            VIM_ID, vim, instance['id'], info
        )
        pods = _pods_of({'vnfcResourceInfo': synced}, 'VDU1')
        if pods and old_pod not in pods:
            break
        assert time.monotonic() < deadline, pods
        time.sleep(0.05)
    assert [e['id'] for e in synced] == [
        e['id'] for e in info['vnfcResourceInfo']
    ]
    assert sync.changed(info['vnfcResourceInfo'], synced)
