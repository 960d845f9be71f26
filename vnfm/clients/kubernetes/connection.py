"""A Kubernetes API connection built from a VIM's vimConnectionInfo.

vimConnectionInfo (vimType ``ETSINFV.KUBERNETES.V_1``) fields used:

* ``interfaceInfo.endpoint``: ``https://host:port`` of the API server.
* ``interfaceInfo.ssl_ca_cert``: PEM text of the CA that signs the API
  server's certificate. Without it the system trust store is used: TLS is
  always verified. ``interfaceInfo.skip_tls_verify: true`` (a boolean, or the
  string ``"true"``) is the only way to turn verification off, and the only
  way to use an ``http://`` endpoint.
* ``accessInfo.bearer_token``, or ``accessInfo.username`` + ``password``, or
  ``accessInfo.client_cert`` + ``client_key`` (PEM text).

Every request carries a timeout from ``[kubernetes]``, and its connection
answers to the call scopes in force (``deadlines``: ``KubeClient.call``
bounds each call in all); ``requests`` counts the HTTP requests made
(discovery included), for benchmarks.

Connections obey the outbound policy given (``outbound.for_vims()``): the
address connected to, after DNS, must be one it permits; a refusal raises
``outbound.Refused`` before any byte is sent.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import tempfile
import threading
from typing import Any

from kubernetes import client as k8s_client

from vnfm.clients import bounded
from vnfm.clients import outbound
from vnfm.clients.kubernetes.errors import BadVimConnection
from vnfm.conf import CONF

VIM_TYPE = 'ETSINFV.KUBERNETES.V_1'

_discovery_dir_lock = threading.Lock()
_discovery_dir: str | None = None


class CountingApiClient(k8s_client.ApiClient):
    """An ApiClient that counts requests, gives each a default timeout and
    connects only where ``policy`` permits."""

    def __init__(
        self,
        configuration: k8s_client.Configuration,
        timeout: tuple[float, float],
        policy: outbound.Policy,
    ) -> None:
        super().__init__(configuration)
        manager = self.rest_client.pool_manager
        manager.pool_classes_by_scheme = outbound.pool_classes(policy)
        bounded.guard(manager)
        self.default_timeout = timeout
        self.requests = 0
        self._count_lock = threading.Lock()

    def call_api(
        self,
        method: str,
        url: str,
        header_params: Any = None,
        body: Any = None,
        post_params: Any = None,
        _request_timeout: Any = None,
    ) -> Any:
        """Make one HTTP request (counted), by default with a timeout."""
        with self._count_lock:
            self.requests += 1
        return super().call_api(
            method,
            url,
            header_params=header_params,
            body=body,
            post_params=post_params,
            _request_timeout=_request_timeout or self.default_timeout,
        )


def _flag(value: Any) -> bool:
    return value is True or (
        isinstance(value, str) and value.strip().lower() == 'true'
    )


def _private_file(data: str, suffix: str) -> str:
    """Write ``data`` to a new file only this user can read."""
    fd, path = tempfile.mkstemp(prefix='vnfm-k8s-', suffix=suffix)
    with os.fdopen(fd, 'w') as f:
        f.write(data)
    return path


def discovery_cache_file(endpoint: str) -> str:
    """Discovery cache file of ``endpoint``, in a private directory."""
    global _discovery_dir
    with _discovery_dir_lock:
        if _discovery_dir is None:
            # mkdtemp gives 0700: another local user cannot plant a cache.
            _discovery_dir = tempfile.mkdtemp(prefix='vnfm-k8s-discovery-')
    digest = hashlib.sha256(endpoint.encode()).hexdigest()[:32]
    return os.path.join(_discovery_dir, f'{digest}.json')


class Connection:
    """Configuration and ApiClient of one VIM, connecting only to the
    addresses ``policy`` permits (``outbound.for_vims()``)."""

    def __init__(self, vim: dict[str, Any], policy: outbound.Policy) -> None:
        iface = vim.get('interfaceInfo') or {}
        access = vim.get('accessInfo') or {}
        self.endpoint = str(iface.get('endpoint') or '').rstrip('/')
        self.skip_tls_verify = _flag(iface.get('skip_tls_verify'))
        self._files: list[str] = []
        if not self.endpoint.startswith(('https://', 'http://')):
            raise BadVimConnection(
                'vimConnectionInfo.interfaceInfo.endpoint must be the '
                'https:// URL of the Kubernetes API server '
                f'(got {self.endpoint!r}).'
            )
        if self.endpoint.startswith('http://') and not self.skip_tls_verify:
            raise BadVimConnection(
                f'Kubernetes endpoint {self.endpoint} is plain http; use '
                'https, or set interfaceInfo.skip_tls_verify: true to allow '
                'it.'
            )
        conf = k8s_client.Configuration()
        conf.host = self.endpoint
        conf.verify_ssl = not self.skip_tls_verify
        if iface.get('ssl_ca_cert') and not self.skip_tls_verify:
            conf.ca_cert_data = str(iface['ssl_ca_cert'])
        conf.retries = 1
        authorization = self._credentials(conf, access)
        timeout = (
            CONF.kubernetes.connect_timeout,
            CONF.kubernetes.request_timeout,
        )
        self.api_client = CountingApiClient(conf, timeout, policy)
        if authorization:
            self.api_client.set_default_header('Authorization', authorization)

    def _credentials(
        self, conf: k8s_client.Configuration, access: dict[str, Any]
    ) -> str | None:
        """Authorization header of accessInfo (or client cert files)."""
        if access.get('bearer_token'):
            return f'Bearer {access["bearer_token"]}'
        if access.get('username') and access.get('password') is not None:
            pair = f'{access["username"]}:{access["password"]}'.encode()
            return 'Basic ' + base64.b64encode(pair).decode()
        if access.get('client_cert') and access.get('client_key'):
            conf.cert_file = self._keep(
                _private_file(access['client_cert'], '.crt')
            )
            conf.key_file = self._keep(
                _private_file(access['client_key'], '.key')
            )
            return None
        raise BadVimConnection(
            'vimConnectionInfo.accessInfo needs bearer_token, username and '
            'password, or client_cert and client_key for Kubernetes.'
        )

    def _keep(self, path: str) -> str:
        self._files.append(path)
        return path

    @property
    def requests(self) -> int:
        """HTTP requests made so far."""
        return self.api_client.requests

    def close(self) -> None:
        """Close the connection pool and remove private key files."""
        self.api_client.close()
        for path in self._files:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
        self._files.clear()
