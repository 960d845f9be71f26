"""A CNF's whole lifecycle through the real client (``openstack vim
register`` and ``openstack --os-tacker-api-version 2 vnflcm ...``) against
vnfm-api + vnfm-conductor and the local Kubernetes control plane, checked
with kubectl.

One test walks the lifecycle step by step (each client call costs seconds,
so the steps share one instance); each step is a helper below.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from vnfm_testbed.client import ClientError

from .conftest import DEF_FILES
from .conftest import K8S_VIM_TYPE
from .conftest import V1_VNFD_ID
from .conftest import V2_VNFD_ID
from .conftest import CnfInstance
from .conftest import instantiate_body
from .conftest import pods_of
from .conftest import vim_yaml
from .conftest import vnfcs_of
from .conftest import wait_done
from .conftest import write_json

pytestmark = pytest.mark.timeout(240)


class Cnf(CnfInstance):
    """The instance under test and what reaches it."""

    def lcm_op(self, operation: str, *args: str) -> dict:
        """Run ``openstack vnflcm <args>``; the op once COMPLETED."""
        self.client.lcm(*args)
        return wait_done(self.api, self.inst_id, operation)

    def replicas(self) -> int:
        """spec.replicas of Deployment vdu1, as kubectl shows it."""
        return self.kubectl.json(
            'get', 'deployment', 'vdu1', '-n', self.namespace
        )['spec']['replicas']


def _instantiate(cnf: Cnf, vim_id: str) -> None:
    cnf.inst_id = cnf.client.lcm_json(
        'create', V1_VNFD_ID, '--name', 'cnf-it'
    )['ID']
    body = instantiate_body(
        cnf.namespace, {'vimId': vim_id, 'vimType': K8S_VIM_TYPE}
    )
    cnf.lcm_op(
        'INSTANTIATE',
        'instantiate',
        cnf.inst_id,
        write_json(cnf.tmp_path, 'inst.json', body),
    )
    shown = cnf.client.lcm_json('show', cnf.inst_id)
    assert shown['Instantiation State'] == 'INSTANTIATED'
    assert shown['VIM Connection Info']['vim1']['vimId'] == vim_id
    objects = cnf.kubectl.objects(cnf.namespace, cnf.inst_id)
    assert objects['ConfigMap'] == ['cnf-simple-config']
    assert objects['Secret'] == ['cnf-simple-secret']
    assert objects['Service'] == ['cnf-simple-web']
    assert objects['Deployment'] == ['vdu1']
    assert sorted(pods_of(shown)) == sorted(objects['Pod'])
    assert len(pods_of(shown)) == 2 and 'vdu2' in pods_of(shown)


def _scale_out_and_in(cnf: Cnf) -> None:
    cnf.lcm_op(
        'SCALE',
        'scale',
        '--type',
        'SCALE_OUT',
        '--aspect-id',
        'vdu1_aspect',
        cnf.inst_id,
    )
    inst = cnf.instance()
    assert len(pods_of(inst, 'VDU1')) == 2 and cnf.replicas() == 2
    assert inst['instantiatedVnfInfo']['scaleStatus'] == [
        {'aspectId': 'vdu1_aspect', 'scaleLevel': 1}
    ]
    op = cnf.lcm_op(
        'SCALE',
        'scale',
        '--type',
        'SCALE_IN',
        '--aspect-id',
        'vdu1_aspect',
        cnf.inst_id,
    )
    assert op['operationParams']['type'] == 'SCALE_IN'
    assert len(pods_of(cnf.instance(), 'VDU1')) == 1 and cnf.replicas() == 1


def _heal_one_vnfc(cnf: Cnf) -> None:
    """Named by its vnfcInfo id: a new Pod, the same VNFC id."""
    ((vnfc_id, old_pod),) = vnfcs_of(cnf.instance(), 'VDU1').items()
    cnf.lcm_op(
        'HEAL', 'heal', cnf.inst_id, '--vnfc-instance', f'VDU1-{vnfc_id}'
    )
    after = vnfcs_of(cnf.instance(), 'VDU1')
    assert list(after) == [vnfc_id] and after[vnfc_id] != old_pod
    assert old_pod not in cnf.kubectl.live_pods(cnf.namespace, cnf.inst_id)


def _heal_whole_vnf(cnf: Cnf) -> set[str]:
    """Every Pod replaced (the bare Pod under its own name), ids kept."""
    before = vnfcs_of(cnf.instance())
    uids = {
        p['metadata']['uid']
        for p in cnf.kubectl.json('get', 'pods', '-n', cnf.namespace)['items']
    }
    cnf.lcm_op('HEAL', 'heal', cnf.inst_id)
    after = vnfcs_of(cnf.instance())
    assert set(after) == set(before)
    live = cnf.kubectl.json('get', 'pods', '-n', cnf.namespace)['items']
    assert not {p['metadata']['uid'] for p in live} & uids
    return set(after)


def _change_package(cnf: Cnf, vnfc_ids: set[str]) -> None:
    """The Deployment rolls to the v2 image; VNFC ids are kept."""
    change = {
        'vnfdId': V2_VNFD_ID,
        'additionalParams': {
            'upgrade_type': 'RollingUpdate',
            'lcm-kubernetes-def-files': DEF_FILES,
        },
    }
    cnf.lcm_op(
        'CHANGE_VNFPKG',
        'change-vnfpkg',
        cnf.inst_id,
        write_json(cnf.tmp_path, 'change.json', change),
    )
    shown = cnf.client.lcm_json('show', cnf.inst_id)
    assert shown['VNFD ID'] == V2_VNFD_ID
    assert shown['VNF Software Version'] == '2.0'
    dep = cnf.kubectl.json('get', 'deployment', 'vdu1', '-n', cnf.namespace)
    assert dep['spec']['template']['spec']['containers'][0]['image'] == (
        'nginx:1.27'
    )
    assert set(vnfcs_of(shown)) == vnfc_ids
    assert sorted(pods_of(shown)) == sorted(
        cnf.kubectl.live_pods(cnf.namespace, cnf.inst_id)
    )


def _terminate_and_delete(cnf: Cnf) -> None:
    cnf.lcm_op('TERMINATE', 'terminate', cnf.inst_id)
    assert cnf.kubectl.objects(cnf.namespace, cnf.inst_id) == {}
    assert (
        cnf.client.lcm_json('show', cnf.inst_id)['Instantiation State']
        == 'NOT_INSTANTIATED'
    )
    assert 'deleted successfully' in cnf.client.lcm('delete', cnf.inst_id)
    with pytest.raises(ClientError):
        cnf.client.lcm_json('show', cnf.inst_id)


def test_cnf_lifecycle_with_the_real_client(
    cnf_client,
    cnf_api,
    cnf_services,
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
    assert vim['type'] == 'kubernetes'
    assert vim['auth_cred']['bearer_token'] == '***'
    cnf = Cnf(cnf_client, cnf_api, kubectl, namespace, tmp_path)

    _instantiate(cnf, vim['id'])
    _scale_out_and_in(cnf)
    _heal_one_vnfc(cnf)
    vnfc_ids = _heal_whole_vnf(cnf)
    _change_package(cnf, vnfc_ids)
    _terminate_and_delete(cnf)

    # The bearer token never showed: client output, API responses, logs.
    token = local_k8s.admin_token
    assert token not in cnf_client.printed()
    assert token not in cnf_api.ok('GET', '/vnf_lcm_op_occs', 200).text
    assert token not in cnf_services.log_tails(lines=100000)
    cnf_client.run('vim', 'delete', name)
