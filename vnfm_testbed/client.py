"""Running the real client, ``openstack vnflcm|vnf package ...``
(python-tackerclient through python-openstackclient), against a vnfm-api,
the way a user would.

``--os-endpoint`` is the root of the API (``http://127.0.0.1:PORT``): with
``--os-auth-type none`` keystoneauth hands it to tackerclient, which appends
``/vnfpkgm/v1/...`` or
``/vnflcm/v{1,2}/...`` (the latter by ``--os-tacker-api-version``).
Or, with :meth:`TackerClient.with_password`, password authentication
against Keystone, the client finding vnfm in the catalog by its service
type, as a user of a real cloud runs it.
"""

from __future__ import annotations

import json
import os
import subprocess  # nosec B404 - running the client under test
import sys
from collections.abc import Sequence
from typing import Any


class ClientError(Exception):
    """The client exited non-zero; carries its output."""

    def __init__(
        self, argv: Sequence[str], returncode: int, stdout: str, stderr: str
    ) -> None:
        self.argv, self.returncode = list(argv), returncode
        self.stdout, self.stderr = stdout, stderr
        super().__init__(
            f'`{" ".join(argv)}` exited {returncode}\n'
            f'stdout: {stdout.strip()}\nstderr: {stderr.strip()}'
        )

    @property
    def output(self) -> str:
        """Everything the client printed."""
        return self.stdout + self.stderr


class TackerClient:
    """``openstack`` of this venv pointed at one vnfm-api, no auth."""

    def __init__(self, endpoint: str, timeout: float = 60.0) -> None:
        self.endpoint = endpoint
        self.timeout = timeout
        self.auth_args = ['--os-auth-type', 'none', '--os-endpoint', endpoint]
        self.executable = os.path.join(sys.prefix, 'bin', 'openstack')
        # Ambient OS_* settings (a user's cloud, tokens) must not leak in.
        self.env = {
            k: v for k, v in os.environ.items() if not k.startswith('OS_')
        }
        #: Every (argv, stdout, stderr) run, so tests can check that no
        #: output shows a secret.
        self.transcript: list[tuple[list[str], str, str]] = []

    @classmethod
    def with_password(
        cls, credentials: dict[str, str], timeout: float = 60.0
    ) -> TackerClient:
        """A client authenticating with Keystone password credentials
        (``auth_url``, ``username``, ``password``, ``project_name``...);
        it finds vnfm in the catalog. The password goes by environment:
        command lines are visible to every user of the host."""
        client = cls('', timeout)
        client.auth_args = [
            '--os-auth-url',
            credentials['auth_url'],
            '--os-username',
            credentials['username'],
            '--os-project-name',
            credentials['project_name'],
            '--os-user-domain-name',
            credentials['user_domain_name'],
            '--os-project-domain-name',
            credentials['project_domain_name'],
        ]
        client.env['OS_PASSWORD'] = credentials['password']
        return client

    def argv(
        self, args: Sequence[str], api_version: str | None = None
    ) -> list[str]:
        """The full command line for ``openstack <args>``."""
        argv = [self.executable, *self.auth_args]
        if api_version:
            argv += ['--os-tacker-api-version', api_version]
        return argv + list(args)

    def run(
        self,
        *args: str,
        api_version: str | None = None,
        timeout: float | None = None,
    ) -> str:
        """Run ``openstack <args>``; return stdout, raise ClientError on a
        non-zero exit."""
        argv = self.argv(args, api_version)
        proc = subprocess.run(  # nosec B603 - fixed argv, no shell
            argv,
            capture_output=True,
            text=True,
            env=self.env,
            timeout=timeout or self.timeout,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        self.transcript.append((argv, proc.stdout, proc.stderr))
        if proc.returncode:
            raise ClientError(argv, proc.returncode, proc.stdout, proc.stderr)
        return proc.stdout

    def json(
        self,
        *args: str,
        api_version: str | None = None,
        timeout: float | None = None,
    ) -> Any:
        """Run a show/list command with ``-f json``; return its output."""
        out = self.run(
            *args, '-f', 'json', api_version=api_version, timeout=timeout
        )
        return json.loads(out)

    def lcm(self, *args: str, timeout: float | None = None) -> str:
        """Run ``openstack vnflcm <args>`` on API v2; return stdout."""
        return self.run('vnflcm', *args, api_version='2', timeout=timeout)

    def lcm_json(self, *args: str, timeout: float | None = None) -> Any:
        """Run ``openstack vnflcm <args> -f json`` on API v2; parse it."""
        return self.json('vnflcm', *args, api_version='2', timeout=timeout)

    def pkg(self, *args: str, timeout: float | None = None) -> str:
        """Run ``openstack vnf package <args>``; return stdout."""
        return self.run('vnf', 'package', *args, timeout=timeout)

    def pkg_json(self, *args: str, timeout: float | None = None) -> Any:
        """Run ``openstack vnf package <args> -f json``; parse it."""
        return self.json('vnf', 'package', *args, timeout=timeout)

    def printed(self) -> str:
        """Everything every run printed (to check secrets never show)."""
        return '\n'.join(out + err for _, out, err in self.transcript)
