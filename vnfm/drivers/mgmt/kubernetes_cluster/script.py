"""Running the package's install script on a VM, one action at a time.

The script (``script_path`` of the parameters) is copied once per session
into a private directory the VM's ``mktemp -d`` makes; each action gets a
config file of ``KEY=VALUE`` lines (mode 0600, removed after the action)
and runs as root (``Session.run(as_root=True)``: through sudo, the login
password on stdin, never on a command line). The script prints its
results as ``KEY=VALUE`` lines on stdout. Secret values (join token,
certificate key, proxy credentials, the results) are scrubbed from errors.
The contract of the actions is the sample's
(``samples/kubernetes_cluster/Scripts/install_k8s_cluster.sh``).
"""

from __future__ import annotations

import contextlib
import re
import shlex
from typing import Any

from vnfm.clients import ssh
from vnfm.common import exceptions
from vnfm.objects import k8s_cluster

#: Keys of the config file, as the script reads them.
CONFIG_KEYS = frozenset(
    {
        'NODE_IP',
        'NODE_NAME',
        'CLUSTER_ENDPOINT',
        'CLUSTER_EXTRA_SANS',
        'POD_CIDR',
        'SERVICE_CIDR',
        'HTTP_PROXY_URL',
        'HTTPS_PROXY_URL',
        'NO_PROXY_LIST',
        'K8S_NODE_CIDR',
        'JOIN_TOKEN',
        'CA_CERT_HASH',
        'CERTIFICATE_KEY',
    }
)
#: Config values never shown (proxy URLs may carry a user and password).
SECRET_CONFIG = frozenset(
    {'JOIN_TOKEN', 'CERTIFICATE_KEY', 'HTTP_PROXY_URL', 'HTTPS_PROXY_URL'}
)
#: Results never shown (the script prints them for vnfm only).
SECRET_RESULTS = frozenset({'JOIN_TOKEN', 'CERTIFICATE_KEY', 'TOKEN'})
API_PORT = 6443
_RESULT_LINE = re.compile(r'^([A-Z][A-Z0-9_]*)=(.*)$')
_SCRIPT_NAME = 'install_k8s_cluster.sh'


def render_config(values: dict[str, str]) -> str:
    """The config file of ``values`` (empty values left out); ValueError
    for an unknown key or a value the line format cannot carry."""
    lines = []
    for key in sorted(values):
        value = values[key]
        if key not in CONFIG_KEYS:
            raise ValueError(f'unknown config key {key}')
        if '\n' in value or '\r' in value or '\x00' in value:
            raise ValueError(f'config value {key} spans lines')
        if value:
            lines.append(f'{key}={value}\n')
    return ''.join(lines)


def node_config(
    params: k8s_cluster.ClusterParams,
    node_address: str,
    endpoint: str,
    join: dict[str, str] | None = None,
    extra_sans: str = '',
) -> dict[str, str]:
    """What the script needs on one node: the cluster's networks and
    endpoint, the proxy, and the join information when joining."""
    proxy = params.proxy or k8s_cluster.Proxy()
    values = {
        'NODE_IP': node_address,
        'CLUSTER_ENDPOINT': f'{endpoint}:{API_PORT}',
        'CLUSTER_EXTRA_SANS': extra_sans,
        'POD_CIDR': params.master.pod_cidr,
        'SERVICE_CIDR': params.master.cluster_cidr,
        'HTTP_PROXY_URL': proxy.http_proxy or '',
        'HTTPS_PROXY_URL': proxy.https_proxy or '',
        'NO_PROXY_LIST': proxy.no_proxy or '',
        'K8S_NODE_CIDR': proxy.k8s_node_cidr or '',
    }
    for key in ('JOIN_TOKEN', 'CA_CERT_HASH', 'CERTIFICATE_KEY'):
        values[key] = (join or {}).get(key, '')
    return values


def parse_results(stdout: str) -> dict[str, str]:
    """The ``KEY=VALUE`` lines a script printed (other lines ignored)."""
    results = {}
    for line in stdout.splitlines():
        match = _RESULT_LINE.match(line.strip())
        if match:
            results[match.group(1)] = match.group(2)
    return results


class ScriptRunner:
    """The install script on one VM, over one SSH session."""

    def __init__(
        self,
        session: ssh.Session,
        script: bytes,
        where: str,
    ) -> None:
        self.session = session
        self.script = script
        self.where = where  # e.g. 'master VNFC m1', for errors
        self._dir: str | None = None

    def _remote_dir(self) -> str:
        if self._dir is None:
            made = self.session.run(
                'umask 077 && mktemp -d /tmp/vnfm-k8s.XXXXXXXX',
                f'make a private directory on {self.where}',
            )
            self._dir = made.stdout.strip()
            self.session.put(
                self.script,
                f'{self._dir}/{_SCRIPT_NAME}',
                f'copy the install script to {self.where}',
                mode=0o700,
            )
        return self._dir

    def run(
        self, action: str, config: dict[str, str], timeout: float
    ) -> dict[str, str]:
        """Run ``action`` with ``config``; the script's results."""
        step = f'install script {action} on {self.where}'
        try:
            text = render_config(config)
        except ValueError as e:
            raise exceptions.OperationFailed(f'{step}: {e}.') from None
        self.session.hide(*(config.get(k, '') for k in SECRET_CONFIG))
        directory = self._remote_dir()
        config_path = f'{directory}/{action}.conf'
        self.session.put(text.encode(), config_path, step, mode=0o600)
        q = shlex.quote
        command = (
            f'bash {q(directory + "/" + _SCRIPT_NAME)} {q(action)} '
            f'{q(config_path)}'
        )
        try:
            result = self.session.run(
                command, step, timeout=timeout, as_root=True
            )
        finally:
            self.session.run(f'rm -f {q(config_path)}', step, check=False)
        results = parse_results(result.stdout)
        self.session.hide(*(results.get(k, '') for k in SECRET_RESULTS))
        return results

    def close(self) -> None:
        """Remove the script's directory from the VM (best effort: a VM
        that cannot be reached any more keeps it in its /tmp)."""
        if self._dir is not None:
            with contextlib.suppress(ssh.SshError):
                self.session.run(
                    f'rm -rf {shlex.quote(self._dir)}',
                    f'clean up on {self.where}',
                    check=False,
                )
            self._dir = None

    def __enter__(self) -> ScriptRunner:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
