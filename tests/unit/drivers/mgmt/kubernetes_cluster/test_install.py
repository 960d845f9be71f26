"""Installing Kubernetes on the cluster's VMs: kubeadm's order, each step
that changes a VM run once per operation (a retried hook skips them),
a failed login named with its VM and step, and a package without the
script named by its parameter (the script's runs are recorded)."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from tests.unit.drivers.mgmt.kubernetes_cluster import instances
from vnfm.clients import ssh
from vnfm.common import exceptions
from vnfm.drivers.mgmt.kubernetes_cluster import install
from vnfm.drivers.mgmt.kubernetes_cluster import nodes
from vnfm.drivers.mgmt.kubernetes_cluster import script
from vnfm.drivers.package_files import PackageFiles
from vnfm_testbed.k8s import certs

CA = base64.b64encode(certs.make_ca().cert_pem).decode()
ENDPOINT = '198.18.0.100:6443'


def _vm(role: str, n: int) -> nodes.VmNode:
    address = f'198.18.0.{10 * (1 if role == nodes.MASTER else 2) + n}'
    return nodes.VmNode(
        role=role,
        vnfc_id=f'{role[0]}{n}',
        vdu_id=f'{role}Node',
        resource_id=f'server-{role[0]}{n}',
        ssh_address=address,
        node_address=address,
    )


class Runs:
    """The actions the script ran, as ``action@vnfc`` with their join."""

    def __init__(self) -> None:
        self.log: list[tuple[str, str | None]] = []
        self.closed: list[str] = []
        self.refuse_login: str | None = None  # a VNFC whose login fails
        self.fail: str | None = None  # an action@vnfc that fails

    def open(self, node: nodes.VmNode) -> Any:
        if node.vnfc_id == self.refuse_login:
            raise ssh.SshError('Permission denied (publickey).')
        return node.vnfc_id

    def runner(self, session: Any, install_script: bytes, where: str) -> Any:
        runs = self

        class Runner:
            def run(
                self, action: str, config: dict[str, str], timeout: float
            ) -> dict[str, str]:
                runs.log.append(
                    (f'{action}@{session}', config.get('JOIN_TOKEN') or None)
                )
                if runs.fail == f'{action}@{session}':
                    raise exceptions.OperationFailed(f'{action} failed')
                return {
                    'join-info': {'JOIN_TOKEN': 'abcdef.0123456789abcdef'},
                    'vim-access': {
                        'SERVER': f'https://{ENDPOINT}',
                        'CA_CERT': CA,
                        'TOKEN': 'sa-token-1',
                    },
                }.get(action, {})

            def close(self) -> None:
                runs.closed.append(session)

        return Runner()


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> Runs:
    found = Runs()
    monkeypatch.setattr(script, 'ScriptRunner', found.runner)
    return found


def _installer(runs: Runs, work: dict[str, Any]) -> install.Installer:
    saved: list[int] = []
    return install.Installer(
        instances.params(),
        runs,  # type: ignore[arg-type]
        b'#!/bin/bash\n',
        work,
        lambda: saved.append(1),
        lambda: 60.0,
    )


CLUSTER = [
    _vm(nodes.MASTER, 1),
    _vm(nodes.MASTER, 2),
    _vm(nodes.WORKER, 1),
]


def test_the_cluster_is_built_in_kubeadms_order(runs: Runs) -> None:
    work: dict[str, Any] = {}
    installer = _installer(runs, work)

    access = installer.install(CLUSTER, ENDPOINT)
    installer.close()

    token = 'abcdef.0123456789abcdef'
    assert runs.log == [
        ('prepare@m1', None),
        ('prepare@m2', None),
        ('prepare@w1', None),
        ('init-master@m1', None),
        ('join-info@m1', None),
        ('join-master@m2', token),
        ('join-worker@w1', token),
        ('vim-access@m1', None),
    ]
    assert (access.server, access.token) == (
        f'https://{ENDPOINT}',
        'sa-token-1',
    )
    # The script is removed from every VM it was copied to.
    assert sorted(runs.closed) == ['m1', 'm2', 'w1']
    # What each step took, for operators.
    assert set(work['script_seconds']) == {
        f'{a}@server-{v}'
        for a, v in (
            ('prepare', 'm1'),
            ('prepare', 'm2'),
            ('prepare', 'w1'),
            ('init-master', 'm1'),
            ('join-info', 'm1'),
            ('join-master', 'm2'),
            ('join-worker', 'w1'),
            ('vim-access', 'm1'),
        )
    }


def test_a_retried_hook_runs_again_only_what_is_not_done(runs: Runs) -> None:
    work: dict[str, Any] = {}
    runs.fail = 'join-worker@w1'
    with pytest.raises(exceptions.OperationFailed, match='join-worker'):
        _installer(runs, work).install(CLUSTER, ENDPOINT)
    runs.fail = None
    runs.log.clear()

    _installer(runs, work).install(CLUSTER, ENDPOINT)

    # A join token expires: join-info and vim-access run every time.
    assert [a for a, _ in runs.log] == [
        'join-info@m1',
        'join-worker@w1',
        'vim-access@m1',
    ]


def test_a_refused_login_names_the_vm_and_the_step(runs: Runs) -> None:
    runs.refuse_login = 'w1'
    with pytest.raises(ssh.SshError) as e:
        _installer(runs, {}).install(CLUSTER, ENDPOINT)
    assert str(e.value) == (
        'install script prepare on worker VNFC w1 (198.18.0.21): '
        'Permission denied (publickey).'
    )
    assert [a for a, _ in runs.log] == ['prepare@m1', 'prepare@m2']


def test_a_package_without_the_script_names_the_parameter() -> None:
    params = instances.params()
    with pytest.raises(exceptions.OperationFailed) as e:
        install.read_script(PackageFiles('pkg-1', {}), params)
    assert str(e.value) == (
        'additionalParams/k8s_cluster_installation_param/script_path: the '
        f'VNF package has no file {params.script_path}.'
    )
    package = PackageFiles('pkg-1', {params.script_path: b'#!/bin/bash\n'})
    assert install.read_script(package, params) == b'#!/bin/bash\n'
