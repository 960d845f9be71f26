"""The kubernetes_cluster MgmtDriver's instantiate_end over real SSH and
sudo, with a recording install script: the VIM it registers, the keys it
pins, and a VM whose host key changed refused."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.integration.ssh.test_cluster_install import fake_script
from tests.integration.ssh.test_ssh_client import LOOPBACK
from tests.unit.drivers.mgmt.kubernetes_cluster import instances
from tests.unit.drivers.mgmt.kubernetes_cluster.test_driver import FakeKube
from tests.unit.objects.test_k8s_cluster import valid
from vnfm.clients import ssh
from vnfm.drivers.mgmt import base
from vnfm.drivers.mgmt.kubernetes_cluster import census
from vnfm.drivers.mgmt.kubernetes_cluster import driver
from vnfm.drivers.mgmt.kubernetes_cluster import hostkeys
from vnfm.drivers.mgmt.kubernetes_cluster import vim
from vnfm.drivers.package_files import PackageFiles
from vnfm_testbed.sshd import LoopbackSshd

INSTANCE = '3c9a1d2e-5f60-4a7b-8c9d-0e1f2a3b4c5d'
SCRIPT = 'Scripts/install_k8s_cluster.sh'


def vm(vnfc_id: str, vdu: str, address: str) -> dict[str, Any]:
    """A VNFC reached over SSH on loopback, its node address ``address``."""
    return instances.vnfc(
        vnfc_id,
        vdu,
        instances.cp(f'{vdu}_SSH', '127.0.0.1'),
        instances.cp(f'{vdu}_NIC', address),
    )


def params(server: LoopbackSshd) -> dict:
    wanted = valid()
    cluster = wanted['k8s_cluster_installation_param']
    login = {'username': server.username, 'password': server.password}
    for role, vdu in (('master_node', 'masterNode'), ('worker_node', 'w')):
        cluster[role].update(
            login, ssh_cp_name=f'{vdu}_SSH', nic_cp_name=f'{vdu}_NIC'
        )
    cluster['master_node']['cluster_cp_name'] = 'masterNode_NIC'
    return wanted


def hook(server: LoopbackSshd, script: bytes, metadata: dict) -> Any:
    info = instances.info(
        vm('m1', 'masterNode', '198.18.0.11'),
        vm('w1', 'w', '198.18.0.21'),
        vm('w2', 'w', '198.18.0.22'),
    )
    return base.HookContext(
        hook='instantiate_end',
        operation='INSTANTIATE',
        vnf_instance={
            'id': INSTANCE,
            'instantiatedVnfInfo': info,
            'metadata': metadata,
        },
        vnf_lcm_op_occ={},
        request={'additionalParams': params(server)},
        vim_connection_info={},
        vnfd={},
        package=PackageFiles('p', {SCRIPT: script}),
        definition={'builtin': 'kubernetes_cluster'},
        deadline=time.monotonic() + 120,
    )


def on_cluster(
    server: LoopbackSshd, nodes: dict[str, str]
) -> driver.KubernetesClusterDriver:
    """The driver over ``server``, on a cluster API whose Nodes are
    ``nodes`` (name -> address): the recording script installs nothing."""
    kube = FakeKube(nodes, [])
    return driver.KubernetesClusterDriver(
        port=server.port, policy=LOOPBACK, kube_client=lambda vim: kube
    )


def test_instantiate_end_installs_over_ssh_and_registers_the_vim(
    sudo_sshd: LoopbackSshd, tmp_path: Path
) -> None:
    log = tmp_path / 'actions.log'
    tmp_path.chmod(0o755)
    script = fake_script(log, tmp_path / 'no-failure')
    # A Node of each VM, as kubeadm would have registered them.
    cluster = on_cluster(
        sudo_sshd,
        {
            'master-198-18-0-11': '198.18.0.11',
            'worker-198-18-0-21': '198.18.0.21',
            'worker-198-18-0-22': '198.18.0.22',
        },
    )

    changes = cluster.instantiate_end(hook(sudo_sshd, script, {})).changes

    assert log.read_text().splitlines() == [
        'prepare 198.18.0.11 ',
        'prepare 198.18.0.21 ',
        'prepare 198.18.0.22 ',
        'init-master 198.18.0.11 ',
        'join-info 198.18.0.11 ',
        'join-worker 198.18.0.21 token',
        'join-worker 198.18.0.22 token',
        'vim-access 198.18.0.11 ',
    ]
    [registered] = changes['vims']['register']
    assert registered['name'] == 'kubernetes_vim'
    assert registered['auth_url'] == 'https://198.18.0.11:6443'
    assert registered['auth_cred']['bearer_token'] == 'sa-token-1'
    entry = changes['vimConnectionInfo'][vim.CONNECTION_KEY]
    assert entry['vimId'] == registered['id'] == driver.vim_id_of(INSTANCE)
    pins = changes['metadata'][hostkeys.METADATA_KEY]
    assert pins == {
        f'server-{v}': [sudo_sshd.host_key] for v in ('m1', 'w1', 'w2')
    }
    assert sudo_sshd.password not in str(changes)


def test_a_vm_whose_host_key_changed_is_refused(
    sudo_sshd: LoopbackSshd, tmp_path: Path
) -> None:
    log = tmp_path / 'actions.log'
    tmp_path.chmod(0o755)
    script = fake_script(log, tmp_path / 'no-failure')
    other = (
        'ssh-ed25519 '
        'AAAAC3NzaC1lZDI1NTE5AAAAIBu6bDpSdvUZy5bFvGPhzPLmJSq8LtZq4zVc0gA3xJ7m'
    )
    metadata = {hostkeys.METADATA_KEY: {'server-m1': [other]}}
    cluster = driver.KubernetesClusterDriver(
        port=sudo_sshd.port, policy=LOOPBACK
    )

    with pytest.raises(ssh.HostKeyChanged):
        cluster.instantiate_end(hook(sudo_sshd, script, metadata))

    assert not log.exists()


def test_two_workers_that_joined_as_one_node_fail_the_hook(
    sudo_sshd: LoopbackSshd, tmp_path: Path
) -> None:
    # Tacker's cluster package names every worker server alike; a cluster
    # whose two worker VMs ended up as one Node is not a success.
    log = tmp_path / 'actions.log'
    tmp_path.chmod(0o755)
    script = fake_script(log, tmp_path / 'no-failure')
    cluster = on_cluster(
        sudo_sshd, {'master': '198.18.0.11', 'workerNode': '198.18.0.22'}
    )

    with pytest.raises(census.ClusterMismatch) as raised:
        cluster.instantiate_end(hook(sudo_sshd, script, {}))

    assert 'worker VNFC w1 (198.18.0.21) is 0 Nodes' in str(raised.value)
