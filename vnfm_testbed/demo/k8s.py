"""The Kubernetes side of the demo: a local control plane to register as a
VIM with ``openstack vim register``, and the CNF sample's requests.

Usage (``vnfm-demo --vim kubernetes``)::

    with DemoCluster(state_dir / 'k8s') as k8s:        # ~10-20 s to start
        vim_yaml = k8s.write_vim_yaml(state_dir / 'vim.yaml')
        # openstack vim register --config-file vim_yaml --is-default demo-k8s
        ns = k8s.create_namespace('vnfm-demo')
        body = cnf_instantiate_request(ns, vim_id)     # for vnflcm instantiate
        print(k8s.kubectl('get', 'all', '-n', ns))

vnfm-all must load the driver: ``[infra] enabled_infra_drivers =
noop,kubernetes``. ``unavailable()`` says why the demo cannot use Kubernetes
here (binaries missing and not buildable), so it can fall back to noop.
"""

from __future__ import annotations

import subprocess  # nosec B404 - kubectl of the local cluster
from pathlib import Path
from typing import Any

import yaml

from vnfm_testbed.k8s import k8sbuild
from vnfm_testbed.k8s.cluster import ClusterError
from vnfm_testbed.k8s.cluster import LocalCluster

__all__ = [
    'ClusterError',
    'DemoCluster',
    'binaries_cached',
    'cnf_change_vnfpkg_request',
    'cnf_instantiate_request',
    'unavailable',
]

#: Manifests of samples/packages/cnf_simple, in apply order.
CNF_DEF_FILES = [
    f'Files/kubernetes/{n}.yaml'
    for n in ('configmap', 'secret', 'service', 'deployment', 'pod')
]
CNF_VNFD_ID = '7c2a4d1e-3b5f-4e8a-9c61-2f0d8e4b5a10'
CNF_V2_VNFD_ID = '9afa3b6e-985e-48e9-8765-0acabb06cd17'
KUBERNETES_VIM_TYPE = 'ETSINFV.KUBERNETES.V_1'


def binaries_cached() -> bool:
    """Whether the Kubernetes binaries are built already (else the first
    start builds them, which takes minutes)."""
    return k8sbuild.cached() is not None


def unavailable() -> str | None:
    """Why the local control plane cannot run here; None if it can (the
    binaries are cached, or built now by tools/build-k8s.sh)."""
    try:
        k8sbuild.ensure_built()
    except k8sbuild.BuildUnavailable as e:
        return str(e)
    return None


class DemoCluster:
    """A LocalCluster for the demo: start, describe as a VIM, stop."""

    def __init__(
        self,
        state_dir: str | Path,
        pod_ready_delay: float = 0.2,
        die_with_parent: bool = True,
    ) -> None:
        self.cluster = LocalCluster(
            state_dir,
            nodes=2,
            pod_ready_delay=pod_ready_delay,
            name='vnfmdemo',
            die_with_parent=die_with_parent,
        )

    def start(self, timeout: float = 120.0) -> DemoCluster:
        """Start the control plane and the simulated kubelet."""
        self.cluster.start(timeout=timeout)
        return self

    def stop(self) -> None:
        """Stop every daemon of the cluster."""
        self.cluster.stop()

    def __enter__(self) -> DemoCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def endpoint(self) -> str:
        """HTTPS URL of the API server."""
        return self.cluster.endpoint

    def vim_config(self) -> dict[str, Any]:
        """What ``openstack vim register --config-file`` takes (Tacker's
        Kubernetes vim.yaml); the bearer token is a secret."""
        return {
            'auth_url': self.cluster.endpoint,
            'bearer_token': self.cluster.admin_token,
            'ssl_ca_cert': self.cluster.ca_cert_path.read_text(),
            'project_name': 'default',
            'type': 'kubernetes',
        }

    def write_vim_yaml(self, path: str | Path) -> Path:
        """Write ``vim_config()`` as a private YAML file; its path."""
        path = Path(path)
        path.touch(mode=0o600)
        path.chmod(0o600)  # also when it existed already
        path.write_text(yaml.safe_dump(self.vim_config()))
        return path

    def kubectl_argv(self, *args: str) -> list[str]:
        """The command line of ``kubectl <args>`` on this cluster (to print
        or run)."""
        return [
            str(self.cluster.kubectl),
            '--kubeconfig',
            str(self.cluster.kubeconfig_path),
            *args,
        ]

    def kubectl(self, *args: str, timeout: float = 60.0) -> str:
        """Run ``kubectl <args>``; its stdout (RuntimeError on failure)."""
        proc = subprocess.run(  # nosec B603 - fixed argv, no shell
            self.kubectl_argv(*args),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if proc.returncode:
            raise RuntimeError(
                f'kubectl {" ".join(args)}: {proc.stderr.strip()}'
            )
        return proc.stdout

    def create_namespace(self, name: str, timeout: float = 30.0) -> str:
        """Create namespace ``name`` and wait until Pods can run in it."""
        return self.cluster.create_namespace(name, timeout)


def cnf_instantiate_request(
    namespace: str,
    vim_id: str | None = None,
    flavour_id: str = 'simple',
    def_files: list[str] | None = None,
) -> dict[str, Any]:
    """InstantiateVnfRequest of ``flavour_id`` with ``def_files`` (default:
    samples/packages/cnf_simple's) into ``namespace``; on registered VIM
    ``vim_id`` (None: the default VIM)."""
    body: dict[str, Any] = {
        'flavourId': flavour_id,
        'additionalParams': {
            'lcm-kubernetes-def-files': def_files or CNF_DEF_FILES,
            'namespace': namespace,
        },
    }
    if vim_id:
        body['vimConnectionInfo'] = {
            'vim1': {'vimId': vim_id, 'vimType': KUBERNETES_VIM_TYPE}
        }
    return body


def cnf_change_vnfpkg_request() -> dict[str, Any]:
    """ChangeCurrentVnfPkgRequest to samples/packages/cnf_simple_v2."""
    return {
        'vnfdId': CNF_V2_VNFD_ID,
        'additionalParams': {
            'upgrade_type': 'RollingUpdate',
            'lcm-kubernetes-def-files': CNF_DEF_FILES,
        },
    }
