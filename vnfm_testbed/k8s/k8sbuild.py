"""Locating the Kubernetes binaries, built once by build-k8s.sh (shipped
next to this module, so that an installed vnfm finds it; tools/build-k8s.sh
runs it from a source tree)."""

from __future__ import annotations

import json
import os
import subprocess  # nosec B404
from dataclasses import dataclass
from pathlib import Path

#: Set to 1 on a machine that cannot build Kubernetes (never in CI).
SKIP_ENV = 'VNFM_SKIP_K8S'
SERVER_BINARIES = (
    'kube-apiserver',
    'kube-controller-manager',
    'kube-scheduler',
)


class BuildUnavailable(RuntimeError):
    """The Kubernetes binaries are missing and cannot be built here."""


@dataclass(frozen=True)
class K8sBinaries:
    """Paths of the control-plane binaries, kubectl and etcd."""

    bin_dir: Path
    kubectl: Path
    etcd: Path

    def path(self, name: str) -> Path:
        """Path of one of the control-plane binaries."""
        return self.bin_dir / name


def cache_dir() -> Path:
    """Directory where tools/build-k8s.sh caches its binaries."""
    default = Path.home() / '.cache' / 'vnfm' / 'k8s-1.20.2'
    return Path(os.environ.get('VNFM_K8S_CACHE', default))


def build_script() -> Path:
    """Path of build-k8s.sh (overridable with VNFM_K8S_BUILD_SCRIPT)."""
    default = Path(__file__).resolve().with_name('build-k8s.sh')
    return Path(os.environ.get('VNFM_K8S_BUILD_SCRIPT', default))


def cached() -> K8sBinaries | None:
    """The cached binaries if they are all present, else None."""
    bin_dir = cache_dir() / 'bin'
    etcd = Path('/usr/bin/etcd')
    names = (*SERVER_BINARIES, 'kubectl')
    if all(os.access(bin_dir / n, os.X_OK) for n in names) and os.access(
        etcd, os.X_OK
    ):
        return K8sBinaries(bin_dir, bin_dir / 'kubectl', etcd)
    return None


def ensure_built(timeout: float = 3600.0) -> K8sBinaries:
    """Return the binaries, running the build script if none are cached."""
    if os.environ.get(SKIP_ENV) == '1':
        raise BuildUnavailable(
            f'{SKIP_ENV}=1: the local Kubernetes control plane is disabled'
        )
    found = cached()
    if found:
        return found
    script = build_script()
    if not script.exists():
        raise BuildUnavailable(
            f'{script} not found and no binaries cached in {cache_dir()}'
        )
    proc = subprocess.run(  # nosec B603
        ['bash', str(script)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if proc.returncode != 0:
        tail = '\n'.join(proc.stderr.splitlines()[-20:])
        raise BuildUnavailable(f'{script} failed ({proc.returncode}):\n{tail}')
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    return K8sBinaries(
        Path(info['bin_dir']), Path(info['kubectl']), Path(info['etcd'])
    )
