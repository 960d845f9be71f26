"""CNF failures seen through the real client: an image that cannot be
pulled (then rollback restores the namespace) and a VIM with a wrong CA."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from vnfm_testbed.k8s import certs

from .conftest import K8S_VIM_TYPE
from .conftest import V1_VNFD_ID
from .conftest import inline_vim
from .conftest import instantiate_body
from .conftest import vim_yaml
from .conftest import write_json

pytestmark = pytest.mark.timeout(180)


def test_image_pull_failure_then_rollback_restores_the_namespace(
    cnf_client,
    cnf_api,
    cnf_packages,
    kubectl,
    local_k8s,
    namespace,
    tmp_path: Path,
) -> None:
    client, api = cnf_client, cnf_api
    kubectl.run(
        'create',
        'configmap',
        'not-ours',
        '-n',
        namespace,
        '--from-literal=owner=someone-else',
    )
    bad_vnfd = cnf_packages['badimage']['vnfdId']
    inst_id = client.lcm_json('create', bad_vnfd, '--name', 'cnf-bad')['ID']
    body = instantiate_body(namespace, inline_vim(local_k8s))
    client.lcm('instantiate', inst_id, write_json(tmp_path, 'i.json', body))
    op_id = api.latest_op(inst_id, 'INSTANTIATE')['id']
    api.wait_op(op_id, 'FAILED_TEMP', timeout=60)

    op = client.lcm_json('op', 'show', op_id)
    assert op['Operation State'] == 'FAILED_TEMP'
    detail = op['Error']['detail']
    assert 'Pod vdu1-' in detail and 'ImagePullBackOff' in detail, detail
    assert kubectl.objects(namespace, inst_id)  # it did create things

    client.lcm('op', 'rollback', op_id)
    api.wait_op(op_id, 'ROLLED_BACK', timeout=60)
    assert client.lcm_json('op', 'show', op_id)['Operation State'] == (
        'ROLLED_BACK'
    )
    assert client.lcm_json('show', inst_id)['Instantiation State'] == (
        'NOT_INSTANTIATED'
    )
    # The namespace is as it was: nothing of the instance, not-ours kept.
    assert kubectl.objects(namespace, inst_id) == {}
    assert _objects_left(kubectl, namespace) == [('ConfigMap', 'not-ours')]
    assert local_k8s.admin_token not in client.printed()
    client.lcm('delete', inst_id)


def _objects_left(kubectl, namespace: str) -> list[tuple[str, str]]:
    """(kind, name) of the namespace's objects of the kinds a CNF makes,
    without those Kubernetes puts in every namespace."""
    left = kubectl.json(
        'get',
        'configmaps,secrets,services,deployments,replicasets,pods',
        '-n',
        namespace,
    )['items']
    return sorted(
        (o['kind'], o['metadata']['name'])
        for o in left
        if not o['metadata']['name'].startswith('default-token')
        and o['metadata']['name'] != 'kube-root-ca.crt'
    )


def test_vim_with_a_wrong_ca_fails_with_a_tls_error(
    cnf_client, cnf_api, cnf_packages, local_k8s, namespace, tmp_path: Path
) -> None:
    client, api = cnf_client, cnf_api
    name = f'wrong-ca-{uuid.uuid4().hex[:8]}'
    other_ca = certs.make_ca('someone-else-ca').cert_pem.decode()
    vim = client.json(
        'vim',
        'register',
        '--config-file',
        str(vim_yaml(local_k8s, tmp_path / 'vim.yaml', ca_pem=other_ca)),
        name,
    )
    inst_id = api.create_instance(V1_VNFD_ID, name='cnf-wrong-ca')
    body = instantiate_body(
        namespace, {'vimId': vim['id'], 'vimType': K8S_VIM_TYPE}
    )
    client.lcm('instantiate', inst_id, write_json(tmp_path, 'i.json', body))
    op_id = api.latest_op(inst_id, 'INSTANTIATE')['id']
    api.wait_op(op_id, 'FAILED_TEMP', timeout=60)

    detail = client.lcm_json('op', 'show', op_id)['Error']['detail']
    assert 'TLS verification' in detail and 'ssl_ca_cert' in detail, detail
    assert local_k8s.endpoint in detail
    failed = client.lcm_json('op', 'fail', op_id)
    assert failed['Operation State'] == 'FAILED'
    assert local_k8s.admin_token not in client.printed()
    api.ok('DELETE', f'/vnf_instances/{inst_id}', 204)
    client.run('vim', 'delete', name)
