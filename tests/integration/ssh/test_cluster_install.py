"""The kubernetes_cluster installer over real SSH and sudo: the steps in
kubeadm's order on each VM, one connection per VM, and a retry after a
failure that runs only what is left."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from tests.integration.ssh.test_cluster_sessions import Hook
from vnfm.clients import ssh
from vnfm.drivers.mgmt.kubernetes_cluster import install
from vnfm.drivers.mgmt.kubernetes_cluster import nodes
from vnfm_testbed.k8s import certs
from vnfm_testbed.sshd import LoopbackSshd

ENDPOINT = '198.18.0.100'


def fake_script(log: Path, fail_marker: Path) -> bytes:
    """Records each action with the node it ran on; fails join-worker of
    198.18.0.22 while ``fail_marker`` exists."""
    ca = base64.b64encode(certs.make_ca().cert_pem).decode()
    return f"""#!/bin/bash
set -eu
action=$1 config=$2
get() {{ sed -n "s/^$1=//p" "$config"; }}
node=$(get NODE_IP)
token=$(get JOIN_TOKEN)
echo "$action $node ${{token:+token}}" >> {log}
if [[ $action == join-worker && $node == 198.18.0.22 && -e {fail_marker} ]]
then
    echo "kubelet did not start" >&2; exit 3
fi
case $action in
join-info) echo JOIN_TOKEN=abcdef.0123456789abcdef ;;
vim-access)
    echo "SERVER=https://$(get CLUSTER_ENDPOINT)"
    echo "CA_CERT={ca}"
    echo TOKEN=sa-token-1
    ;;
esac
""".encode()


def vm(vnfc_id: str, role: str, address: str) -> nodes.VmNode:
    return nodes.VmNode(
        role, vnfc_id, 'VDU', f'server-{vnfc_id}', '127.0.0.1', address
    )


CLUSTER = [
    vm('m1', nodes.MASTER, '198.18.0.11'),
    vm('m2', nodes.MASTER, '198.18.0.12'),
    vm('w1', nodes.WORKER, '198.18.0.21'),
    vm('w2', nodes.WORKER, '198.18.0.22'),
]


def run_hook(hook: Hook, server: LoopbackSshd, script: bytes):  # noqa: ANN201
    with hook.sessions(server) as vms:
        installer = install.Installer(
            vms.params, vms, script, hook.work, lambda: None, lambda: 60.0
        )
        try:
            return installer.install(CLUSTER, ENDPOINT), vms.connections
        finally:
            installer.close()


def test_install_in_order_then_a_retry_runs_only_what_is_left(
    sudo_sshd: LoopbackSshd, tmp_path: Path
) -> None:
    log, marker = tmp_path / 'actions.log', tmp_path / 'fail'
    tmp_path.chmod(0o755)
    marker.touch()
    script = fake_script(log, marker)
    hook = Hook()
    with pytest.raises(ssh.CommandFailed) as caught:
        run_hook(hook, sudo_sshd, script)
    assert 'join-worker on worker VNFC w2' in caught.value.detail
    assert 'kubelet did not start' in caught.value.detail
    assert log.read_text().splitlines() == [
        'prepare 198.18.0.11 ',
        'prepare 198.18.0.12 ',
        'prepare 198.18.0.21 ',
        'prepare 198.18.0.22 ',
        'init-master 198.18.0.11 ',
        'join-info 198.18.0.11 ',
        'join-master 198.18.0.12 token',
        'join-worker 198.18.0.21 token',
        'join-worker 198.18.0.22 token',
    ]
    log.unlink()
    marker.unlink()  # the operator fixed the cause; retry
    access, connections = run_hook(hook, sudo_sshd, script)
    assert log.read_text().splitlines() == [
        'join-info 198.18.0.11 ',
        'join-worker 198.18.0.22 token',
        'vim-access 198.18.0.11 ',
    ]
    assert access.server == f'https://{ENDPOINT}:6443'
    assert access.token == 'sa-token-1'
    assert connections == 2  # only the VMs this retry needed
