"""Kubernetes inside the local cloud's VMs: the actions of the test cluster
package's install script (``samples/packages/vm_k8s_cluster``).

``python -m vnfm.testing.vmk8s ACTION CONFIG`` runs as root inside a VM
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

import base64
import hashlib
import json
import os
import shutil
import socket
import ssl
import subprocess  # nosec B404 - kubectl: fixed argv
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import yaml
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from vnfm.drivers.mgmt.kubernetes_cluster.script import CONFIG_KEYS
from vnfm.testing import clusterfiles
from vnfm.testing import daemons
from vnfm.testing import k8sbuild
from vnfm.testing import kubelet as simkubelet
from vnfm.testing import procs
from vnfm.testing.cluster import ClusterError
from vnfm.testing.cluster import LocalCluster

STATE = Path('/var/lib/vnfm-localk8s')
API_PORT = 6443
#: The static user whose token joins workers (the simulated kubelet's).
JOIN_USER = 'vnfm-sim-kubelet'
WAIT_SECONDS = 240.0
#: A directory whose files name actions to fail once (tests of retry).
FAIL_DIR_ENV = 'VNFM_VMK8S_FAIL_DIR'
_CLUSTER_INFO = '/api/v1/namespaces/kube-public/configmaps/cluster-info'


class ActionFailed(Exception):
    """An action cannot complete; its message says why."""


def log(message: str) -> None:
    """Progress on stderr (stdout carries the results)."""
    print(f'vmk8s: {message}', file=sys.stderr, flush=True)


def read_config(path: Path) -> dict[str, str]:
    """The ``KEY=VALUE`` lines of the driver's config file."""
    values = dict.fromkeys(CONFIG_KEYS, '')
    for line in path.read_text().splitlines():
        if not line or line.startswith('#'):
            continue
        key, sep, value = line.partition('=')
        if not sep or key not in CONFIG_KEYS:
            raise ActionFailed(f'config line with unknown key {key!r}')
        values[key] = value
    values['NODE_NAME'] = values['NODE_NAME'] or socket.gethostname()
    return values


def require(config: dict[str, str], action: str, *keys: str) -> None:
    """ActionFailed naming the keys ``action`` needs and lacks."""
    missing = [k for k in keys if not config.get(k)]
    if missing:
        raise ActionFailed(
            f'{action} needs {", ".join(missing)} in the config'
        )


def ca_cert_hash(ca_pem: bytes) -> str:
    """``sha256:<hex>`` of the CA's public key, as kubeadm pins it."""
    cert = x509.load_pem_x509_certificate(ca_pem)
    der = cert.public_key().public_bytes(
        serialization.Encoding.DER,
        serialization.PublicFormat.SubjectPublicKeyInfo,
    )
    return 'sha256:' + hashlib.sha256(der).hexdigest()


class VmControlPlane(LocalCluster):
    """The local control plane on a VM's address, fixed ports, no kubelet."""

    def __init__(
        self,
        state_dir: str | Path = STATE / 'master',
        nodes: int = 0,
        name: str = 'vmcluster',
        node_ip: str = '127.0.0.1',
        extra_names: tuple[str, ...] = (),
    ) -> None:
        super().__init__(state_dir, nodes=0, name=name)
        self.node_ip = node_ip
        self.extra_names = extra_names

    def _choose_ports(self) -> dict[str, int]:
        # The VM has its own network namespace: the usual ports are free.
        return {'etcd': 2379, 'etcd_peer': 2380, 'apiserver': API_PORT}

    def _serving_names(self) -> list[str]:
        return [self.node_ip, *self.extra_names]

    def _apiserver_addresses(self) -> dict[str, str]:
        return {
            'apiserver_address': self.node_ip,
            'bind_address': '0.0.0.0',  # noqa: S104 - the VM's own addresses
        }

    def _start_scheduler_and_kubelet(self) -> None:
        # The workers' kubelets join later (join-worker).
        bins = self.binaries
        assert bins is not None
        self._spawn('kube-scheduler', daemons.scheduler(bins, self._layout()))


def _running_master() -> VmControlPlane | None:
    state = STATE / 'master'
    if not (state / 'state.json').exists():
        return None
    plane = VmControlPlane.load(state)
    assert isinstance(plane, VmControlPlane)  # load() makes a cls
    if plane.running() and plane.get('/readyz')[0] == 200:
        return plane
    log('a control plane that is not running any more: stopped')
    plane.stop()
    return None


def _master() -> VmControlPlane:
    plane = _running_master()
    if plane is None:
        raise ActionFailed(
            f'no running control plane on {socket.gethostname()}'
        )
    return plane


def _ok(status: int, body: bytes, what: str, allowed: tuple = ()) -> None:
    if status not in (200, 201, *allowed):
        raise ActionFailed(f'{what}: HTTP {status} {body[:300]!r}')


def _publish_cluster_info(plane: VmControlPlane, endpoint: str) -> None:
    """``kube-public/cluster-info`` with the CA, readable anonymously."""
    ca = plane.ca_cert_path.read_bytes()
    kubeconfig = {
        'apiVersion': 'v1',
        'kind': 'Config',
        'clusters': [
            {
                'name': '',
                'cluster': {
                    'server': f'https://{endpoint}',
                    'certificate-authority-data': base64.b64encode(
                        ca
                    ).decode(),
                },
            }
        ],
    }
    body = {
        'metadata': {'name': 'cluster-info', 'namespace': 'kube-public'},
        'data': {'kubeconfig': yaml.safe_dump(kubeconfig)},
    }
    status, text = plane.request('PUT', _CLUSTER_INFO, body)
    if status == 404:
        status, text = plane.request(
            'POST', _CLUSTER_INFO.rsplit('/', 1)[0], body
        )
    _ok(status, text, 'publishing cluster-info')
    rbac = '/apis/rbac.authorization.k8s.io/v1/namespaces/kube-public'
    role = {
        'metadata': {'name': 'vnfm:cluster-info'},
        'rules': [
            {
                'apiGroups': [''],
                'resources': ['configmaps'],
                'resourceNames': ['cluster-info'],
                'verbs': ['get'],
            }
        ],
    }
    binding = {
        'metadata': {'name': 'vnfm:cluster-info'},
        'roleRef': {
            'apiGroup': 'rbac.authorization.k8s.io',
            'kind': 'Role',
            'name': 'vnfm:cluster-info',
        },
        'subjects': [
            {
                'apiGroup': 'rbac.authorization.k8s.io',
                'kind': 'Group',
                'name': 'system:unauthenticated',
            }
        ],
    }
    for kind, obj in (('roles', role), ('rolebindings', binding)):
        status, text = plane.request('POST', f'{rbac}/{kind}', obj)
        _ok(status, text, f'creating the cluster-info {kind}', (409,))


def prepare(config: dict[str, str]) -> None:
    """Check that the VM sees what the other actions run."""
    if k8sbuild.cached() is None:
        raise ActionFailed(
            f'the Kubernetes binaries are not in {k8sbuild.cache_dir()} '
            '(tools/build-k8s.sh builds them on the host)'
        )
    STATE.mkdir(parents=True, exist_ok=True)
    log(f'{config["NODE_NAME"]}: binaries found, {STATE} ready')


def init_master(config: dict[str, str]) -> None:
    """Start the control plane unless it runs; publish cluster-info."""
    require(config, 'init-master', 'NODE_IP', 'CLUSTER_ENDPOINT')
    plane = _running_master()
    if plane is not None:
        log('the control plane runs already: start skipped')
    else:
        host = config['CLUSTER_ENDPOINT'].rsplit(':', 1)[0]
        extra = [host, *filter(None, config['CLUSTER_EXTRA_SANS'].split(','))]
        plane = VmControlPlane(
            node_ip=config['NODE_IP'], extra_names=tuple(extra)
        )
        log(f'starting the control plane on {config["NODE_IP"]}')
        plane.start(timeout=WAIT_SECONDS)
    _publish_cluster_info(plane, config['CLUSTER_ENDPOINT'])


def join_info(config: dict[str, str]) -> dict[str, str]:
    """The token and CA hash workers join with."""
    plane = _master()
    return {
        'JOIN_TOKEN': plane.user_token(JOIN_USER),
        'CA_CERT_HASH': ca_cert_hash(plane.ca_cert_path.read_bytes()),
    }


def _discover_ca(endpoint: str, pinned: str) -> bytes:
    """The cluster CA from cluster-info, fetched before it can be trusted
    and then held to the pinned hash (kubeadm's discovery)."""
    unverified = ssl.create_default_context()
    unverified.check_hostname = False
    unverified.verify_mode = ssl.CERT_NONE  # checked by the hash below
    url = f'https://{endpoint}{_CLUSTER_INFO}'
    with urllib.request.urlopen(url, context=unverified, timeout=10) as resp:  # noqa: S310 # nosec B310
        info = json.loads(resp.read())
    kubeconfig = yaml.safe_load(info['data']['kubeconfig'])
    cluster = kubeconfig['clusters'][0]['cluster']
    ca = base64.b64decode(cluster['certificate-authority-data'])
    if ca_cert_hash(ca) != pinned:
        raise ActionFailed(
            f'the CA of {endpoint} does not match CA_CERT_HASH: refused'
        )
    return ca


def _get(endpoint: str, ca: Path, token: str, path: str) -> Any:
    ctx = ssl.create_default_context(cafile=str(ca))
    req = urllib.request.Request(
        f'https://{endpoint}{path}',
        headers={'Authorization': f'Bearer {token}'},
    )
    with urllib.request.urlopen(req, context=ctx, timeout=10) as resp:  # noqa: S310 # nosec B310
        return json.loads(resp.read())


def _node_ready(endpoint: str, ca: Path, token: str, name: str) -> bool:
    try:
        node = _get(endpoint, ca, token, f'/api/v1/nodes/{name}')
    except (urllib.error.URLError, OSError):
        return False
    return any(
        c.get('type') == 'Ready' and c.get('status') == 'True'
        for c in (node.get('status') or {}).get('conditions') or []
    )


def _kubelet_running(state: Path) -> bool:
    try:
        pid, start = json.loads((state / 'kubelet.json').read_text())
    except (OSError, ValueError):
        return False
    return procs.Proc(pid, start).alive()


def join_worker(config: dict[str, str]) -> None:
    """Start the simulated kubelet of this VM; wait for its Node Ready."""
    require(
        config,
        'join-worker',
        'NODE_IP',
        'CLUSTER_ENDPOINT',
        'JOIN_TOKEN',
        'CA_CERT_HASH',
    )
    state = STATE / 'node'
    endpoint, token = config['CLUSTER_ENDPOINT'], config['JOIN_TOKEN']
    name = simkubelet.node_name_of(config['NODE_NAME'])
    ca_path = state / 'ca.crt'
    if _kubelet_running(state):
        log(f'the kubelet of {name} runs already: join skipped')
    else:
        ca = _discover_ca(endpoint, config['CA_CERT_HASH'])
        (state / 'logs').mkdir(parents=True, exist_ok=True)
        ca_path.write_bytes(ca)
        kubeconfig = state / 'kubelet.kubeconfig'
        clusterfiles.write_kubeconfig(
            kubeconfig,
            'vmcluster',
            f'https://{endpoint}',
            ca_path,
            JOIN_USER,
            token,
        )
        started = procs.Daemon(
            [
                sys.executable,
                '-m',
                'vnfm.testing.kubelet',
                f'--kubeconfig={kubeconfig}',
                f'--node-name={name}',
                f'--node-ip={config["NODE_IP"]}',
            ],
            state / 'logs' / 'kubelet.log',
            env=daemons.python_env(),
        )
        proc = started.proc
        (state / 'kubelet.json').write_text(json.dumps([proc.pid, proc.start]))
        log(f'kubelet of Node {name} started, joining {endpoint}')
    if not procs.wait_for(
        lambda: _node_ready(endpoint, ca_path, token, name),
        WAIT_SECONDS,
        interval=0.2,
    ):
        raise ActionFailed(f'Node {name} was not Ready in {WAIT_SECONDS} s')


#: The production script, whose service account and role vnfm gets here too.
PRODUCTION_SCRIPT = (
    Path(__file__).resolve().parents[2]
    / 'samples'
    / 'kubernetes_cluster'
    / 'Scripts'
    / 'install_k8s_cluster.sh'
)


def access_manifest() -> str:
    """The manifest of the production script's ``vnfm_access_manifest``
    (a service account and what it may do: deploy CNFs, drain Nodes)."""
    text = PRODUCTION_SCRIPT.read_text()
    body = text[text.index('vnfm_access_manifest() {') :]
    start = body.index("<<'EOF'\n") + len("<<'EOF'\n")
    return body[start : body.index('\nEOF\n', start) + 1]


def vim_access(config: dict[str, str]) -> dict[str, str]:
    """The service account vnfm uses; what to register as the VIM."""
    require(config, 'vim-access', 'CLUSTER_ENDPOINT')
    plane = _master()
    subprocess.run(  # noqa: S603 # nosec B603 - fixed argv
        [
            str(plane.kubectl),
            f'--kubeconfig={plane.kubeconfig_path}',
            '--request-timeout=60s',
            'apply',
            '-f',
            '-',
        ],
        input=access_manifest(),
        text=True,
        check=True,
        timeout=120,
        stdout=sys.stderr,
    )
    path = '/api/v1/namespaces/kube-system/secrets/vnfm-token'
    token = ''
    deadline = time.monotonic() + WAIT_SECONDS
    while not token:
        if time.monotonic() > deadline:
            raise ActionFailed('the token of kube-system/vnfm was not issued')
        status, body = plane.get(path)
        if status == 200:
            token = (json.loads(body).get('data') or {}).get('token', '')
        if not token:
            time.sleep(0.2)
    return {
        'SERVER': f'https://{config["CLUSTER_ENDPOINT"]}',
        'CA_CERT': base64.b64encode(plane.ca_cert_path.read_bytes()).decode(),
        'TOKEN': base64.b64decode(token).decode(),
    }


def reset(config: dict[str, str]) -> None:
    """Stop what runs here and forget the cluster."""
    plane = _running_master()
    if plane is not None:
        plane.stop()
    node = STATE / 'node'
    if _kubelet_running(node):
        pid, start = json.loads((node / 'kubelet.json').read_text())
        procs.stop_daemons([], others=[procs.Proc(pid, start)])
    shutil.rmtree(STATE, ignore_errors=True)
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
