"""``additionalParams.k8s_cluster_installation_param``: what the
``kubernetes_cluster`` MgmtDriver needs to install Kubernetes on a VNF's VMs
(seed 002, with the names Tacker's users know).

``parse`` checks a request's additionalParams against ``SCHEMA`` and the
rules a schema cannot say (CIDRs that parse and do not overlap) and returns
the typed ``ClusterParams``; every error names the parameter by its path
under ``additionalParams``. The API calls it for an instantiate request
whose flavour names the driver (a 400: ``check_request``, which the driver
publishes in ``vnfm.mgmt_request_validators``), the driver again before it
runs
(FAILED_TEMP), where it also checks what only the instance can tell (that
the CPs exist). Passwords are sealed at rest and masked in views like every
``password`` in additionalParams (``crypto.seal_params``). The storage
server's parameters (seed 004, ``storage_server`` and
``pv_registration_params``) are in ``k8s_storage``.
"""

from __future__ import annotations

import dataclasses
import ipaddress
from collections.abc import Mapping
from typing import Any

from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.common import schemacheck
from vnfm.objects import k8s_storage
from vnfm.objects import lcm_params
from vnfm.objects import request_checks
from vnfm.objects import states

PARAM = 'k8s_cluster_installation_param'
DRIVER = 'kubernetes_cluster'
_WHERE = ('additionalParams', PARAM)
#: Default VIM name when ``vim_name`` is absent (as Tacker names it).
DEFAULT_VIM_PREFIX = 'kubernetes_vim_'

_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255}
_ERROR = schemacheck.ERROR_TEXT
_CIDR = {
    'type': 'string',
    'minLength': 3,
    'maxLength': 49,
    _ERROR: 'must be a CIDR such as 10.96.0.0/12.',
}
# Proxies reach apt.conf and systemd units on the VMs as quoted strings:
# a URL of a host and port (and user:password), no quote, no '$', no path.
_URL = {
    'type': 'string',
    'pattern': r'^https?://([A-Za-z0-9._~%!*+,=:-]+@)?'
    r'([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?/?$',
    'maxLength': 2048,
    _ERROR: 'must be an http:// or https:// URL of a proxy: '
    'http://[user:password@]host[:port].',
}
# Hosts, domains (.example, *.example), addresses and CIDRs, comma separated.
_NO_PROXY = {
    'type': 'string',
    'pattern': r'^([A-Za-z0-9.*:\[\]-]+(/[0-9]{1,3})?'
    r'(,[A-Za-z0-9.*:\[\]-]+(/[0-9]{1,3})?)*)?$',
    'maxLength': 4096,
    _ERROR: 'must be a comma-separated list of hosts, domains, addresses '
    'and CIDRs.',
}
_NODE = {
    'aspect_id': _NAME,
    'ssh_cp_name': _NAME,
    'nic_cp_name': _NAME,
    # POSIX user names as useradd accepts them.
    'username': {
        'type': 'string',
        'pattern': r'^[a-z_][a-z0-9_.-]{0,31}$',
        _ERROR: 'must be a login name (lower case letters, digits, _ . -).',
    },
    'password': {'type': 'string', 'minLength': 1, 'maxLength': 1024},
    # vnfm extension: key login instead of a password (OpenSSH/PEM text).
    'private_key': {'type': 'string', 'minLength': 1, 'maxLength': 16384},
}
_NODE_REQUIRED = ['ssh_cp_name', 'nic_cp_name', 'username']
_CREDENTIAL = {
    'allOf': [
        {
            'anyOf': [
                {'required': ['password']},
                {'required': ['private_key']},
            ],
            _ERROR: 'needs password (or private_key) to log into the VMs.',
        }
    ]
}
SCHEMA: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'script_path': lcm_params.PACKAGE_PATH,
        'vim_name': _NAME,
        'master_node': {
            'type': 'object',
            'properties': {
                **_NODE,
                'pod_cidr': _CIDR,
                'cluster_cidr': _CIDR,
                'cluster_cp_name': _NAME,
                'cluster_fip_name': _NAME,
            },
            'required': [*_NODE_REQUIRED, 'cluster_cp_name'],
            'additionalProperties': False,
            **_CREDENTIAL,
        },
        'worker_node': {
            'type': 'object',
            'properties': _NODE,
            'required': _NODE_REQUIRED,
            'additionalProperties': False,
            **_CREDENTIAL,
        },
        'proxy': {
            'type': 'object',
            'properties': {
                'http_proxy': _URL,
                'https_proxy': _URL,
                'no_proxy': _NO_PROXY,
                'k8s_node_cidr': _CIDR,
            },
            'additionalProperties': False,
        },
        # Seed 004: the storage server and the PVs on its NFS.
        'storage_server': k8s_storage.STORAGE_SCHEMA,
        'pv_registration_params': k8s_storage.PV_SCHEMA,
    },
    'required': ['script_path', 'master_node', 'worker_node'],
    'additionalProperties': False,
}
#: kubeadm's defaults when the request gives none.
DEFAULT_POD_CIDR = '192.168.0.0/16'
DEFAULT_CLUSTER_CIDR = '10.96.0.0/12'


@dataclasses.dataclass(frozen=True)
class Node:
    """How to find and log into the VMs of one role."""

    ssh_cp_name: str
    nic_cp_name: str
    username: str
    password: str | None = dataclasses.field(default=None, repr=False)
    private_key: str | None = dataclasses.field(default=None, repr=False)
    aspect_id: str | None = None


@dataclasses.dataclass(frozen=True)
class Master(Node):
    """The master nodes and the cluster's own addresses."""

    cluster_cp_name: str = ''
    cluster_fip_name: str | None = None
    pod_cidr: str = DEFAULT_POD_CIDR
    cluster_cidr: str = DEFAULT_CLUSTER_CIDR


@dataclasses.dataclass(frozen=True)
class Proxy:
    """The proxy the nodes reach the outside through."""

    http_proxy: str | None = None
    https_proxy: str | None = None
    no_proxy: str | None = None
    k8s_node_cidr: str | None = None


@dataclasses.dataclass(frozen=True)
class ClusterParams:
    """The whole ``k8s_cluster_installation_param``."""

    script_path: str
    master: Master
    worker: Node
    vim_name: str | None = None
    proxy: Proxy | None = None
    storage: k8s_storage.StorageServer | None = None
    pvs: tuple[k8s_storage.PvRegistration, ...] = ()

    def vim_name_for(self, vnf_instance_id: str) -> str:
        """The VIM name to register: ``vim_name`` or the default."""
        return self.vim_name or DEFAULT_VIM_PREFIX + vnf_instance_id

    def secrets(self) -> set[str]:
        """The credentials, to scrub from anything shown."""
        values = (
            self.master.password,
            self.master.private_key,
            self.worker.password,
            self.worker.private_key,
            self.storage.password if self.storage else None,
            self.storage.private_key if self.storage else None,
        )
        return {v for v in values if v}


def names_driver(flavour_or_vnfd: dict[str, Any]) -> bool:
    """Whether a flavour (or VNFD) dict has a hook run by this driver."""
    hooks = flavour_or_vnfd.get('interfaces') or {}
    return any(
        isinstance(h, dict) and h.get('builtin') == DRIVER
        for h in hooks.values()
    )


def parse(
    additional_params: Any,
    error: type[exceptions.VnfmError] = exceptions.BadRequest,
) -> ClusterParams:
    """The typed parameters of a request's additionalParams; ``error``
    naming the parameter when they are missing or wrong."""
    params = (additional_params or {}).get(PARAM)
    if params is None:
        raise error(
            f'additionalParams/{PARAM}: is required by the {DRIVER} '
            'MgmtDriver that the VNFD names.'
        )
    problem = schemacheck.first_error(
        SCHEMA, params, _WHERE, crypto.SECRET_KEYS
    )
    if problem is not None:
        raise error(problem)
    _check_networks(params, error)
    k8s_storage.check_rules(params, '/'.join(_WHERE), error)
    return _typed(params)


def check_request(request: request_checks.LcmRequest) -> None:
    """BadRequest naming the parameter when an instantiate request's
    parameters are missing or wrong for its flavour (the driver's
    published request validator)."""
    if request.operation is not states.LcmOperation.INSTANTIATE:
        return
    params = parse(request.body.get('additionalParams'))
    check_flavour(params, request.flavour)


def _cidr(
    value: str, where: str, error: type[exceptions.VnfmError]
) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    try:
        return ipaddress.ip_network(value, strict=False)
    except ValueError:
        raise error(
            f'{where}: {value!r} is not a CIDR (e.g. 10.96.0.0/12).'
        ) from None


def _check_networks(params: dict, error: type[exceptions.VnfmError]) -> None:
    base = '/'.join(_WHERE)
    master = params['master_node']
    nets = {
        name: _cidr(
            master.get(name, default), f'{base}/master_node/{name}', error
        )
        for name, default in (
            ('pod_cidr', DEFAULT_POD_CIDR),
            ('cluster_cidr', DEFAULT_CLUSTER_CIDR),
        )
    }
    node_cidr = (params.get('proxy') or {}).get('k8s_node_cidr')
    if node_cidr is not None:
        nets['k8s_node_cidr'] = _cidr(
            node_cidr, f'{base}/proxy/k8s_node_cidr', error
        )
    names = list(nets)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if nets[a].version == nets[b].version and nets[a].overlaps(
                nets[b]
            ):
                raise error(
                    f'{base}: {a} {nets[a]} overlaps {b} {nets[b]}; the '
                    'Pod, Service and node networks must be disjoint.'
                )


def _typed(params: dict) -> ClusterParams:
    proxy = params.get('proxy')
    return ClusterParams(
        script_path=params['script_path'],
        vim_name=params.get('vim_name'),
        master=Master(**params['master_node']),
        worker=Node(**params['worker_node']),
        proxy=Proxy(**proxy) if proxy is not None else None,
        storage=k8s_storage.typed_storage(params),
        pvs=k8s_storage.typed_pvs(params),
    )


def check_flavour(
    params: ClusterParams,
    flavour: Mapping[str, Any],
    error: type[exceptions.VnfmError] = exceptions.BadRequest,
) -> None:
    """``error`` if an ``aspect_id`` is not a scaling aspect of the
    flavour (when the flavour declares aspects), or the storage server's
    CPs and volumes are not the flavour's."""
    k8s_storage.check_flavour(
        params.storage, params.pvs, flavour, '/'.join(_WHERE), error
    )
    aspects = flavour.get('scaling_aspects') or {}
    if not aspects:
        return
    for role, node in (
        ('master_node', params.master),
        ('worker_node', params.worker),
    ):
        if node.aspect_id is not None and node.aspect_id not in aspects:
            raise error(
                f'{"/".join(_WHERE)}/{role}/aspect_id: {node.aspect_id} is '
                f'not a scaling aspect of flavour {flavour.get("flavour_id")};'
                f' it has {", ".join(sorted(aspects))}.'
            )
