"""What the actions of ``vnfm_testbed.vmk8s`` share: paths, the config
file, errors."""

from __future__ import annotations

import hashlib
import socket
import sys
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization

from vnfm.drivers.mgmt.kubernetes_cluster.script import CONFIG_KEYS

STATE = Path('/var/lib/vnfm-localk8s')
API_PORT = 6443
#: The static user whose token joins workers (the simulated kubelet's).
JOIN_USER = 'vnfm-sim-kubelet'
WAIT_SECONDS = 240.0
#: A directory whose files name actions to fail once (tests of retry).
FAIL_DIR_ENV = 'VNFM_VMK8S_FAIL_DIR'
CLUSTER_INFO = '/api/v1/namespaces/kube-public/configmaps/cluster-info'


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
