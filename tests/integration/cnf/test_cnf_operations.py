"""Scale VNF to Level and Operate VNF of a CNF on the local Kubernetes
control plane, through vnfm-api and a vnfm-conductor (the client has no
commands for these: raw HTTP), checked with kubectl."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import V1_VNFD_ID
from .conftest import CnfInstance
from .conftest import inline_vim
from .conftest import instantiate_body
from .conftest import pods_of
from .conftest import vnfcs_of

pytestmark = pytest.mark.timeout(240)


def _replicas(cnf: CnfInstance) -> int:
    return cnf.kubectl.json('get', 'deployment', 'vdu1', '-n', cnf.namespace)[
        'spec'
    ]['replicas']


def _run(
    cnf: CnfInstance, task: str, body: dict, state: str = 'COMPLETED'
) -> dict:
    op_id = cnf.api.start(cnf.inst_id, task, body)
    return cnf.api.wait_op(op_id, state, timeout=90)


def test_scale_to_level_then_stop_and_start(
    cnf_client,
    cnf_api,
    cnf_packages,
    kubectl,
    local_k8s,
    namespace,
    tmp_path: Path,
) -> None:
    cnf = CnfInstance(cnf_client, cnf_api, kubectl, namespace, tmp_path)
    cnf.inst_id = cnf_api.create_instance(V1_VNFD_ID, 'cnf-ops')
    _run(
        cnf, 'instantiate', instantiate_body(namespace, inline_vim(local_k8s))
    )

    vnfcs = _scale_to_level_2_adds_a_vdu1_pod(cnf)
    _scale_beyond_the_maximum_is_refused(cnf_api, cnf)
    _forceful_stop_leaves_no_pod_and_remembers_the_counts(
        cnf_api, cnf, kubectl, namespace
    )
    _start_brings_the_same_vnfcs_back_on_new_pods(cnf, vnfcs)

    _run(
        cnf,
        'operate',
        {
            'changeStateTo': 'STOPPED',
            'stopType': 'GRACEFUL',
            'gracefulStopTimeout': 1,
        },
    )
    assert kubectl.live_pods(namespace, cnf.inst_id) == set()
    _run(cnf, 'terminate', {'terminationType': 'FORCEFUL'})
    assert kubectl.objects(namespace, cnf.inst_id) == {}


def _scale_to_level_2_adds_a_vdu1_pod(cnf: CnfInstance) -> dict[str, str]:
    """The VNFCs after scaling to instantiation_level_2."""
    op = _run(
        cnf,
        'scale_to_level',
        {'instantiationLevelId': 'instantiation_level_2'},
    )
    inst = cnf.instance()
    assert inst['instantiatedVnfInfo']['scaleStatus'] == [
        {'aspectId': 'vdu1_aspect', 'scaleLevel': 1}
    ]
    assert len(pods_of(inst, 'VDU1')) == 2 and _replicas(cnf) == 2
    assert [
        c['changeType'] for c in op['resourceChanges']['affectedVnfcs']
    ] == ['ADDED']
    return vnfcs_of(inst)


def _scale_beyond_the_maximum_is_refused(cnf_api, cnf: CnfInstance) -> None:
    # Beyond the aspect's maximum: refused before anything is recorded.
    r = cnf_api.lcm(
        'POST',
        f'/vnf_instances/{cnf.inst_id}/scale_to_level',
        json={'scaleInfo': [{'aspectId': 'vdu1_aspect', 'scaleLevel': 9}]},
    )
    assert r.status_code == 400 and 'outside 0..3' in r.json()['detail']


def _forceful_stop_leaves_no_pod_and_remembers_the_counts(
    cnf_api, cnf: CnfInstance, kubectl, namespace: str
) -> None:
    _run(cnf, 'operate', {'changeStateTo': 'STOPPED', 'stopType': 'FORCEFUL'})
    inst = cnf.instance()  # checks: no live Pod, none listed
    info = inst['instantiatedVnfInfo']
    assert info['vnfState'] == 'STOPPED' and pods_of(inst) == []
    assert info['metadata']['stoppedReplicas'] == {'VDU1': 2, 'VDU2': 1}
    assert _replicas(cnf) == 0
    assert kubectl.live_pods(namespace, cnf.inst_id) == set()
    r = cnf_api.lcm(
        'POST',
        f'/vnf_instances/{cnf.inst_id}/operate',
        json={'changeStateTo': 'STOPPED'},
    )
    assert r.status_code == 409


def _start_brings_the_same_vnfcs_back_on_new_pods(
    cnf: CnfInstance, vnfcs: dict[str, str]
) -> None:
    _run(cnf, 'operate', {'changeStateTo': 'STARTED'})
    inst = cnf.instance()
    info = inst['instantiatedVnfInfo']
    assert info['vnfState'] == 'STARTED'
    assert 'stoppedReplicas' not in info['metadata']
    assert _replicas(cnf) == 2 and len(pods_of(inst, 'VDU1')) == 2
    assert 'vdu2' in pods_of(inst, 'VDU2')
    # The VNFCs are the same ones, on new Pods.
    assert set(vnfcs_of(inst)) == set(vnfcs)
