"""The master side of ``vnfm_testbed.vmk8s``: the control plane on the
VM's address, cluster-info, join information, vnfm's access."""

from __future__ import annotations

import base64
import json
import socket
import subprocess  # nosec B404 - kubectl: fixed argv
import sys
import time
from pathlib import Path

import yaml

from vnfm_testbed.k8s import daemons
from vnfm_testbed.k8s.cluster import LocalCluster
from vnfm_testbed.vmk8s_base import API_PORT
from vnfm_testbed.vmk8s_base import CLUSTER_INFO
from vnfm_testbed.vmk8s_base import JOIN_USER
from vnfm_testbed.vmk8s_base import STATE
from vnfm_testbed.vmk8s_base import WAIT_SECONDS
from vnfm_testbed.vmk8s_base import ActionFailed
from vnfm_testbed.vmk8s_base import ca_cert_hash
from vnfm_testbed.vmk8s_base import log
from vnfm_testbed.vmk8s_base import require


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


def running_master() -> VmControlPlane | None:
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


def master() -> VmControlPlane:
    plane = running_master()
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
    status, text = plane.request('PUT', CLUSTER_INFO, body)
    if status == 404:
        status, text = plane.request(
            'POST', CLUSTER_INFO.rsplit('/', 1)[0], body
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


def init_master(config: dict[str, str]) -> None:
    """Start the control plane unless it runs; publish cluster-info."""
    require(config, 'init-master', 'NODE_IP', 'CLUSTER_ENDPOINT')
    plane = running_master()
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
    _write_admin_conf(plane)


#: Where kubeadm leaves the admin's kubeconfig (the driver's kubectl on a
#: master registers the storage server's PVs with it).
ADMIN_CONF = Path('/etc/kubernetes/admin.conf')


def _write_admin_conf(plane: VmControlPlane) -> None:
    """The admin kubeconfig (loopback API server) at ADMIN_CONF, root's
    only, as kubeadm init leaves it."""
    ADMIN_CONF.parent.mkdir(parents=True, exist_ok=True)
    tmp = ADMIN_CONF.with_suffix('.tmp')
    tmp.touch(mode=0o600)
    tmp.write_bytes(plane.kubeconfig_path.read_bytes())
    tmp.replace(ADMIN_CONF)


def join_info(config: dict[str, str]) -> dict[str, str]:
    """The token and CA hash workers join with."""
    plane = master()
    return {
        'JOIN_TOKEN': plane.user_token(JOIN_USER),
        'CA_CERT_HASH': ca_cert_hash(plane.ca_cert_path.read_bytes()),
    }


#: The production script, whose service account and role vnfm gets here too.
PRODUCTION_SCRIPT = (
    Path(__file__).resolve().parents[1]
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
    plane = master()
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
