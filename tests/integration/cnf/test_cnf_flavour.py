"""Change VNF Flavour of a CNF on the local Kubernetes control plane,
through vnfm-api and a vnfm-conductor (raw HTTP: the client has no command
for it), checked with kubectl: the target flavour's objects replace the
source's, and after a failing change_flavour_end hook a rollback brings
the source flavour's objects back."""

from __future__ import annotations

from pathlib import Path

import pytest

from vnfm.csar.build import build_csar

from .conftest import SAMPLES
from .conftest import CnfInstance
from .conftest import inline_vim
from .conftest import pods_of

pytestmark = pytest.mark.timeout(240)
_K = 'Files/kubernetes/'
SMALL = [f'{_K}configmap.yaml', f'{_K}deployment.yaml', f'{_K}pod.yaml']
LARGE = [f'{_K}configmap.yaml', f'{_K}deployment.yaml', f'{_K}cache.yaml']


def _body(flavour: str, files: list[str], **params: object) -> dict:
    return {
        'newFlavourId': flavour,
        'additionalParams': {'lcm-kubernetes-def-files': files, **params},
    }


def _workloads(cnf: CnfInstance) -> dict[str, list]:
    objects = cnf.kubectl.objects(cnf.namespace, cnf.inst_id)
    pods = sorted(cnf.kubectl.live_pods(cnf.namespace, cnf.inst_id))
    return {
        'Deployment': objects.get('Deployment', []),
        'bare Pods': [p for p in pods if p == 'vdu2'],
    }


def test_change_to_large_then_failed_change_back_rolls_back(
    cnf_client, cnf_api, kubectl, local_k8s, namespace, tmp_path: Path
) -> None:
    cnf = _instantiate_small(
        cnf_client, cnf_api, kubectl, local_k8s, namespace, tmp_path
    )
    assert _workloads(cnf) == {'Deployment': ['vdu1'], 'bare Pods': ['vdu2']}

    op_id = cnf_api.start(cnf.inst_id, 'change_flavour', _body('large', LARGE))
    cnf_api.wait_op(op_id, 'COMPLETED', 90)
    inst = cnf.instance()  # vnfcResourceInfo == the live Pods
    large = _workloads(cnf)
    assert large == {'Deployment': ['vdu1', 'vdu3'], 'bare Pods': []}
    assert inst['instantiatedVnfInfo']['flavourId'] == 'large'
    assert len(pods_of(inst, 'VDU1')) == 2 and len(pods_of(inst, 'VDU3')) == 1

    op_id = cnf_api.start(
        cnf.inst_id,
        'change_flavour',
        _body('small', SMALL, fail_hook='change_flavour_end'),
    )
    failed = cnf_api.wait_op(op_id, 'FAILED_TEMP', 90)
    assert 'change_flavour_end' in failed['error']['detail']
    # The small flavour's objects are there now: the hook ran after them.
    assert _workloads(cnf) == {'Deployment': ['vdu1'], 'bare Pods': ['vdu2']}

    r = cnf_api.lcm('POST', f'/vnf_lcm_op_occs/{op_id}/rollback')
    assert r.status_code == 202, r.text
    cnf_api.wait_op(op_id, 'ROLLED_BACK', 90)
    assert _workloads(cnf) == large
    inst = cnf.instance()
    assert inst['instantiatedVnfInfo']['flavourId'] == 'large'
    assert len(pods_of(inst, 'VDU1')) == 2

    _terminate(cnf_api, cnf)
    assert kubectl.objects(namespace, cnf.inst_id) == {}


def _instantiate_small(
    cnf_client, cnf_api, kubectl, local_k8s, namespace: str, tmp_path: Path
) -> CnfInstance:
    """The cnf_flavours sample onboarded and instantiated with flavour
    small in ``namespace``."""
    zip_path = tmp_path / 'cnf_flavours.zip'
    zip_path.write_bytes(build_csar(str(SAMPLES / 'cnf_flavours')))
    pkg = cnf_api.onboard(zip_path)
    cnf = CnfInstance(cnf_client, cnf_api, kubectl, namespace, tmp_path)
    cnf.inst_id = cnf_api.create_instance(pkg['vnfdId'], 'cnf-flavour')
    body = {
        'flavourId': 'small',
        'vimConnectionInfo': {'vim1': inline_vim(local_k8s)},
        'additionalParams': {
            'lcm-kubernetes-def-files': SMALL,
            'namespace': namespace,
        },
    }
    cnf_api.wait_op(
        cnf_api.start(cnf.inst_id, 'instantiate', body), 'COMPLETED', 90
    )
    return cnf


def _terminate(cnf_api, cnf: CnfInstance) -> None:
    cnf_api.wait_op(
        cnf_api.start(
            cnf.inst_id, 'terminate', {'terminationType': 'FORCEFUL'}
        ),
        'COMPLETED',
        90,
    )
