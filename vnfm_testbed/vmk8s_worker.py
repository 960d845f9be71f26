"""The worker side of ``vnfm_testbed.vmk8s``: kubeadm's discovery of the
CA, the simulated kubelet of the VM."""

from __future__ import annotations

import base64
import json
import ssl
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import yaml

from vnfm_testbed import procs
from vnfm_testbed.k8s import clusterfiles
from vnfm_testbed.k8s import daemons
from vnfm_testbed.k8s import kubelet as simkubelet
from vnfm_testbed.vmk8s_base import CLUSTER_INFO
from vnfm_testbed.vmk8s_base import JOIN_USER
from vnfm_testbed.vmk8s_base import STATE
from vnfm_testbed.vmk8s_base import WAIT_SECONDS
from vnfm_testbed.vmk8s_base import ActionFailed
from vnfm_testbed.vmk8s_base import ca_cert_hash
from vnfm_testbed.vmk8s_base import log
from vnfm_testbed.vmk8s_base import require


def _discover_ca(endpoint: str, pinned: str) -> bytes:
    """The cluster CA from cluster-info, fetched before it can be trusted
    and then held to the pinned hash (kubeadm's discovery)."""
    unverified = ssl.create_default_context()
    unverified.check_hostname = False
    unverified.verify_mode = ssl.CERT_NONE  # checked by the hash below
    url = f'https://{endpoint}{CLUSTER_INFO}'
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


def kubelet_running(state: Path) -> bool:
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
    if kubelet_running(state):
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
                'vnfm_testbed.k8s.kubelet',
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


def stop_kubelet() -> None:
    """Stop the kubelet of this VM if it runs."""
    state = STATE / 'node'
    if kubelet_running(state):
        pid, start = json.loads((state / 'kubelet.json').read_text())
        procs.stop_daemons([], others=[procs.Proc(pid, start)])
