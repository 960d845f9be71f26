"""vnfm-demo on Kubernetes, seed 003: a CNF's containers updated by the
container-update MgmtDriver (``openstack vnflcm update`` with a new
``vnfdId`` and ``metadata.configmap_secret_paths``).

cnf_update_v1 is instantiated in its own namespace; the update to
cnf_update_v2 changes one ConfigMap, one Secret and some images, and the
step checks, by Pod uid, that exactly the Pods using a changed
ConfigMap/Secret or image restarted and the others kept running.
"""

from __future__ import annotations

from pathlib import Path

from vnfm_testbed.demo import cnf as demo_cnf
from vnfm_testbed.demo import k8s as demo_k8s
from vnfm_testbed.demo import seed003
from vnfm_testbed.demo.runner import V2
from vnfm_testbed.demo.runner import Demo
from vnfm_testbed.demo.runner import StepFailed

NAMESPACE = 'vnfm-demo-update'
PACKAGES = ('cnf_update_v1', 'cnf_update_v2')
DEF_FILES = seed003.DEF_FILES
CONFIG_PATHS = seed003.CONFIG_PATHS
RESTARTED = (
    'daemonset-vdu5',
    'env-test',
    'vdu1-update',
    'vdu2-update',
    'volume-test',
)
KEPT = ('deployment2-vdu6', 'env-test2', 'volume-test2')
_COLUMNS = (
    'custom-columns=NAME:.metadata.name,UID:.metadata.uid,'
    'IMAGE:.spec.containers[0].image'
)


def instantiate_request(vim_id: str) -> dict:
    """InstantiateVnfRequest of cnf_update_v1 into NAMESPACE."""
    return demo_k8s.cnf_instantiate_request(
        NAMESPACE, vim_id, def_files=list(DEF_FILES)
    )


def update_request(vnfd_v2: str) -> dict:
    """VnfInfoModificationRequest to cnf_update_v2 (seed 003)."""
    return {
        'vnfdId': vnfd_v2,
        'vnfInstanceName': 'demo-cnf-update-v2',
        'metadata': {'configmap_secret_paths': CONFIG_PATHS},
    }


def restarted_and_kept(
    before: dict[str, set[str]], after: dict[str, set[str]]
) -> tuple[list, list]:
    """Workloads whose Pods all have new uids, and those whose Pods are
    the same; StepFailed unless they are RESTARTED and KEPT."""
    restarted = sorted(
        w for w in before if not before[w] & after.get(w, set())
    )
    kept = sorted(w for w in before if after.get(w) == before[w])
    if (tuple(restarted), tuple(kept)) != (RESTARTED, KEPT):
        raise StepFailed(
            f'restarted {restarted} and kept {kept}; expected '
            f'restarted {list(RESTARTED)}, kept {list(KEPT)}'
        )
    return restarted, kept


def _uids(
    demo: Demo, k8s: demo_k8s.DemoCluster, inst_id: str
) -> dict[str, set[str]]:
    """Shown with kubectl: workload (label app) -> uids of its Pods."""
    demo_cnf.kubectl(
        demo,
        k8s,
        'get',
        'pods',
        '-n',
        NAMESPACE,
        '-l',
        f'{demo_cnf.LABEL}={inst_id}',
        '-o',
        _COLUMNS,
    )
    out: dict[str, set[str]] = {}
    for pod in demo_cnf.live_pods(k8s, inst_id, NAMESPACE):
        meta = pod['metadata']
        out.setdefault(meta['labels']['app'], set()).add(meta['uid'])
    return out


def _instantiate(
    demo: Demo, k8s: demo_k8s.DemoCluster, vnfd_v1: str, vim_id: str
) -> str:
    k8s.create_namespace(NAMESPACE)
    inst_id = demo.create_and_instantiate(
        vnfd_v1, 'demo-cnf-update', instantiate_request(vim_id),
        'instantiate_update_v1.json',
    )  # fmt: skip
    uids = _uids(demo, k8s, inst_id)
    if sorted(uids) != sorted(RESTARTED + KEPT):
        raise StepFailed(f'workloads running: {sorted(uids)}')
    demo_cnf.check_pods(
        demo, k8s, inst_id, sum(map(len, uids.values())), NAMESPACE
    )
    return inst_id


def _update(
    demo: Demo, k8s: demo_k8s.DemoCluster, inst_id: str, vnfd_v2: str
) -> None:
    before = _uids(demo, k8s, inst_id)
    body = demo.write_json('update_v2.json', update_request(vnfd_v2))
    demo.run_op(
        inst_id, 'MODIFY_INFO', 'vnflcm', 'update', inst_id, '--I', body, *V2
    )
    out = demo.cli('vnflcm', 'show', inst_id, *V2)
    demo.expect(out, 'VNFD ID', vnfd_v2)
    demo_cnf.kubectl(
        demo,
        k8s,
        'get',
        'configmap',
        'cm-data',
        '-n',
        NAMESPACE,
        '-o',
        'jsonpath={.data}',
    )
    after = _uids(demo, k8s, inst_id)
    restarted, kept = restarted_and_kept(before, after)
    print(
        '--> ok: only the Pods that use a changed ConfigMap/Secret or '
        f'image restarted: {", ".join(restarted)}; unchanged: '
        f'{", ".join(kept)}',
        flush=True,
    )
    demo_cnf.check_pods(
        demo, k8s, inst_id, sum(map(len, after.values())), NAMESPACE
    )


def scenario(
    demo: Demo, k8s: demo_k8s.DemoCluster, csars: list[Path], vim_id: str
) -> None:
    """Onboard cnf_update_v1 and v2, instantiate v1, update it to v2,
    terminate and delete it."""
    _, vnfd_v1 = demo.step(
        'Onboard cnf_update_v1 (container update MgmtDriver)',
        demo.onboard,
        csars[0],
    )
    _, vnfd_v2 = demo.step(
        'Onboard cnf_update_v2 (new ConfigMap/Secret data and images)',
        demo.onboard,
        csars[1],
    )
    inst_id = demo.step(
        f'Create and instantiate cnf_update_v1 in namespace {NAMESPACE}',
        _instantiate,
        demo,
        k8s,
        vnfd_v1,
        vim_id,
    )
    demo.step(
        'Update its containers to cnf_update_v2 (vnflcm update with '
        'vnfdId and configmap_secret_paths)',
        _update,
        demo,
        k8s,
        inst_id,
        vnfd_v2,
    )
    demo.step(
        'Terminate and delete it',
        demo_cnf.terminate_delete,
        demo,
        k8s,
        inst_id,
        NAMESPACE,
    )
