"""A CNF through the real client's v1 commands (``openstack vnflcm ...``
without ``--os-tacker-api-version``) with the request Tacker's v1 user
guides give: vimType ``kubernetes``, not ``ETSINFV.KUBERNETES.V_1``."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from vnfm_testbed.client import ClientError

from .conftest import DEF_FILES
from .conftest import V1_VNFD_ID
from .conftest import vim_yaml
from .conftest import wait_done
from .conftest import write_json

pytestmark = pytest.mark.timeout(240)


def _request(namespace: str, vim: dict) -> dict:
    return {
        'flavourId': 'simple',
        'vimConnectionInfo': [vim],
        'additionalParams': {
            'lcm-kubernetes-def-files': DEF_FILES,
            'namespace': namespace,
        },
    }


def test_tacker_v1_cnf_request_with_the_real_client(
    cnf_client,
    cnf_api,
    cnf_packages,
    kubectl,
    local_k8s,
    namespace,
    tmp_path: Path,
) -> None:
    name = f'k8s-{uuid.uuid4().hex[:8]}'
    vim = cnf_client.json(
        'vim',
        'register',
        '--config-file',
        str(vim_yaml(local_k8s, tmp_path / 'vim.yaml')),
        name,
    )
    v1_vim = {
        'id': str(uuid.uuid4()),
        'vimId': vim['id'],
        'vimType': 'kubernetes',
    }
    inst_id = cnf_client.json('vnflcm', 'create', V1_VNFD_ID)['ID']

    _an_openstack_vim_type_is_refused_and_nothing_started(
        cnf_client, cnf_api, inst_id, namespace, v1_vim, tmp_path
    )

    cnf_client.run(
        'vnflcm',
        'instantiate',
        inst_id,
        write_json(tmp_path, 'inst.json', _request(namespace, v1_vim)),
    )
    wait_done(cnf_api, inst_id, 'INSTANTIATE')
    shown = cnf_client.json('vnflcm', 'show', inst_id)
    assert shown['Instantiation State'] == 'INSTANTIATED'
    assert shown['VIM Connection Info'] == [v1_vim]  # as given
    assert sorted(kubectl.objects(namespace, inst_id)['Deployment']) == [
        'vdu1'
    ]

    cnf_client.run('vnflcm', 'terminate', inst_id)
    wait_done(cnf_api, inst_id, 'TERMINATE')
    assert kubectl.objects(namespace, inst_id) == {}
    cnf_client.run('vnflcm', 'delete', inst_id)
    cnf_client.run('vim', 'delete', name)


def _an_openstack_vim_type_is_refused_and_nothing_started(
    cnf_client, cnf_api, inst_id: str, namespace: str, v1_vim, tmp_path
) -> None:
    # A vimType no enabled driver serves is refused, nothing started.
    with pytest.raises(ClientError) as e:
        cnf_client.run(
            'vnflcm',
            'instantiate',
            inst_id,
            write_json(
                tmp_path,
                'os.json',
                _request(namespace, dict(v1_vim, vimType='openstack')),
            ),
        )
    assert 'vimType openstack is not served by any enabled infra driver' in (
        e.value.stdout + e.value.stderr
    )
    assert (
        cnf_api.ok(
            'GET',
            '/vnf_lcm_op_occs',
            200,
            params={'filter': f'(eq,vnfInstanceId,{inst_id})'},
        ).json()
        == []
    )
