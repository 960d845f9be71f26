"""Instantiate of a VNF whose VNFD names the kubernetes_cluster MgmtDriver:
its parameters are checked at the API, sealed at rest, masked in views."""

from __future__ import annotations

import json

from tests.unit.objects.test_k8s_cluster import valid
from tests.unit.objects.test_k8s_storage import with_storage
from tests.unit.server.conftest import json_of
from tests.unit.server.conftest import make_instance
from tests.unit.server.conftest import make_package
from vnfm.db import api as db
from vnfm.lcm import run as lcm_run

V1 = {'Version': '1.3.0'}
_HOOK = {
    'name': 'instantiate_end',
    'implementation': 'mgmt-drivers-kubernetes',
    'artifact_type': 'vnfm.artifacts.BuiltinMgmtDriver',
    'file': None,
    'description': None,
    'builtin': 'kubernetes_cluster',
}
_CLUSTER_VNFD = {
    'vnfd_id': 'vnfd-1',
    'flavours': {
        'cluster_install': {
            'flavour_id': 'cluster_install',
            'scaling_aspects': {'worker_instance': {}, 'master_instance': {}},
            'interfaces': {'instantiate_end': _HOOK},
        },
        'plain': {'flavour_id': 'plain'},
    },
}


def _instance() -> dict:
    return make_instance(make_package(vnfd=_CLUSTER_VNFD))


def _path(inst: dict) -> str:
    return f'/vnf_instances/{inst["id"]}/instantiate'


def test_missing_parameters_are_a_400_naming_them(client, rpc):
    inst = _instance()
    resp = client.lcm('POST', _path(inst), {'flavourId': 'cluster_install'})
    assert resp.status_int == 400
    assert json_of(resp)['detail'].startswith(
        'additionalParams/k8s_cluster_installation_param:'
    )
    assert rpc.calls == []


def test_a_wrong_parameter_is_named_v2_and_v1(client, rpc):
    inst = _instance()
    params = valid()
    del params['k8s_cluster_installation_param']['master_node']['username']
    body = {'flavourId': 'cluster_install', 'additionalParams': params}
    named = (
        'additionalParams/k8s_cluster_installation_param/master_node/'
        'username: is a required property'
    )
    resp = client.lcm('POST', _path(inst), body)
    assert resp.status_int == 400 and json_of(resp)['detail'] == named
    resp = client.request('POST', '/vnflcm/v1' + _path(inst), body, headers=V1)
    assert resp.status_int == 400 and json_of(resp)['detail'] == named
    assert rpc.calls == []


def test_an_aspect_not_in_the_flavour_is_a_400(client):
    inst = _instance()
    params = valid()
    params['k8s_cluster_installation_param']['worker_node']['aspect_id'] = (
        'workers'
    )
    resp = client.lcm(
        'POST',
        _path(inst),
        {'flavourId': 'cluster_install', 'additionalParams': params},
    )
    assert resp.status_int == 400
    assert 'worker_node/aspect_id' in json_of(resp)['detail']


def test_a_flavour_without_the_driver_is_not_checked(client):
    inst = _instance()
    resp = client.lcm('POST', _path(inst), {'flavourId': 'plain'})
    assert resp.status_int == 202


def test_passwords_are_sealed_at_rest_and_masked_in_views(client):
    inst = _instance()
    resp = client.lcm(
        'POST',
        _path(inst),
        {'flavourId': 'cluster_install', 'additionalParams': valid()},
    )
    assert resp.status_int == 202
    op_id = resp.headers['Location'].rsplit('/', 1)[1]
    stored = db.op_get(op_id)
    text = json.dumps(stored['operation_params'])
    assert 'master-pw' not in text and 'worker-pw' not in text
    # The conductor's view: in clear, as given.
    assert lcm_run.request_of(stored)['additionalParams'] == valid()
    shown = json_of(client.lcm('GET', f'/vnf_lcm_op_occs/{op_id}'))
    params = shown['operationParams']['additionalParams']
    assert '_sealed' not in params
    inner = params['k8s_cluster_installation_param']
    assert inner['master_node']['password'] == '********'
    assert inner['worker_node']['username'] == 'ubuntu'
    assert 'master-pw' not in json.dumps(shown)


def test_terminate_is_a_409_while_cnfs_use_the_clusters_vim(client, rpc):
    package = make_package(vnfd=_CLUSTER_VNFD)
    provided = {
        'kubernetes_cluster': {
            'vimId': 'vim-k8s',
            'vimType': 'ETSINFV.KUBERNETES.V_1',
            'extra': {'vnfm_provided_vim': True},
        }
    }
    cluster = make_instance(
        package, state='INSTANTIATED', vim_connection_info=provided
    )
    cnf = make_instance(
        package,
        state='INSTANTIATED',
        vnf_instance_name='web',
        vim_connection_info={'k8s': {'vimId': 'vim-k8s'}},
    )
    path = f'/vnf_instances/{cluster["id"]}/terminate'
    body = {'terminationType': 'FORCEFUL'}

    resp = client.lcm('POST', path, body)

    assert resp.status_int == 409
    assert f'{cnf["id"]} (web) still use' in json_of(resp)['detail']
    assert rpc.calls == []
    db.instance_update(cnf['id'], {'instantiation_state': 'NOT_INSTANTIATED'})
    assert client.lcm('POST', path, body).status_int == 202


def test_storage_parameters_are_checked_at_the_api(client, rpc):
    inst = _instance()
    params = with_storage()
    storage = params['k8s_cluster_installation_param']['storage_server']
    storage['nfs_server_setup_params'][0]['export_dir'] = '/srv/pv1'
    resp = client.lcm(
        'POST',
        _path(inst),
        {'flavourId': 'cluster_install', 'additionalParams': params},
    )
    assert resp.status_int == 400
    assert json_of(resp)['detail'].startswith(
        'additionalParams/k8s_cluster_installation_param/storage_server/'
        'nfs_server_setup_params/0/export_dir: /srv/pv1 is on no Cinder'
    )
    assert 'storage-pw' not in resp.text
    assert rpc.calls == []


def test_the_storage_password_is_sealed_and_masked_too(client):
    inst = _instance()
    resp = client.lcm(
        'POST',
        _path(inst),
        {'flavourId': 'cluster_install', 'additionalParams': with_storage()},
    )
    assert resp.status_int == 202
    op_id = resp.headers['Location'].rsplit('/', 1)[1]
    assert 'storage-pw' not in json.dumps(db.op_get(op_id)['operation_params'])
    shown = client.lcm('GET', f'/vnf_lcm_op_occs/{op_id}')
    assert 'storage-pw' not in shown.text


def test_the_reproduced_mount_to_injection_is_a_400(client, rpc):
    # It passed validation and ran 'touch' as root on the storage VM.
    inst = _instance()
    params = with_storage()
    storage = params['k8s_cluster_installation_param']['storage_server']
    storage['cinder_volume_setup_params'][0]['mount_to'] = (
        '/volume$(touch${IFS}/tmp/pwned)'
    )
    body = {'flavourId': 'cluster_install', 'additionalParams': params}
    resp = client.lcm('POST', _path(inst), body)
    assert resp.status_int == 400
    assert json_of(resp)['detail'].startswith(
        'additionalParams/k8s_cluster_installation_param/storage_server/'
        'cinder_volume_setup_params/0/mount_to: must be an absolute '
    )
    assert rpc.calls == []
    assert db.op_list({'vnf_instance_id': inst['id']}) == []
