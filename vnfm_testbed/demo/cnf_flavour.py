"""vnfm-demo on Kubernetes: Change VNF Flavour (over HTTP, printed as
curl: the client has no command for it).

cnf_flavours is instantiated in its own namespace with flavour ``small``
(Deployment vdu1, bare Pod vdu2), then moved to flavour ``large``
(Deployment vdu1 with two replicas, Deployment vdu3): the step checks that
Pod vdu2 is gone, vdu3 runs, and vnfcResourceInfo names the live Pods.
"""

from __future__ import annotations

from pathlib import Path

from vnfm_testbed.demo import cnf as demo_cnf
from vnfm_testbed.demo import k8s as demo_k8s
from vnfm_testbed.demo.runner import Demo
from vnfm_testbed.demo.runner import StepFailed

NAMESPACE = 'vnfm-demo-flavour'
PACKAGE = 'cnf_flavours'
_FILES = 'Files/kubernetes/'
SMALL = [f'{_FILES}{n}.yaml' for n in ('configmap', 'deployment', 'pod')]
LARGE = [f'{_FILES}{n}.yaml' for n in ('configmap', 'deployment', 'cache')]
# VDU -> instance count of each flavour at its default level.
SMALL_VNFCS = {'VDU1': 1, 'VDU2': 1}
LARGE_VNFCS = {'VDU1': 2, 'VDU3': 1}


def instantiate_request(vim_id: str) -> dict:
    """InstantiateVnfRequest of cnf_flavours, flavour small, into
    NAMESPACE."""
    return demo_k8s.cnf_instantiate_request(
        NAMESPACE, vim_id, flavour_id='small', def_files=SMALL
    )


def change_flavour_request() -> dict:
    """ChangeVnfFlavourRequest to flavour large with its manifests."""
    return {
        'newFlavourId': 'large',
        'additionalParams': {'lcm-kubernetes-def-files': LARGE},
    }


def _vnfcs_per_vdu(demo: Demo, inst_id: str, flavour: str) -> None:
    """StepFailed unless the instance has ``flavour`` and its VNFCs."""
    info = demo.server.get(f'/vnflcm/v2/vnf_instances/{inst_id}')[
        'instantiatedVnfInfo'
    ]
    counts: dict[str, int] = {}
    for vnfc in info.get('vnfcResourceInfo') or []:
        counts[vnfc['vduId']] = counts.get(vnfc['vduId'], 0) + 1
    wanted = SMALL_VNFCS if flavour == 'small' else LARGE_VNFCS
    if (info.get('flavourId'), counts) != (flavour, wanted):
        raise StepFailed(
            f'flavourId {info.get("flavourId")} with VNFCs {counts}; '
            f'expected {flavour} with {wanted}'
        )
    print(f'--> ok: flavour {flavour}, VNFCs per VDU {counts}', flush=True)


def _instantiate(
    demo: Demo, k8s: demo_k8s.DemoCluster, vnfd_id: str, vim_id: str
) -> str:
    k8s.create_namespace(NAMESPACE)
    inst_id = demo.create_and_instantiate(
        vnfd_id, 'demo-flavour', instantiate_request(vim_id),
        'instantiate_flavour.json',
    )  # fmt: skip
    _vnfcs_per_vdu(demo, inst_id, 'small')
    demo_cnf.check_pods(demo, k8s, inst_id, 2, NAMESPACE)
    return inst_id


def _change_flavour(
    demo: Demo, k8s: demo_k8s.DemoCluster, inst_id: str
) -> None:
    demo.run_http_op(
        inst_id, 'CHANGE_FLAVOUR', 'change_flavour', change_flavour_request()
    )
    _vnfcs_per_vdu(demo, inst_id, 'large')
    demo_cnf.check_pods(demo, k8s, inst_id, 3, NAMESPACE)
    pods = [
        p['metadata']['name']
        for p in demo_cnf.live_pods(k8s, inst_id, NAMESPACE)
    ]
    if 'vdu2' in pods or not any(p.startswith('vdu3-') for p in pods):
        raise StepFailed(f'Pods {sorted(pods)}: expected vdu3, no vdu2')
    print('--> ok: Pod vdu2 (small only) is gone, vdu3 runs', flush=True)


def scenario(
    demo: Demo, k8s: demo_k8s.DemoCluster, csar: Path, vim_id: str
) -> None:
    """Onboard cnf_flavours, instantiate it small, change it to large,
    terminate and delete it."""
    _, vnfd_id = demo.step(
        'Onboard cnf_flavours (two deployment flavours)', demo.onboard, csar
    )
    inst_id = demo.step(
        f'Create and instantiate it, flavour small, in namespace {NAMESPACE}',
        _instantiate,
        demo,
        k8s,
        vnfd_id,
        vim_id,
    )
    demo.step(
        'Change its flavour to large (HTTP)',
        _change_flavour,
        demo,
        k8s,
        inst_id,
    )
    demo.step(
        'Terminate and delete it',
        demo_cnf.terminate_delete,
        demo,
        k8s,
        inst_id,
        NAMESPACE,
    )
