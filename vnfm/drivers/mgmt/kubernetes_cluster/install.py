"""Installing Kubernetes on the cluster's VMs with the package's script.

The order is kubeadm's: ``prepare`` on every VM, ``init-master`` on the
first master, ``join-info`` from it, ``join-master`` on the other masters
(HA, behind ``cluster_cp_name``), ``join-worker`` on the workers, then
``vim-access`` on the first master for the VIM vnfm registers. The steps
that change a VM are recorded in the hook's work once done, so a retried
hook does not run them again (and the script skips what it finds done);
``join-info`` and ``vim-access`` run every time (a join token expires).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from vnfm.clients import ssh
from vnfm.common import exceptions
from vnfm.drivers.mgmt.kubernetes_cluster import nodes
from vnfm.drivers.mgmt.kubernetes_cluster import script
from vnfm.drivers.mgmt.kubernetes_cluster import sessions
from vnfm.drivers.mgmt.kubernetes_cluster import vim
from vnfm.drivers.package_files import PackageFiles
from vnfm.objects import k8s_cluster

_DONE_KEY = 'install_done'
#: Seconds each action took, by ``action@VM``.
_SECONDS_KEY = 'script_seconds'
#: Actions that change a VM: run once per VM per operation.
_ONCE = frozenset(
    {'reset', 'prepare', 'init-master', 'join-master', 'join-worker'}
)


def read_script(
    package: PackageFiles, params: k8s_cluster.ClusterParams
) -> bytes:
    """The install script of the package; OperationFailed naming
    ``script_path`` when the package has no such file."""
    if params.script_path not in package:
        raise exceptions.OperationFailed(
            f'additionalParams/{k8s_cluster.PARAM}/script_path: the VNF '
            f'package has no file {params.script_path}.'
        )
    return package.read(params.script_path)


def where(node: nodes.VmNode) -> str:
    """A VM as errors name it."""
    return f'{node.role} VNFC {node.vnfc_id} ({node.ssh_address})'


class Installer:
    """The install steps of one hook over its sessions."""

    def __init__(
        self,
        params: k8s_cluster.ClusterParams,
        vms: sessions.Sessions,
        install_script: bytes,
        work: dict[str, Any],
        save_work: Callable[[], None],
        timeout: Callable[[], float],
    ) -> None:
        self.params = params
        self.vms = vms
        self.script = install_script
        self.work = work
        self.save_work = save_work
        self.timeout = timeout  # seconds left for one step
        self._runners: dict[str, script.ScriptRunner] = {}

    def _runner(self, node: nodes.VmNode) -> script.ScriptRunner:
        runner = self._runners.get(node.vnfc_id)
        if runner is None:
            runner = script.ScriptRunner(
                self.vms.open(node), self.script, where(node)
            )
            self._runners[node.vnfc_id] = runner
        return runner

    def run(
        self,
        node: nodes.VmNode,
        action: str,
        endpoint: str,
        join: dict[str, str] | None = None,
    ) -> dict[str, str]:
        """Run ``action`` on ``node`` unless this operation did already."""
        done = self.work.setdefault(_DONE_KEY, [])
        key = f'{action}@{node.resource_id or node.vnfc_id}'
        if key in done:
            return {}
        config = script.node_config(
            self.params, node.node_address, endpoint, join
        )
        config['NODE_NAME'] = nodes.node_name(node)
        try:
            runner = self._runner(node)
        except ssh.SshError as e:
            # The login failed: say which VM and for which step.
            raise type(e)(
                f'install script {action} on {where(node)}: {e}'
            ) from None
        began = time.monotonic()
        results = runner.run(action, config, self.timeout())
        # Kept with the op (operators and bench/k8s_cluster.py read it).
        self.work.setdefault(_SECONDS_KEY, {})[key] = round(
            time.monotonic() - began, 3
        )
        if action in _ONCE:
            done.append(key)
            self.save_work()
        return results

    def install(
        self, cluster: list[nodes.VmNode], endpoint: str
    ) -> vim.ClusterAccess:
        """Build the cluster on ``cluster`` (masters first); its access."""
        masters = [n for n in cluster if n.role == nodes.MASTER]
        workers = [n for n in cluster if n.role == nodes.WORKER]
        for node in cluster:
            self.run(node, 'prepare', endpoint)
        first = masters[0]
        self.run(first, 'init-master', endpoint)
        self.join(first, masters[1:] + workers, endpoint)
        results = self.run(first, 'vim-access', endpoint)
        return vim.access_from(results, where(first))

    def join(
        self,
        master: nodes.VmNode,
        joining: list[nodes.VmNode],
        endpoint: str,
    ) -> None:
        """Join ``joining`` to the cluster of ``master``."""
        if not joining:
            return
        join = self.run(master, 'join-info', endpoint)
        for node in joining:
            action = (
                'join-master' if node.role == nodes.MASTER else ('join-worker')
            )
            self.run(node, action, endpoint, join)

    def close(self) -> None:
        """Remove the script from every VM it was copied to."""
        for runner in self._runners.values():
            runner.close()
        self._runners.clear()
