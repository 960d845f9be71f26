"""vnfm-demo on Kubernetes: a CNF's lifecycle on the local control plane
(``vnfm-demo --vim kubernetes``, the default), through the real client.

The cluster is registered with ``openstack vim register`` as the default
Kubernetes VIM; the sample CNF (cnf_simple) is instantiated, scaled out,
healed, scaled to a level and to an instantiation level, stopped and
started (operate; these two have no client command: HTTP, shown as curl),
modified, moved to cnf_simple_v2 (new image) and terminated, and after
each step kubectl shows the cluster side and the step checks that the
instance's vnfcResourceInfo names exactly the live Pods.
"""

from __future__ import annotations

import json
from pathlib import Path

from vnfm.csar import build
from vnfm_testbed.demo import k8s as demo_k8s
from vnfm_testbed.demo.runner import V2
from vnfm_testbed.demo.runner import Demo
from vnfm_testbed.demo.runner import StepFailed
from vnfm_testbed.demo.runner import table_field

NAMESPACE = 'vnfm-demo'
# The lifecycle's two packages, seed 003's (demo_cnf_update), then the
# two-flavour one (demo_cnf_flavour).
PACKAGES = (
    'cnf_simple',
    'cnf_simple_v2',
    'cnf_update_v1',
    'cnf_update_v2',
    'cnf_flavours',
)
LABEL = 'vnfm.io/vnf-instance-id'
# Scale VNF to Level after the scale out (vdu1_aspect at level 1, 3 Pods):
# (step title, ScaleVnfToLevelRequest, vdu1_aspect's level, Pods then).
SCALE_TO_LEVEL = (
    (
        'Scale to level: vdu1_aspect to level 2 (scaleInfo, HTTP)',
        {'scaleInfo': [{'aspectId': 'vdu1_aspect', 'scaleLevel': 2}]},
        2,
        4,
    ),
    (
        'Scale to level: instantiation_level_1 (HTTP)',
        {'instantiationLevelId': 'instantiation_level_1'},
        0,
        2,
    ),
)


def start_cluster(
    state_dir: Path, keep_running: bool = False
) -> demo_k8s.DemoCluster:
    """Start the local control plane (built once if not cached)."""
    if not demo_k8s.binaries_cached():
        print(
            'The Kubernetes 1.20 binaries are not cached: building them '
            'once with tools/build-k8s.sh (several minutes; use --vim noop '
            'to skip Kubernetes).',
            flush=True,
        )
    why = demo_k8s.unavailable()
    if why:
        raise StepFailed(
            f'no local Kubernetes here ({why}); run the demo with --vim noop'
        )
    k8s = demo_k8s.DemoCluster(
        state_dir / 'k8s', die_with_parent=not keep_running
    )
    try:
        k8s.start()
    except demo_k8s.ClusterError as exc:
        raise StepFailed(str(exc)) from exc
    print(
        f'--> ok: API server {k8s.endpoint}; kubectl: '
        f'{" ".join(k8s.kubectl_argv())}',
        flush=True,
    )
    return k8s


def keep_running_help(k8s: demo_k8s.DemoCluster) -> None:
    """How to use and stop the cluster left running."""
    kubectl = ' '.join(k8s.kubectl_argv())
    print(
        f'The Kubernetes cluster keeps running: {kubectl} get pods -A\n'
        'Stop it with: vnfm-localk8s down --state-dir '
        f'{k8s.cluster.state_dir}'
    )


def build_packages(state_dir: Path, samples: Path) -> list[Path]:
    """CSARs of the CNF samples (PACKAGES)."""
    out = []
    for name in PACKAGES:
        path = state_dir / f'{name}.zip'
        path.write_bytes(build.build_csar(str(samples / name)))
        out.append(path)
    return out


def kubectl(demo: Demo, k8s: demo_k8s.DemoCluster, *args: str) -> str:
    print('$ kubectl ' + ' '.join(args), flush=True)
    try:
        out = k8s.kubectl(*args)
    except RuntimeError as exc:
        raise StepFailed(str(exc)) from exc
    print(out.rstrip(), flush=True)
    return out


def live_pods(
    k8s: demo_k8s.DemoCluster, inst_id: str, namespace: str = NAMESPACE
) -> list[dict]:
    """The instance's Pods not being deleted, as kubectl gives them."""
    items = json.loads(
        k8s.kubectl(
            'get',
            'pods',
            '-n',
            namespace,
            '-l',
            f'{LABEL}={inst_id}',
            '-o',
            'json',
        )
    )['items']
    return [p for p in items if not p['metadata'].get('deletionTimestamp')]


def _vnfcs(demo: Demo, inst_id: str, vdu: str | None = None) -> dict[str, str]:
    """VNFC id -> Pod name (of one VDU), from GET
    /vnflcm/v2/vnf_instances/{id}."""
    info = (
        demo.server.get(f'/vnflcm/v2/vnf_instances/{inst_id}').get(
            'instantiatedVnfInfo'
        )
        or {}
    )
    return {
        e['id']: e['computeResource']['resourceId']
        for e in info.get('vnfcResourceInfo') or []
        if vdu in (None, e['vduId'])
    }


def check_pods(
    demo: Demo,
    k8s: demo_k8s.DemoCluster,
    inst_id: str,
    count: int,
    namespace: str = NAMESPACE,
) -> dict[str, str]:
    """kubectl's view, and vnfcResourceInfo == the ``count`` live Pods."""
    kubectl(
        demo,
        k8s,
        'get',
        'deployments,pods',
        '-n',
        namespace,
        '-l',
        f'{LABEL}={inst_id}',
    )
    vnfcs = _vnfcs(demo, inst_id)
    live = sorted(
        p['metadata']['name'] for p in live_pods(k8s, inst_id, namespace)
    )
    if sorted(vnfcs.values()) != live or len(live) != count:
        raise StepFailed(
            f'vnfcResourceInfo names {sorted(vnfcs.values())}, '
            f'the cluster has {live} (expected {count} Pods)'
        )
    print(f'--> ok: vnfcResourceInfo names the {count} live Pods', flush=True)
    return vnfcs


def _register(demo: Demo, k8s: demo_k8s.DemoCluster) -> str:
    path = k8s.write_vim_yaml(demo.work / 'vim.yaml')
    shown = dict(
        k8s.vim_config(),
        bearer_token='<the admin token>',
        ssl_ca_cert='<the cluster CA, PEM>',
    )
    print(
        f'$ cat {path}   # secrets elided here\n'
        + json.dumps(shown, indent=2),
        flush=True,
    )
    out = demo.cli(
        'vim',
        'register',
        '--config-file',
        str(path),
        '--is-default',
        'demo-k8s',
    )
    if k8s.vim_config()['bearer_token'] in out:
        raise StepFailed('the bearer token was shown')
    print('--> ok: the bearer token is not shown', flush=True)
    return table_field(out, 'id') or table_field(out, 'ID')


def _instantiate(
    demo: Demo, k8s: demo_k8s.DemoCluster, inst_id: str, vim_id: str
) -> None:
    k8s.create_namespace(NAMESPACE)
    request = demo_k8s.cnf_instantiate_request(NAMESPACE, vim_id)
    body = demo.write_json('instantiate.json', request)
    demo.run_op(
        inst_id, 'INSTANTIATE', 'vnflcm', 'instantiate', inst_id, body, *V2
    )
    out = demo.cli('vnflcm', 'show', inst_id, *V2)
    demo.expect(out, 'Instantiation State', 'INSTANTIATED')
    check_pods(demo, k8s, inst_id, 2)


def _scale_out(demo: Demo, k8s: demo_k8s.DemoCluster, inst_id: str) -> None:
    demo.run_op(
        inst_id,
        'SCALE',
        'vnflcm',
        'scale',
        '--type',
        'SCALE_OUT',
        '--aspect-id',
        'vdu1_aspect',
        inst_id,
        *V2,
    )
    check_pods(demo, k8s, inst_id, 3)


def _heal(demo: Demo, k8s: demo_k8s.DemoCluster, inst_id: str) -> None:
    vnfc_id, pod = next(iter(_vnfcs(demo, inst_id, 'VDU1').items()))
    # HealVnfRequest.vnfcInstanceId names vnfcInfo entries (SOL003).
    info = demo.server.get(f'/vnflcm/v2/vnf_instances/{inst_id}')[
        'instantiatedVnfInfo'
    ]
    vnfc_info_id = next(
        v['id'] for v in info['vnfcInfo'] if v['vnfcResourceInfoId'] == vnfc_id
    )
    demo.run_op(
        inst_id,
        'HEAL',
        'vnflcm',
        'heal',
        inst_id,
        '--vnfc-instance',
        vnfc_info_id,
        *V2,
    )
    after = check_pods(demo, k8s, inst_id, 3)
    if after.get(vnfc_id) in (None, pod):
        raise StepFailed(
            f'VNFC {vnfc_id} does not name a new Pod: {after.get(vnfc_id)}'
        )
    print(
        f'--> ok: VNFC {vnfc_id} kept its id, Pod {pod} -> {after[vnfc_id]}',
        flush=True,
    )


def _scale_level(demo: Demo, inst_id: str) -> list[dict]:
    info = demo.server.get(f'/vnflcm/v2/vnf_instances/{inst_id}')[
        'instantiatedVnfInfo'
    ]
    print(f'--> scaleStatus {json.dumps(info.get("scaleStatus"))}', flush=True)
    return info.get('scaleStatus') or []


def _scale_to_level(
    demo: Demo,
    k8s: demo_k8s.DemoCluster,
    inst_id: str,
    body: dict,
    level: int,
    count: int,
) -> None:
    demo.run_http_op(inst_id, 'SCALE_TO_LEVEL', 'scale_to_level', body)
    status = _scale_level(demo, inst_id)
    if status != [{'aspectId': 'vdu1_aspect', 'scaleLevel': level}]:
        raise StepFailed(
            f'scaleStatus is {status}, expected vdu1_aspect at level {level}'
        )
    check_pods(demo, k8s, inst_id, count)


def _operate(
    demo: Demo, k8s: demo_k8s.DemoCluster, inst_id: str, body: dict, count: int
) -> None:
    demo.run_http_op(inst_id, 'OPERATE', 'operate', body)
    state = demo.server.get(f'/vnflcm/v2/vnf_instances/{inst_id}')[
        'instantiatedVnfInfo'
    ].get('vnfState')
    if state != body['changeStateTo']:
        raise StepFailed(
            f'vnfState is {state}, expected {body["changeStateTo"]}'
        )
    print(f'--> ok: vnfState is {state}', flush=True)
    replicas = kubectl(
        demo,
        k8s,
        'get',
        'deployment',
        'vdu1',
        '-n',
        NAMESPACE,
        '-o',
        'jsonpath={.spec.replicas}',
    )
    print(f'--> deployment vdu1 has {replicas.strip()} replicas', flush=True)
    check_pods(demo, k8s, inst_id, count)
    print(
        '--> ok: '
        + (
            'no Pod of the CNF runs'
            if count == 0
            else f'its {count} Pods run again'
        ),
        flush=True,
    )


def _modify(demo: Demo, inst_id: str) -> None:
    body = demo.write_json(
        'modify.json',
        {
            'vnfInstanceName': 'demo-cnf-renamed',
            'metadata': {'owner': 'vnfm-demo'},
        },
    )
    demo.run_op(
        inst_id, 'MODIFY_INFO', 'vnflcm', 'update', inst_id, '--I', body, *V2
    )
    out = demo.cli('vnflcm', 'show', inst_id, *V2)
    demo.expect(out, 'VNF Instance Name', 'demo-cnf-renamed')


def _change_package(
    demo: Demo, k8s: demo_k8s.DemoCluster, inst_id: str, vnfd_v2: str
) -> None:
    body = demo.write_json(
        'change_vnfpkg.json', demo_k8s.cnf_change_vnfpkg_request()
    )
    demo.run_op(
        inst_id, 'CHANGE_VNFPKG', 'vnflcm', 'change-vnfpkg', inst_id, body, *V2
    )
    out = demo.cli('vnflcm', 'show', inst_id, *V2)
    demo.expect(out, 'VNFD ID', vnfd_v2)
    image = kubectl(
        demo,
        k8s,
        'get',
        'deployment',
        'vdu1',
        '-n',
        NAMESPACE,
        '-o',
        'jsonpath={.spec.template.spec.containers[0].image}',
    )
    if image.strip() != 'nginx:1.27':
        raise StepFailed(f'vdu1 runs {image!r}, expected nginx:1.27')
    print('--> ok: vdu1 rolled to nginx:1.27', flush=True)
    check_pods(demo, k8s, inst_id, 2)


def terminate_delete(
    demo: Demo,
    k8s: demo_k8s.DemoCluster,
    inst_id: str,
    namespace: str = NAMESPACE,
) -> None:
    """Terminate, check nothing of the CNF is left, delete."""
    demo.run_op(inst_id, 'TERMINATE', 'vnflcm', 'terminate', inst_id, *V2)
    left = kubectl(
        demo,
        k8s,
        'get',
        'all,configmaps,secrets',
        '-n',
        namespace,
        '-l',
        f'{LABEL}={inst_id}',
        '-o',
        'name',
    )
    if left.strip():
        raise StepFailed(f'objects left: {left.split()}')
    print('--> ok: every object of the CNF is gone', flush=True)
    demo.cli('vnflcm', 'delete', inst_id, *V2)


def scenario(demo: Demo, k8s: demo_k8s.DemoCluster, csars: list[Path]) -> str:
    """The CNF lifecycle, step by step; StepFailed at the first failure.
    The id of the VIM it registers."""
    vim_id = demo.step(
        'Register the cluster as the default Kubernetes VIM',
        _register,
        demo,
        k8s,
    )
    _, vnfd_v1 = demo.step(
        'Onboard the sample CNF cnf_simple', demo.onboard, csars[0]
    )
    _, vnfd_v2 = demo.step(
        'Onboard cnf_simple_v2 (new web image)', demo.onboard, csars[1]
    )
    out = demo.step(
        'Create a VNF instance',
        demo.cli,
        'vnflcm',
        'create',
        vnfd_v1,
        '--name',
        'demo-cnf',
        *V2,
    )
    inst_id = table_field(out, 'ID')
    demo.step(
        f'Instantiate it in namespace {NAMESPACE}',
        _instantiate,
        demo,
        k8s,
        inst_id,
        vim_id,
    )
    demo.step('Scale out vdu1_aspect', _scale_out, demo, k8s, inst_id)
    demo.step('Heal one VNFC', _heal, demo, k8s, inst_id)
    for title, body, level, pods in SCALE_TO_LEVEL:
        demo.step(
            title, _scale_to_level, demo, k8s, inst_id, body, level, pods
        )
    demo.step(
        'Operate: stop it (changeStateTo STOPPED, HTTP)',
        _operate,
        demo,
        k8s,
        inst_id,
        {'changeStateTo': 'STOPPED', 'stopType': 'FORCEFUL'},
        0,
    )
    demo.step(
        'Operate: start it again (changeStateTo STARTED, HTTP)',
        _operate,
        demo,
        k8s,
        inst_id,
        {'changeStateTo': 'STARTED'},
        2,
    )
    demo.step(
        'Modify its name and metadata (vnflcm update)', _modify, demo, inst_id
    )
    demo.step(
        'Change the package to cnf_simple_v2 (rolling update)',
        _change_package,
        demo,
        k8s,
        inst_id,
        vnfd_v2,
    )
    demo.step('Terminate and delete it', terminate_delete, demo, k8s, inst_id)
    return vim_id
