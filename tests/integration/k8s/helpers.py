"""Polling with a deadline, and kubectl, for the local Kubernetes tests."""

from __future__ import annotations

import json
import subprocess  # nosec B404
from collections.abc import Callable
from typing import Any, TypeVar

from vnfm_testbed.k8s.cluster import LocalCluster

from ..conftest import wait_for

T = TypeVar('T')


def eventually(
    probe: Callable[[], T],
    what: str,
    timeout: float = 30.0,
    interval: float = 0.1,
) -> T:
    """Poll ``probe`` until it returns something truthy; return that value
    (``wait_for`` with a 30 s default)."""
    return wait_for(probe, timeout, what, interval)


class Kubectl:
    """The kubectl 1.20 from tools/build-k8s.sh, bound to a namespace."""

    def __init__(
        self, cluster: LocalCluster, namespace: str, token: str | None = None
    ) -> None:
        self.argv = [
            str(cluster.kubectl),
            f'--kubeconfig={cluster.kubeconfig_path}',
            '-n',
            namespace,
        ]
        if token:
            self.argv.append(f'--token={token}')

    def run(
        self, *args: str, check: bool = True, timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        """Run kubectl with ``args``; fail with its stderr if ``check``."""
        proc = subprocess.run(  # nosec B603
            [*self.argv, *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if check and proc.returncode != 0:
            raise AssertionError(
                f'kubectl {" ".join(args)} failed: {proc.stderr}'
            )
        return proc

    def __call__(self, *args: str) -> str:
        """Run kubectl and return its stdout."""
        return self.run(*args).stdout

    def json(self, *args: str) -> Any:
        """Run a kubectl command with ``-o json`` and parse the output."""
        return json.loads(self.run(*args, '-o', 'json').stdout)

    def pods(self, selector: str = '') -> list[dict[str, Any]]:
        """Pods in the namespace (optionally by label selector) as dicts."""
        args = ['get', 'pods'] + ([f'-l={selector}'] if selector else [])
        return list(self.json(*args)['items'])


def is_ready(pod: dict[str, Any]) -> bool:
    """Tell whether a Pod dict is Running, Ready and not being deleted."""
    conds = pod.get('status', {}).get('conditions') or []
    return (
        pod.get('status', {}).get('phase') == 'Running'
        and not pod['metadata'].get('deletionTimestamp')
        and any(c['type'] == 'Ready' and c['status'] == 'True' for c in conds)
    )
