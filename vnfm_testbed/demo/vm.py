"""vnfm-demo on OpenStack: a VM-based VNF's lifecycle on the local cloud
(``vnfm-demo --vim openstack``), through the real client.

The local cloud (real Keystone and Heat, VMs in network namespaces) is
registered with ``openstack vim register`` as its non-admin ``demo`` user;
the vm_simple sample (Tacker v2 package layout) is instantiated, its Heat
stack shown with ``openstack stack list`` / ``stack resource list`` as that
user, every VM logged into over SSH at its CP address, scaled out and in,
terminated (the stack is gone) and deleted.
"""

from __future__ import annotations

import json
import os
import subprocess  # nosec B404 - the openstack client as the cloud's user
import sys
from pathlib import Path
from typing import Any

from vnfm.clients import outbound
from vnfm.clients import ssh
from vnfm.csar import build
from vnfm_testbed.demo.runner import V2
from vnfm_testbed.demo.runner import Demo
from vnfm_testbed.demo.runner import StepFailed
from vnfm_testbed.demo.runner import table_field
from vnfm_testbed.openstack import build as osbuild
from vnfm_testbed.openstack import catalogue
from vnfm_testbed.openstack import identity
from vnfm_testbed.openstack import vmhost
from vnfm_testbed.openstack import vmsample
from vnfm_testbed.openstack.cloud import CloudError
from vnfm_testbed.openstack.cloud import LocalCloud

PACKAGE = 'vm_simple'
USER = 'demo'
#: The image each VDU of vm_simple boots (its VNFD's software images).
VDU_IMAGES = {'VDU1': 'ubuntu-22.04', 'VDU2': 'cirros-0.6'}
SERVER = 'OS::Nova::Server'
#: The CPs the instantiate request puts on mgmt-net (SSH goes there).
EXT_CPS = {
    cp['cpdId']
    for link in vmsample.instantiate_request('')['extVirtualLinks']
    for cp in link['extCps']
}
_SSH_TIMEOUTS = ssh.Timeouts(boot=60.0, command=30.0)


def start_cloud(state_dir: Path, keep_running: bool = False) -> LocalCloud:
    """Start the local cloud (its OpenStack venv built once if needed)."""
    if not (osbuild.cache_dir() / '.stamp').exists():
        print(
            'The local OpenStack is not built: building it once with '
            'tools/build-openstack.sh (several minutes).',
            flush=True,
        )
    cloud = LocalCloud(
        state_dir / 'cloud',
        name=f'demo{os.getpid()}',  # its databases and vhost: one per run
        die_with_parent=not keep_running,
    )
    try:
        cloud.start(timeout=300)
    except (CloudError, osbuild.BuildUnavailable, OSError) as exc:
        raise StepFailed(f'the local cloud did not start: {exc}') from exc
    print(
        f'--> ok: Keystone {cloud.auth_url}/v3, Heat {cloud.heat_url}/v1 '
        f'(up in {cloud.startup_seconds:.1f}s)',
        flush=True,
    )
    return cloud


def keep_running_help(cloud: LocalCloud) -> None:
    """How to use and stop the cloud left running."""
    where = f'--name {cloud.name} --state-dir {cloud.state_dir}'
    print(
        f'The local cloud keeps running: vnfm-localcloud status {where}\n'
        f'Stop it with: vnfm-localcloud down {where}'
    )


def build_package(state_dir: Path, samples: Path) -> Path:
    """The CSAR of the vm_simple sample."""
    path = state_dir / f'{PACKAGE}.zip'
    path.write_bytes(build.build_csar(str(samples / PACKAGE)))
    return path


def cloud_cli(cloud: LocalCloud, *args: str, echo: bool = True) -> str:
    """Print and run ``openstack ARGS`` as the cloud's demo user; its
    output, printed too when ``echo``."""
    print(f'$ openstack {" ".join(args)}   # as {USER}@local cloud')
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    argv = [os.path.join(os.path.dirname(sys.executable), 'openstack')]
    proc = subprocess.run(  # nosec B603 - fixed argv
        [*argv, *args],
        env=env | cloud.client_env(USER),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    out = (proc.stdout + proc.stderr).rstrip()
    if echo or proc.returncode != 0:
        print(out, flush=True)
    if proc.returncode != 0:
        raise StepFailed(f'openstack exited with {proc.returncode}')
    return out


def vim_config(cloud: LocalCloud) -> dict[str, str]:
    """``openstack vim register``'s config file for the demo user."""
    creds = cloud.credentials(USER)
    return {k: creds[k] for k in identity.CLIENT_KEYS} | {
        'cert_verify': 'True'
    }


def _register(demo: Demo, cloud: LocalCloud) -> str:
    config = vim_config(cloud)
    path = demo.work / 'vim.yaml'
    path.write_text(json.dumps(config, indent=2) + '\n')  # YAML too
    shown = dict(config, password='<the demo user password>')
    print(
        f'$ cat {path}   # password elided here\n'
        + json.dumps(shown, indent=2),
        flush=True,
    )
    out = demo.cli('vim', 'register', '--config-file', str(path), 'local-os')
    if config['password'] in out:
        raise StepFailed('the VIM password was shown')
    demo.expect(out, 'status', 'REACHABLE')
    return table_field(out, 'id')


def _instantiate(demo: Demo, vnfd_id: str, vim_id: str) -> str:
    inst_id = demo.create_and_instantiate(
        vnfd_id, 'demo-vm', vmsample.instantiate_request(vim_id),
        'instantiate.json',
    )  # fmt: skip
    out = demo.cli('vnflcm', 'show', inst_id, *V2)
    demo.expect(out, 'Instantiation State', 'INSTANTIATED')
    return inst_id


def vnfcs(demo: Demo, inst_id: str) -> list[dict[str, Any]]:
    """The instance's vnfcResourceInfo."""
    inst = demo.server.get(f'/vnflcm/v2/vnf_instances/{inst_id}')
    return list(inst['instantiatedVnfInfo'].get('vnfcResourceInfo') or [])


def stack_status(stack_list: str, name: str) -> str:
    """The status of stack ``name`` in ``openstack stack list``'s table."""
    for line in stack_list.splitlines():
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if name in cells:
            return next((c for c in cells if c.isupper()), '')
    return ''


def servers(resources: list[dict[str, Any]]) -> dict[str, dict]:
    """Nova server id -> its row of ``stack resource list -n 3 -f json``."""
    return {
        r['physical_resource_id']: r
        for r in resources
        if r['resource_type'] == SERVER
    }


def _stack(demo: Demo, cloud: LocalCloud, inst_id: str) -> dict[str, dict]:
    """Show the stack, check its servers are exactly the VNFCs'."""
    name = f'vnf-{inst_id}'
    status = stack_status(cloud_cli(cloud, 'stack', 'list'), name)
    if status not in ('CREATE_COMPLETE', 'UPDATE_COMPLETE'):
        raise StepFailed(f'stack {name} is {status or "not listed"}')
    print(f'--> ok: stack {name} is {status}', flush=True)
    listed = cloud_cli(
        cloud, 'stack', 'resource', 'list', '-n', '3', name,
        '-f', 'json', '-c', 'resource_name', '-c', 'resource_type',
        '-c', 'physical_resource_id', '-c', 'stack_name',
    )  # fmt: skip
    nova = servers(json.loads(listed))
    ids = {v['computeResource']['resourceId'] for v in vnfcs(demo, inst_id)}
    if ids != set(nova):
        raise StepFailed(f'VNFC servers {ids} but the stack has {set(nova)}')
    print(f"--> ok: the {len(ids)} VNFCs are the stack's servers", flush=True)
    return nova


def cp_address(vnfc: dict[str, Any]) -> str:
    """The first IP address of the VNFC's external CP (on mgmt-net)."""
    for cp in vnfc.get('vnfcCpInfo') or []:
        if cp.get('cpdId') not in EXT_CPS:
            continue
        for proto in cp.get('cpProtocolInfo') or []:
            for ip in proto['ipOverEthernet'].get('ipAddresses') or []:
                if ip.get('addresses'):
                    return str(ip['addresses'][0])
    raise StepFailed(f'VNFC {vnfc["id"]} has no external CP address')


def _server_name(cloud: LocalCloud, row: dict) -> str:
    out = cloud_cli(
        cloud, 'stack', 'resource', 'show', row['stack_name'],
        row['resource_name'], '-f', 'json', '-c', 'attributes', echo=False,
    )  # fmt: skip
    attrs = json.loads(out)['attributes']
    name = str(attrs.get('name') or (attrs.get('show') or {}).get('name'))
    print(f'(its attributes, name: {name})', flush=True)
    return name


def _ssh_hostname(vnfc: dict[str, Any]) -> str:
    address = cp_address(vnfc)
    image = catalogue.IMAGES[VDU_IMAGES[vnfc['vduId']]]
    print(f'$ ssh {image["user"]}@{address} hostname', flush=True)
    target = ssh.Target(address, image['user'], password=image['password'])
    try:
        with ssh.connect(target, outbound.Policy(), _SSH_TIMEOUTS) as sess:
            name = sess.run('hostname', 'hostname').stdout.strip()
    except ssh.SshError as exc:
        raise StepFailed(str(exc)) from exc
    print(name, flush=True)
    return name


def _stack_and_ssh(demo: Demo, cloud: LocalCloud, inst_id: str) -> None:
    nova = _stack(demo, cloud, inst_id)
    for vnfc in vnfcs(demo, inst_id):
        server = nova[vnfc['computeResource']['resourceId']]
        expected = _server_name(cloud, server)
        got = _ssh_hostname(vnfc)
        # Nova's host name of the server (lower case, '_' as '-').
        if not expected or got != vmhost.hostname_of(expected):
            raise StepFailed(f'hostname {got!r}, server name {expected!r}')
        print(f'--> ok: {vnfc["vduId"]} {vnfc["id"]} is {got}', flush=True)


def _scale(
    demo: Demo, cloud: LocalCloud, inst_id: str, kind: str, change: int
) -> None:
    before = {v['id'] for v in vnfcs(demo, inst_id)}
    demo.run_op(
        inst_id, 'SCALE', 'vnflcm', 'scale', inst_id,
        '--type', kind, '--aspect-id', 'VDU1_scale', *V2,
    )  # fmt: skip
    after = {v['id'] for v in vnfcs(demo, inst_id)}
    if len(after) != len(before) + change:
        raise StepFailed(f'{len(before)} VNFCs became {len(after)}')
    kept = before & after
    if len(kept) != min(len(before), len(after)):
        raise StepFailed('VNFCs that should stay changed their ids')
    print(f'--> ok: {len(before)} VNFCs -> {len(after)}', flush=True)
    _stack(demo, cloud, inst_id)


def _terminate_delete(demo: Demo, cloud: LocalCloud, inst_id: str) -> None:
    demo.run_op(inst_id, 'TERMINATE', 'vnflcm', 'terminate', inst_id, *V2)
    name = f'vnf-{inst_id}'
    if stack_status(cloud_cli(cloud, 'stack', 'list'), name):
        raise StepFailed(f'stack {name} is still listed')
    print(f'--> ok: stack {name} is gone', flush=True)
    demo.cli('vnflcm', 'delete', inst_id, *V2)
    if inst_id in demo.cli('vnflcm', 'list', *V2):
        raise StepFailed(f'{inst_id} is still listed')
    print(f'--> ok: {inst_id} is gone', flush=True)


def scenario(demo: Demo, cloud: LocalCloud, csar: Path) -> str:
    """The VM lifecycle, step by step; StepFailed at the first failure.
    The id of the local cloud's VIM."""
    vim_id = demo.step(
        'Register the local cloud as a VIM (openstack vim register)',
        _register,
        demo,
        cloud,
    )
    _, vnfd_id = demo.step(
        f'Onboard the sample package {PACKAGE}', demo.onboard, csar
    )
    inst_id = demo.step(
        'Create a VNF instance and instantiate it (Heat stack, 2 VMs)',
        _instantiate,
        demo,
        vnfd_id,
        vim_id,
    )
    demo.step(
        'Show the stack (openstack stack) and SSH into each VM',
        _stack_and_ssh,
        demo,
        cloud,
        inst_id,
    )
    for kind, change in (('SCALE_OUT', 1), ('SCALE_IN', -1)):
        demo.step(
            f'Scale VDU1_scale: {kind}',
            _scale,
            demo,
            cloud,
            inst_id,
            kind,
            change,
        )
    demo.step(
        'Terminate (the stack is deleted) and delete it',
        _terminate_delete,
        demo,
        cloud,
        inst_id,
    )
    return vim_id
