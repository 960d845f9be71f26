"""vnfm-demo on OpenStack, part two: seed 002's two VNFs on the local cloud.

A cluster VNF (the vm_k8s_cluster test package: Heat VMs on which the
``kubernetes_cluster`` MgmtDriver installs Kubernetes over SSH) is
instantiated and registered as a Kubernetes VIM (``openstack vim list``);
the cnf_simple CNF is instantiated on that VIM; terminate of the cluster is
refused while the CNF uses it; the workers scale out (a new Node) and in
(its Node drained and deleted); the CNF, then the cluster are terminated
and the VIM is gone. The cluster VNF has seed 004's storage server too: a
VM with a Cinder volume serving NFS (nfs-ganesha), and PersistentVolumes on
it registered in the cluster with that VM's address. The cluster is shown
with kubectl on its master VM, as an operator would look at it.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from vnfm.clients import outbound
from vnfm.clients import ssh
from vnfm.csar import build
from vnfm_testbed import vmk8s
from vnfm_testbed.demo import k8s as demo_k8s
from vnfm_testbed.demo import vm as demo_vm
from vnfm_testbed.demo.runner import V2
from vnfm_testbed.demo.runner import Demo
from vnfm_testbed.demo.runner import StepFailed
from vnfm_testbed.k8s import k8sbuild
from vnfm_testbed.openstack import k8s_cluster_sample

VIM_NAME = 'demo-k8s-on-vms'
_SSH_TIMEOUTS = ssh.Timeouts(boot=60.0, command=60.0)


def build_packages(state_dir: Path, samples: Path) -> tuple[Path, Path]:
    """The CSARs of the cluster test package and of cnf_simple."""
    source = k8s_cluster_sample.package_source(state_dir / 'vm_k8s_cluster')
    cluster = state_dir / 'vm_k8s_cluster.zip'
    cluster.write_bytes(build.build_csar(str(source)))
    cnf = state_dir / 'cnf_simple_on_vms.zip'
    cnf.write_bytes(build.build_csar(str(samples / 'cnf_simple')))
    return cluster, cnf


def _addresses(vnfc: dict) -> list[str]:
    """The addresses of a VNFC's CPs."""
    return [
        address
        for cp in vnfc.get('vnfcCpInfo') or []
        for proto in cp.get('cpProtocolInfo') or []
        for ip in proto['ipOverEthernet'].get('ipAddresses') or []
        for address in ip['addresses']
    ]


def _vms(demo: Demo, inst_id: str) -> dict[str, list[str]]:
    """VDU id -> the addresses of its VMs."""
    out: dict[str, list[str]] = {}
    for vnfc in demo_vm.vnfcs(demo, inst_id):
        out.setdefault(vnfc['vduId'], []).extend(_addresses(vnfc))
    return out


def _on_vm(address: str, command: str) -> str:
    """Print and run ``command`` on a cluster VM over SSH; its stdout."""
    login = k8s_cluster_sample.LOGIN
    print(f'$ ssh {login["username"]}@{address} {command}', flush=True)
    target = ssh.Target(address, login['username'], login['password'])
    try:
        with ssh.connect(target, outbound.Policy(), _SSH_TIMEOUTS) as sess:
            out = sess.run(command, command).stdout.rstrip()
    except ssh.SshError as exc:
        raise StepFailed(str(exc)) from exc
    print(out, flush=True)
    return out


def _kubectl(demo: Demo, inst_id: str, *args: str) -> str:
    """kubectl on the master VM with its admin kubeconfig (the cached
    kubectl the VM sees); its output."""
    binaries = k8sbuild.cached()
    if binaries is None:
        raise StepFailed('kubectl is not built (tools/build-k8s.sh)')
    master = _vms(demo, inst_id)['masterNode'][0]
    kubeconfig = vmk8s.STATE / 'master' / 'admin.kubeconfig'
    argv = [str(binaries.kubectl), f'--kubeconfig={kubeconfig}', *args]
    return _on_vm(master, 'sudo ' + shlex.join(argv))


def _ready_nodes(demo: Demo, inst_id: str) -> dict[str, str]:
    """Name -> InternalIP of the cluster's Ready Nodes."""
    out = _kubectl(demo, inst_id, 'get', 'nodes', '-o', 'wide', '--no-headers')
    return {
        fields[0]: fields[5]
        for fields in (line.split() for line in out.splitlines())
        if fields[1:2] == ['Ready'] and len(fields) > 5
    }


def _worker_vms(demo: Demo, inst_id: str) -> list[set[str]]:
    """The addresses of each worker VM."""
    return [
        set(_addresses(v))
        for v in demo_vm.vnfcs(demo, inst_id)
        if v['vduId'] == 'workerNode'
    ]


def _check_nodes(demo: Demo, inst_id: str) -> None:
    """Each worker VM is exactly one Ready Node (by its address; Node names
    are the VMs' own, derived from it), and no Node is of another VM."""
    nodes = _ready_nodes(demo, inst_id)
    workers = _worker_vms(demo, inst_id)
    per_vm = [sorted(n for n, ip in nodes.items() if ip in a) for a in workers]
    matched = {n for names in per_vm for n in names}
    if any(len(names) != 1 for names in per_vm) or matched != set(nodes):
        raise StepFailed(f'Ready Nodes {nodes}, worker VM addresses {workers}')
    print(f'--> ok: a Ready Node per worker VM: {sorted(nodes)}', flush=True)


def _vim_listed(demo: Demo) -> bool:
    return VIM_NAME in demo.cli('vim', 'list')


def _instantiate_cluster(
    demo: Demo, vnfd_id: str, os_vim_id: str, export_to: str
) -> tuple[str, str]:
    request = k8s_cluster_sample.instantiate_request(
        os_vim_id, VIM_NAME, storage_export_to=export_to
    )
    inst_id = demo.create_and_instantiate(
        vnfd_id, 'k8s-cluster', request, 'cluster-instantiate.json'
    )
    inst = demo.server.get(f'/vnflcm/v2/vnf_instances/{inst_id}')
    vim_id = inst['vimConnectionInfo']['kubernetes_cluster']['vimId']
    out = demo.cli('vim', 'show', vim_id)
    demo.expect(out, 'name', VIM_NAME)
    demo.expect(out, 'type', 'kubernetes')
    _check_nodes(demo, inst_id)
    return inst_id, vim_id


def _nfs_volumes(demo: Demo, inst_id: str) -> None:
    """The PVs point at the storage VM and are Available; a file written
    over NFS from the master VM reads back (libnfs: no kernel client)."""
    server = _vms(demo, inst_id)[k8s_cluster_sample.STORAGE_VDU][0]
    columns = (
        'NAME:.metadata.name,STATUS:.status.phase,'
        'SERVER:.spec.nfs.server,PATH:.spec.nfs.path'
    )
    out = _kubectl(
        demo, inst_id, 'get', 'pv', '-o', f'custom-columns={columns}'
    )
    rows = [line.split() for line in out.splitlines()[1:] if line.strip()]
    names = {row[0] for row in rows}
    if names != set(k8s_cluster_sample.PVS):
        raise StepFailed(f'PVs {sorted(names)}, not {k8s_cluster_sample.PVS}')
    wrong = [row for row in rows if row[1:3] != ['Available', server]]
    if wrong:
        raise StepFailed(f'PVs not Available on {server}: {wrong}')
    print(f'--> ok: PVs {sorted(names)} Available on NFS server {server}')
    master = _vms(demo, inst_id)['masterNode'][0]
    url = f'nfs://{server}{k8s_cluster_sample.EXPORTS[0]}/hello.txt?version=4'
    _on_vm(master, f'echo seed-004 > /tmp/hello && nfs-cp /tmp/hello "{url}"')
    if _on_vm(master, f'nfs-cat "{url}"') != 'seed-004':
        raise StepFailed('the file written over NFS did not read back')
    print('--> ok: written and read back over NFS from the master VM')


def _instantiate_cnf(
    demo: Demo, cluster_id: str, vnfd_id: str, vim_id: str
) -> str:
    cnf_id = demo.create_and_instantiate(
        vnfd_id, 'cnf-on-vms',
        demo_k8s.cnf_instantiate_request('default', vim_id),
        'cnf-on-vms.json',
    )  # fmt: skip
    workers = set(_ready_nodes(demo, cluster_id))
    out = _kubectl(demo, cluster_id, 'get', 'pods', '-o', 'wide')
    on = {line.split()[6] for line in out.splitlines()[1:] if line.strip()}
    if not on or not on <= workers:
        raise StepFailed(f'the Pods run on {on}, not on the workers')
    print(f'--> ok: the CNF Pods run on the workers {sorted(on)}', flush=True)
    return cnf_id


def _refused(demo: Demo, cluster_id: str, cnf_id: str) -> None:
    out = demo.cli_fails('vnflcm', 'terminate', cluster_id, *V2)
    if cnf_id not in out:
        raise StepFailed('the refusal does not name the CNF')
    if not _vim_listed(demo):
        raise StepFailed(f'VIM {VIM_NAME} is gone')
    print('--> ok: refused, naming the CNF; the VIM stays', flush=True)


def _scale(demo: Demo, cluster_id: str, kind: str) -> None:
    before = _worker_vms(demo, cluster_id)
    demo.run_op(
        cluster_id, 'SCALE', 'vnflcm', 'scale', cluster_id, '--type', kind,
        '--aspect-id', k8s_cluster_sample.WORKER_ASPECT, *V2,
    )  # fmt: skip
    after = _worker_vms(demo, cluster_id)
    change = len(after) - len(before)
    if change != (1 if kind == 'SCALE_OUT' else -1):
        raise StepFailed(f'worker VMs {before} became {after}')
    _check_nodes(demo, cluster_id)


def _terminate_both(demo: Demo, cluster_id: str, cnf_id: str) -> None:
    for inst_id in (cnf_id, cluster_id):
        demo.run_op(inst_id, 'TERMINATE', 'vnflcm', 'terminate', inst_id, *V2)
        demo.cli('vnflcm', 'delete', inst_id, *V2)
    if _vim_listed(demo):
        raise StepFailed(f'VIM {VIM_NAME} is still listed')
    print(f'--> ok: VIM {VIM_NAME} is gone with its cluster', flush=True)


def scenario(
    demo: Demo, os_vim_id: str, csars: tuple[Path, Path], export_to: str
) -> dict[str, Any]:
    """Seed 002's flow, with seed 004's storage server, step by step;
    StepFailed at the first failure. ``export_to``: the VMs' subnet (the
    NFS exports' clients)."""
    _, cluster_vnfd = demo.step(
        'Onboard the Kubernetes cluster package vm_k8s_cluster',
        demo.onboard,
        csars[0],
    )
    _, cnf_vnfd = demo.step(
        'Onboard the CNF package cnf_simple', demo.onboard, csars[1]
    )
    cluster_id, vim_id = demo.step(
        'Instantiate the cluster VNF: VMs, Kubernetes over SSH, a new VIM',
        _instantiate_cluster,
        demo,
        cluster_vnfd,
        os_vim_id,
        export_to,
    )
    demo.step(
        'Its storage server VM serves NFS PersistentVolumes (seed 004)',
        _nfs_volumes,
        demo,
        cluster_id,
    )
    cnf_id = demo.step(
        f'Instantiate the CNF on VIM {VIM_NAME}',
        _instantiate_cnf,
        demo,
        cluster_id,
        cnf_vnfd,
        vim_id,
    )
    demo.step(
        'Terminate the cluster while the CNF uses it: refused',
        _refused,
        demo,
        cluster_id,
        cnf_id,
    )
    for kind in ('SCALE_OUT', 'SCALE_IN'):
        demo.step(
            f'Scale the workers: {kind} (a Node joins / is drained)',
            _scale,
            demo,
            cluster_id,
            kind,
        )
    demo.step(
        'Terminate the CNF, then the cluster: the VIM goes',
        _terminate_both,
        demo,
        cluster_id,
        cnf_id,
    )
    return {'cluster': cluster_id, 'cnf': cnf_id, 'vim': vim_id}
