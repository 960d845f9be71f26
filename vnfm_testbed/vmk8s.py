"""Kubernetes inside the local cloud's VMs: the actions of the test cluster
package's install script (``samples/packages/vm_k8s_cluster``).

``python -m vnfm_testbed.vmk8s ACTION CONFIG`` runs as root inside a VM
(the package's script execs it with the host's vnfm Python, which the VM
sees: only /etc, /home, /root and /var are overlays, /tmp and /run its
own). The actions and the config file are those of the production script
(``samples/kubernetes_cluster/Scripts/install_k8s_cluster.sh``), so the
``kubernetes_cluster`` MgmtDriver runs the same code path for both:

- ``prepare``: the binaries tools/build-k8s.sh cached are there.
- ``init-master``: etcd, kube-apiserver (advertising ``NODE_IP``, listening
  on the VM's addresses), the controller manager and the scheduler as
  daemons of the VM; ``kube-public/cluster-info`` published with the CA,
  readable anonymously (as kubeadm does).
- ``join-info``: a join token and the CA's public key hash.
- ``join-worker``: the CA fetched from ``cluster-info`` and checked against
  the hash before the token is sent, then the simulated kubelet
  registering one Node named after the VM's host name, at ``NODE_IP``.
- ``vim-access``: the service account ``kube-system/vnfm`` with the
  production script's ClusterRole; SERVER, CA_CERT and TOKEN printed.
- ``reset``: the daemons stopped, the state removed.

Every action is idempotent: what runs already is left running. HA masters
(``join-master``) are refused: the test package has one master. A test
makes an action fail once on a VM with a file named after it in
``$VNFM_VMK8S_FAIL_DIR``.
"""

from __future__ import annotations

import os
import shutil
import subprocess  # nosec B404 - for its exception types
import sys
import urllib.error
from pathlib import Path

from vnfm_testbed.k8s import k8sbuild
from vnfm_testbed.k8s.cluster import ClusterError
from vnfm_testbed.vmk8s_base import FAIL_DIR_ENV
from vnfm_testbed.vmk8s_base import STATE
from vnfm_testbed.vmk8s_base import ActionFailed
from vnfm_testbed.vmk8s_base import ca_cert_hash
from vnfm_testbed.vmk8s_base import log
from vnfm_testbed.vmk8s_base import read_config
from vnfm_testbed.vmk8s_base import require
from vnfm_testbed.vmk8s_master import ADMIN_CONF
from vnfm_testbed.vmk8s_master import access_manifest
from vnfm_testbed.vmk8s_master import init_master
from vnfm_testbed.vmk8s_master import join_info
from vnfm_testbed.vmk8s_master import running_master
from vnfm_testbed.vmk8s_master import vim_access
from vnfm_testbed.vmk8s_worker import join_worker
from vnfm_testbed.vmk8s_worker import stop_kubelet

__all__ = [
    'FAIL_DIR_ENV',
    'STATE',
    'ActionFailed',
    'access_manifest',
    'ca_cert_hash',
    'main',
    'read_config',
    'require',
]


def prepare(config: dict[str, str]) -> None:
    """Check that the VM sees what the other actions run."""
    if k8sbuild.cached() is None:
        raise ActionFailed(
            f'the Kubernetes binaries are not in {k8sbuild.cache_dir()} '
            '(tools/build-k8s.sh builds them on the host)'
        )
    STATE.mkdir(parents=True, exist_ok=True)
    log(f'{config["NODE_NAME"]}: binaries found, {STATE} ready')


def reset(config: dict[str, str]) -> None:
    """Stop what runs here and forget the cluster."""
    plane = running_master()
    if plane is not None:
        plane.stop()
    stop_kubelet()
    shutil.rmtree(STATE, ignore_errors=True)
    ADMIN_CONF.unlink(missing_ok=True)
    log(f'{config["NODE_NAME"]}: reset')


def join_master(config: dict[str, str]) -> None:
    """Refused: the test package has one master."""
    raise ActionFailed(
        'join-master: the test package runs one master (no HA control plane)'
    )


ACTIONS = {
    'prepare': prepare,
    'init-master': init_master,
    'join-info': join_info,
    'join-master': join_master,
    'join-worker': join_worker,
    'vim-access': vim_access,
    'reset': reset,
}


def _failure_injected(action: str) -> bool:
    """Whether a test asked ``action`` to fail once on this VM: a file
    named after it in ``$VNFM_VMK8S_FAIL_DIR``, removed as it fails (the
    VM sees the host's /var/tmp through its overlay, so the removal is
    its own)."""
    directory = os.environ.get(FAIL_DIR_ENV)
    if not directory:
        return False
    marker = Path(directory) / action
    if not marker.exists():
        return False
    marker.unlink()
    return True


def main(argv: list[str] | None = None) -> int:
    """``ACTION CONFIG``: run one action, print its results."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] not in ACTIONS:
        print(f'usage: vmk8s {"|".join(ACTIONS)} CONFIG', file=sys.stderr)
        return 2
    if _failure_injected(args[0]):
        log(f'ERROR: {args[0]}: failed as the test asked ({FAIL_DIR_ENV})')
        return 1
    try:
        results = ACTIONS[args[0]](read_config(Path(args[1])))
    except (ActionFailed, ClusterError, k8sbuild.BuildUnavailable) as e:
        log(f'ERROR: {args[0]}: {e}')
        return 1
    except (OSError, subprocess.SubprocessError, urllib.error.URLError) as e:
        log(f'ERROR: {args[0]}: {type(e).__name__}: {e}')
        return 1
    for key, value in (results or {}).items():
        print(f'{key}={value}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
