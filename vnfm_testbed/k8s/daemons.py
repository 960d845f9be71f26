"""Command lines of the daemons of a local cluster (etcd, kube-*, kubelet)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from vnfm_testbed.k8s.k8sbuild import K8sBinaries

SERVICE_CIDR = '10.96.0.0/16'
SA_ISSUER = 'https://kubernetes.default.svc.cluster.local'
# Off: the metrics/health ports would clash between clusters on one host.
_NO_EXTRA_PORTS = ['--port=0', '--secure-port=0', '--profiling=false']


@dataclass(frozen=True)
class Layout:
    """Where one cluster's files are, and the ports it listens on."""

    state_dir: Path
    etcd_port: int
    etcd_peer_port: int
    apiserver_port: int
    #: The address the API server advertises (a VM's, for a cluster in a
    #: local cloud VM) and the one it listens on.
    apiserver_address: str = '127.0.0.1'
    bind_address: str = '127.0.0.1'

    @property
    def pki(self) -> Path:
        """Directory of the CA, serving cert and service-account keys."""
        return self.state_dir / 'pki'

    @property
    def etcd_url(self) -> str:
        """Client URL of etcd."""
        return f'http://127.0.0.1:{self.etcd_port}'


def etcd(bins: K8sBinaries, lay: Layout) -> list[str]:
    """etcd on loopback, data in the state directory."""
    peer = f'http://127.0.0.1:{lay.etcd_peer_port}'
    return [
        str(bins.etcd),
        '--name=default',
        f'--data-dir={lay.state_dir / "etcd"}',
        f'--listen-client-urls={lay.etcd_url}',
        f'--advertise-client-urls={lay.etcd_url}',
        f'--listen-peer-urls={peer}',
        f'--initial-advertise-peer-urls={peer}',
        f'--initial-cluster=default={peer}',
        '--log-level=warn',
        '--logger=zap',
    ]


def apiserver(bins: K8sBinaries, lay: Layout) -> list[str]:
    """kube-apiserver: TLS, static tokens, RBAC, service-account tokens."""
    pki = lay.pki
    return [
        str(bins.path('kube-apiserver')),
        f'--etcd-servers={lay.etcd_url}',
        f'--bind-address={lay.bind_address}',
        f'--advertise-address={lay.apiserver_address}',
        f'--secure-port={lay.apiserver_port}',
        '--insecure-port=0',
        f'--cert-dir={pki}',
        f'--tls-cert-file={pki / "apiserver.crt"}',
        f'--tls-private-key-file={pki / "apiserver.key"}',
        f'--client-ca-file={pki / "ca.crt"}',
        f'--token-auth-file={lay.state_dir / "tokens.csv"}',
        '--authorization-mode=Node,RBAC',
        f'--service-account-key-file={pki / "sa.pub"}',
        f'--service-account-signing-key-file={pki / "sa.key"}',
        f'--service-account-issuer={SA_ISSUER}',
        f'--service-cluster-ip-range={SERVICE_CIDR}',
        # Endpoints may not hold loopback addresses; nothing needs it.
        '--endpoint-reconciler-type=none',
        '--allow-privileged=true',
        '--profiling=false',
        '--v=1',
    ]


def controller_manager(bins: K8sBinaries, lay: Layout) -> list[str]:
    """kube-controller-manager with every controller but node lifecycle."""
    pki = lay.pki
    return [
        str(bins.path('kube-controller-manager')),
        f'--kubeconfig={lay.state_dir / "cm.kubeconfig"}',
        # No kubelet sends the heartbeats node lifecycle expects.
        '--controllers=*,-nodelifecycle',
        # One identity for all controllers: per-controller credentials
        # add seconds to the start-up (a token round-trip per controller).
        '--use-service-account-credentials=false',
        f'--service-account-private-key-file={pki / "sa.key"}',
        f'--root-ca-file={pki / "ca.crt"}',
        f'--cluster-signing-cert-file={pki / "ca.crt"}',
        f'--cluster-signing-key-file={pki / "ca.key"}',
        f'--service-cluster-ip-range={SERVICE_CIDR}',
        '--leader-elect=false',
        *_NO_EXTRA_PORTS,
        '--v=1',
    ]


def scheduler(bins: K8sBinaries, lay: Layout) -> list[str]:
    """kube-scheduler with its own kubeconfig."""
    return [
        str(bins.path('kube-scheduler')),
        f'--kubeconfig={lay.state_dir / "scheduler.kubeconfig"}',
        '--leader-elect=false',
        *_NO_EXTRA_PORTS,
        '--v=1',
    ]


def kubelet(
    lay: Layout, nodes: int, prefix: str, delay: float, failing: str
) -> list[str]:
    """The simulated kubelet, run by this very Python."""
    return [
        sys.executable,
        '-m',
        'vnfm_testbed.k8s.kubelet',
        f'--kubeconfig={lay.state_dir / "kubelet.kubeconfig"}',
        f'--nodes={nodes}',
        f'--node-prefix={prefix}',
        f'--ready-delay={delay}',
        f'--failing-images={failing}',
    ]


def python_env() -> dict[str, str]:
    """Environment in which ``python -m vnfm_testbed.k8s.kubelet`` runs."""
    root = str(Path(__file__).resolve().parents[2])
    path = os.environ.get('PYTHONPATH')
    return {
        **os.environ,
        'PYTHONPATH': f'{root}{os.pathsep}{path}' if path else root,
    }
