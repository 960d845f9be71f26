"""vnfm-demo: a VNF's whole lifecycle against vnfm-all, driven by the real
``openstack`` client, every step checked.

It starts ``vnfm-all`` (API + conductor, SQLite, in-process bus) on a free
port with a throw-away state directory, onboards the two sample packages,
creates, instantiates (noop VIM), scales to a level, stops and starts
(operate), modifies (name, metadata and a new VNFD), terminates and deletes
a VNF instance, and shows what the sample hook script recorded. Each
command is printed with its output; the exit status is 0 only if every step
had the expected outcome.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

from vnfm.csar import build
from vnfm_testbed.demo.runner import V2
from vnfm_testbed.demo.runner import Demo
from vnfm_testbed.demo.runner import StepFailed
from vnfm_testbed.demo.runner import VnfmAll
from vnfm_testbed.demo.runner import free_port
from vnfm_testbed.demo.runner import table_field

# The source tree's samples, else those an installed vnfm puts in
# <prefix>/share/vnfm/samples (setup.cfg data_files).
_SAMPLES = next(
    (
        d
        for d in (
            Path(__file__).resolve().parents[2] / 'samples' / 'packages',
            Path(sys.prefix) / 'share' / 'vnfm' / 'samples',
        )
        if d.is_dir()
    ),
    Path(sys.prefix) / 'share' / 'vnfm' / 'samples',
)
# noop_vnf's instantiation_level_2 puts vdu1_aspect at its level 3.
_LEVEL_REQUEST = {'instantiationLevelId': 'instantiation_level_2'}
_LEVEL = 3
_EXPECTED_HOOKS = [
    'instantiate_start',
    'instantiate_end',
    'modify_information_start',
    'modify_information_end',
    'terminate_start',
    'terminate_end',
]


def _create(demo: Demo, vnfd_id: str) -> str:
    out = demo.cli(
        'vnflcm',
        'create',
        vnfd_id,
        '--name',
        'demo-vnf',
        '--description',
        'created by vnfm-demo',
        *V2,
    )
    demo.expect(out, 'Instantiation State', 'NOT_INSTANTIATED')
    return table_field(out, 'ID')


def _instantiate(demo: Demo, inst_id: str) -> None:
    body = demo.write_json(
        'instantiate.json',
        {
            'flavourId': 'simple',
            # No vimId: the noop VIM needs no registered VIM or credentials.
            'vimConnectionInfo': {'vim1': {'vimType': 'VNFM.NOOP.V_1'}},
        },
    )
    demo.run_op(
        inst_id, 'INSTANTIATE', 'vnflcm', 'instantiate', inst_id, body, *V2
    )
    out = demo.cli('vnflcm', 'show', inst_id, *V2)
    demo.expect(out, 'Instantiation State', 'INSTANTIATED')


def _info(demo: Demo, inst_id: str) -> dict:
    return demo.server.get(f'/vnflcm/v2/vnf_instances/{inst_id}')[
        'instantiatedVnfInfo'
    ]


def _scale_to_level(demo: Demo, inst_id: str) -> None:
    demo.run_http_op(
        inst_id, 'SCALE_TO_LEVEL', 'scale_to_level', _LEVEL_REQUEST
    )
    status = _info(demo, inst_id).get('scaleStatus')
    if status != [{'aspectId': 'vdu1_aspect', 'scaleLevel': _LEVEL}]:
        raise StepFailed(
            f'scaleStatus is {status}, expected vdu1_aspect at level {_LEVEL}'
        )
    print(f'--> ok: scaleStatus {json.dumps(status)}')


def _operate(demo: Demo, inst_id: str) -> None:
    for state in ('STOPPED', 'STARTED'):
        demo.run_http_op(
            inst_id, 'OPERATE', 'operate', {'changeStateTo': state}
        )
        got = _info(demo, inst_id).get('vnfState')
        if got != state:
            raise StepFailed(f'vnfState is {got}, expected {state}')
        print(f'--> ok: vnfState is {state}')


def _modify(demo: Demo, inst_id: str, vnfd_v2: str) -> None:
    metadata = {'owner': 'vnfm-demo', 'tier': 'gold'}
    body = demo.write_json(
        'update.json',
        {
            'vnfInstanceName': 'demo-vnf-renamed',
            'metadata': metadata,
            'vnfdId': vnfd_v2,
        },
    )
    demo.run_op(
        inst_id, 'MODIFY_INFO', 'vnflcm', 'update', inst_id, '--I', body, *V2
    )
    out = demo.cli('vnflcm', 'show', inst_id, *V2)
    demo.expect(out, 'VNF Instance Name', 'demo-vnf-renamed')
    demo.expect(out, 'VNFD ID', vnfd_v2)
    demo.expect(out, 'VNF Software Version', '2.0')
    # Older clients' show tables have no metadata row: read it from the API.
    got = demo.server.get(f'/vnflcm/v2/vnf_instances/{inst_id}').get(
        'metadata'
    )
    print(f'GET /vnflcm/v2/vnf_instances/{inst_id} -> metadata {got}')
    if not isinstance(got, dict) or any(
        got.get(k) != v for k, v in metadata.items()
    ):
        raise StepFailed(f'metadata is {got}, expected {metadata}')
    print('--> ok: metadata updated')


def _terminate_delete(demo: Demo, inst_id: str) -> None:
    demo.run_op(inst_id, 'TERMINATE', 'vnflcm', 'terminate', inst_id, *V2)
    out = demo.cli('vnflcm', 'show', inst_id, *V2)
    demo.expect(out, 'Instantiation State', 'NOT_INSTANTIATED')
    demo.cli('vnflcm', 'delete', inst_id, *V2)
    out = demo.cli('vnflcm', 'list', *V2)
    if inst_id in out:
        raise StepFailed(f'{inst_id} is still listed')
    print(f'--> ok: {inst_id} is gone')


def _hooks(demo: Demo, inst_id: str) -> None:
    path = demo.server.hook_record
    print(f'$ cat {path}')
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise StepFailed(f'no hook record: {exc}') from exc
    calls = [json.loads(line) for line in lines if line.strip()]
    for call in calls:
        print(
            f'{call["hook"]:<26} instance {call["vnf_instance_id"]}  '
            f'request {json.dumps(call["request"], sort_keys=True)}'
        )
    hooks = [c['hook'] for c in calls if c['vnf_instance_id'] == inst_id]
    if hooks != _EXPECTED_HOOKS:
        raise StepFailed(f'hooks ran {hooks}, expected {_EXPECTED_HOOKS}')
    print('--> ok: every hook ran once, in order')


def scenario(demo: Demo, csars: list[Path]) -> None:
    """The lifecycle, step by step; raises StepFailed at the first failure."""
    _, vnfd_v1 = demo.step(
        'Onboard the sample package noop_vnf', demo.onboard, csars[0]
    )
    _, vnfd_v2 = demo.step(
        'Onboard noop_vnf_v2 (the package modify moves to)',
        demo.onboard,
        csars[1],
    )
    inst_id = demo.step('Create a VNF instance', _create, demo, vnfd_v1)
    demo.step(
        'Instantiate it on the noop VIM (VNFM.NOOP.V_1)',
        _instantiate,
        demo,
        inst_id,
    )
    demo.step(
        'Scale it to instantiation_level_2 (HTTP)',
        _scale_to_level,
        demo,
        inst_id,
    )
    demo.step('Stop and start it (operate, HTTP)', _operate, demo, inst_id)
    demo.step(
        'Modify its name, metadata and VNFD (to noop_vnf_v2)',
        _modify,
        demo,
        inst_id,
        vnfd_v2,
    )
    demo.step('Terminate and delete it', _terminate_delete, demo, inst_id)
    demo.step('What the hook script recorded', _hooks, demo, inst_id)


def _build_packages(
    state_dir: Path, samples: Path
) -> tuple[list[Path], list[str]]:
    """CSARs of the two samples and the SHA-256 of their hook scripts."""
    csars, digests = [], set()
    for name in ('noop_vnf', 'noop_vnf_v2'):
        src = samples / name
        out = state_dir / f'{name}.zip'
        out.write_bytes(build.build_csar(str(src)))
        csars.append(out)
        for script in sorted((src / 'Scripts').glob('*')):
            digests.add(hashlib.sha256(script.read_bytes()).hexdigest())
    return csars, sorted(digests)


def _summary(demo: Demo, total: float) -> bool:
    print('\n=== Summary')
    for title, ok, seconds, why in demo.results:
        print(
            f'{"ok    " if ok else "FAILED"} {seconds:5.1f}s  {title}'
            + (f' ({why})' if why else '')
        )
    ok = bool(demo.results) and all(r[1] for r in demo.results)
    print(f'{"All steps passed" if ok else "The demo FAILED"} in {total:.1f}s')
    return ok


def infra_drivers(vim: str) -> str:
    """vnfm-all's enabled_infra_drivers for the demo on ``vim``."""
    if vim == 'openstack':  # the cluster VNF's VIM is a Kubernetes one
        return 'noop,openstack,kubernetes'
    return 'noop' if vim == 'noop' else f'noop,{vim}'


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog='vnfm-demo', description=__doc__.split('\n')[0]
    )
    parser.add_argument(
        '--state-dir',
        type=Path,
        help='State directory (default: a temporary one, '
        'removed at the end unless --keep-running)',
    )
    parser.add_argument(
        '--port', type=int, default=0, help='API port (default: a free one)'
    )
    parser.add_argument(
        '--samples',
        type=Path,
        default=_SAMPLES,
        help='Directory holding noop_vnf and noop_vnf_v2',
    )
    parser.add_argument(
        '--vim',
        choices=('kubernetes', 'openstack', 'noop'),
        default='kubernetes',
        help='kubernetes: a CNF on a local Kubernetes 1.20 '
        'control plane (simulated kubelet); openstack: VMs through Heat '
        'on the local OpenStack (real Keystone and Heat); noop: a VNF '
        'on the noop VIM, with hook scripts',
    )
    parser.add_argument(
        '--keep-running',
        action='store_true',
        help='Leave vnfm-all running at the end',
    )
    parser.add_argument(
        '--exec-client',
        action='store_true',
        help='Run each client command as a separate '
        '`openstack` process (slower; by default the '
        'client runs in this process)',
    )
    return parser.parse_args(argv)


def _keep_running_help(server: VnfmAll) -> None:
    assert server.proc is not None, 'called while vnfm-all runs'
    print(
        f'\nvnfm-all keeps running (pid {server.proc.pid}), state in '
        f'{server.state_dir}, log {server.log_path}.\nUse it with:\n'
        f'  export OS_AUTH_TYPE=none OS_ENDPOINT={server.endpoint}\n'
        '  openstack vnf package list\n'
        '  openstack vnflcm list --os-tacker-api-version 2\n'
        f'Stop it with: kill {server.proc.pid}'
    )


def main(argv: list[str] | None = None) -> int:
    """Entry point of vnfm-demo."""
    args = _parse_args(argv)
    temporary = args.state_dir is None
    state_dir = Path(args.state_dir or tempfile.mkdtemp(prefix='vnfm-demo-'))
    state_dir.mkdir(parents=True, exist_ok=True)
    csars, digests = _build_packages(state_dir, args.samples)
    on_k8s = args.vim == 'kubernetes'
    server = VnfmAll(
        state_dir,
        args.port or free_port(),
        digests,
        infra_drivers(args.vim),
        # The local Kubernetes API server, and the local cloud's Keystone
        # and Heat, listen on loopback, which the outbound policy denies
        # VIM endpoints by default.
        '[outbound]\nvim_allowed_networks = 127.0.0.0/8\n'
        if args.vim != 'noop'
        else '',
    )
    demo = Demo(server, state_dir, args.exec_client)
    started = time.monotonic()
    k8s = cloud = None
    print(f'Starting vnfm-all on {server.endpoint} (state {state_dir})')
    print(f'$ export OS_AUTH_TYPE=none OS_ENDPOINT={server.endpoint}')
    try:
        if on_k8s:
            from vnfm_testbed.demo import cnf as demo_cnf  # noqa: PLC0415 - k8s only
            from vnfm_testbed.demo import cnf_flavour as demo_cnf_flavour  # noqa: PLC0415 - k8s only
            from vnfm_testbed.demo import cnf_update as demo_cnf_update  # noqa: PLC0415 - k8s only

            k8s = demo.step(
                'Start a local Kubernetes 1.20 control plane '
                '(simulated kubelet)',
                demo_cnf.start_cluster,
                state_dir,
                args.keep_running,
            )
        if args.vim == 'openstack':
            from vnfm_testbed.demo import vm as demo_vm  # noqa: PLC0415 - openstack only

            cloud = demo.step(
                'Start the local OpenStack (Keystone, Heat, namespace VMs)',
                demo_vm.start_cloud,
                state_dir,
                args.keep_running,
            )
        demo.step(
            'Start vnfm-all (API + conductor, SQLite, in-process bus)',
            server.start,
        )
        if cloud is not None:
            from vnfm_testbed.demo import cluster as demo_cluster  # noqa: PLC0415 - openstack only

            os_vim = demo_vm.scenario(
                demo, cloud, demo_vm.build_package(state_dir, args.samples)
            )
            mgmt = cloud.catalogue()['networks']['mgmt-net']
            demo_cluster.scenario(
                demo,
                os_vim,
                demo_cluster.build_packages(state_dir, args.samples),
                mgmt['subnets'][0]['cidr'],
            )
        elif k8s is not None:
            cnf_csars = demo_cnf.build_packages(state_dir, args.samples)
            vim_id = demo_cnf.scenario(demo, k8s, cnf_csars[:2])
            demo_cnf_update.scenario(demo, k8s, cnf_csars[2:4], vim_id)
            demo_cnf_flavour.scenario(demo, k8s, cnf_csars[4], vim_id)
        else:
            scenario(demo, csars)
    except StepFailed:
        print(
            f'\n--- vnfm-all log ({server.log_path}), last lines:\n'
            + server.log_tail()
        )
    except KeyboardInterrupt:
        print('\ninterrupted')
    ok = _summary(demo, time.monotonic() - started)
    if args.keep_running and server.proc and server.proc.poll() is None:
        _keep_running_help(server)
        if k8s is not None:
            demo_cnf.keep_running_help(k8s)
        if cloud is not None:
            demo_vm.keep_running_help(cloud)
        return 0 if ok else 1
    status = server.stop()
    if k8s is not None:
        k8s.stop()
    if cloud is not None:
        cloud.stop()
    if status not in (0, None, -signal.SIGTERM):
        print(f'vnfm-all exited with status {status} on SIGTERM')
        ok = False
    if temporary and ok:
        shutil.rmtree(state_dir, ignore_errors=True)
    elif not ok:
        print(f'State and logs kept in {state_dir}')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
