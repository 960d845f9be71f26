"""A registered VIM (Tacker /v1.0/vims) from a database row: the masked
Tacker view, and the SOL003 VimConnectionInfo a driver connects with.

The row keeps the whole ``auth_cred`` of the request as one Fernet token
(``vnfm.common.crypto``); only ``to_vim_connection_info`` hands the secrets
out, and only to the conductor side.
"""

from __future__ import annotations

from typing import Any

from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.common import timeutils
from vnfm.db import api as db
from vnfm.db import registry
from vnfm.objects import infra

KUBERNETES = 'kubernetes'
OPENSTACK = 'openstack'
# Tacker VIM type -> SOL003 vimType (ETSI NFV registry names).
SOL_VIM_TYPES = {
    KUBERNETES: 'ETSINFV.KUBERNETES.V_1',
    OPENSTACK: 'ETSINFV.OPENSTACK_KEYSTONE.V_3',
}
ACTIVE = 'ACTIVE'
# An OpenStack VIM whose Keystone accepted the credentials at registration.
REACHABLE = 'REACHABLE'
# Tacker's v1 API (and its user guides) name vimTypes like its VIM registry
# does; /vnflcm/v1 accepts these names and shows them back as given.
V1_VIM_TYPES = SOL_VIM_TYPES
# What Tacker shows in place of a secret.
TACKER_MASK = '***'
# auth_cred keys that are not secrets: shown as given.
PUBLIC_CRED_KEYS = frozenset(
    {
        'username',
        'user_id',
        'user_domain_name',
        'cert_verify',
        'ssl_ca_cert',
        'client_cert',
        'oidc_token_url',
        'client_id',
        'auth_url',
        'project_name',
        'project_id',
        'project_domain_name',
    }
)
# ``extra`` flag allowing a plain-http or unverified Kubernetes endpoint
# (the name the Kubernetes client reads from interfaceInfo).
SKIP_TLS_VERIFY = 'skip_tls_verify'


def flag(value: Any) -> bool:
    """Whether a YAML/JSON flag is set (true or "true"/"True")."""
    return value is True or (
        isinstance(value, str) and value.strip().lower() == 'true'
    )


def sol_vim_type(vim_type: Any) -> Any:
    """The SOL003 vimType a Tacker v1 name stands for ('kubernetes' is
    ETSINFV.KUBERNETES.V_1); any other value unchanged."""
    if isinstance(vim_type, str):
        return V1_VIM_TYPES.get(vim_type, vim_type)
    return vim_type


def destination(vim: dict) -> tuple:
    """Where a VIM's credentials go and how that endpoint is trusted (a VIM
    with ``auth_cred`` in clear): URL, CA, verification, token URL."""
    cred = vim.get('auth_cred') or {}
    return (
        vim.get('auth_url'),
        cred.get('ssl_ca_cert'),
        flag(cred.get('cert_verify', 'True')),
        cred.get('oidc_token_url'),
        flag((vim.get('extra') or {}).get(SKIP_TLS_VERIFY)),
    )


def credentials(row: dict) -> dict:
    """The decrypted auth_cred of a VIM row."""
    return crypto.decrypt(row['auth_cred']) if row.get('auth_cred') else {}


def mask_auth_cred(cred: dict) -> dict:
    """auth_cred with every secret value replaced by ``***``."""
    return {
        k: (v if k in PUBLIC_CRED_KEYS else TACKER_MASK)
        for k, v in cred.items()
    }


def to_tacker(row: dict) -> dict:
    """The Tacker VIM view of a row, secrets masked."""
    return {
        'id': row['id'],
        'name': row['name'],
        'description': row.get('description') or '',
        'type': row['type'],
        'tenant_id': row.get('project_id'),
        'auth_url': row.get('auth_url'),
        'auth_cred': mask_auth_cred(credentials(row)),
        'vim_project': row.get('vim_project') or {},
        # Tacker discovers regions/namespaces by contacting the VIM; the
        # API server never contacts one.
        'placement_attr': {},
        'status': row['status'],
        'is_default': bool(row.get('is_default')),
        'shared': False,
        'extra': row.get('extra') or {},
        'created_at': timeutils.isotime(row.get('created_at')),
        'updated_at': timeutils.isotime(row.get('updated_at')),
    }


def _kubernetes_info(row: dict, cred: dict) -> tuple[dict, dict]:
    interface = {'endpoint': row['auth_url']}
    if cred.get('ssl_ca_cert'):
        interface['ssl_ca_cert'] = cred['ssl_ca_cert']
    if flag((row.get('extra') or {}).get(SKIP_TLS_VERIFY)):
        interface[SKIP_TLS_VERIFY] = True
    if cred.get('bearer_token'):
        access = {'bearer_token': cred['bearer_token']}
    elif cred.get('client_cert') and cred.get('client_key'):
        access = {
            'client_cert': cred['client_cert'],
            'client_key': cred['client_key'],
        }
    else:
        keys = (
            'username',
            'password',
            'oidc_token_url',
            'client_id',
            'client_secret',
        )
        access = {k: cred[k] for k in keys if cred.get(k) is not None}
    return interface, access


def _openstack_info(row: dict, cred: dict) -> tuple[dict, dict]:
    skip = not flag(cred.get('cert_verify', 'True'))
    interface = {
        'endpoint': row['auth_url'],
        'skipCertificateVerification': skip,
        'skipCertificateHostnameCheck': skip,
    }
    if cred.get('ssl_ca_cert') and not skip:
        interface['ssl_ca_cert'] = cred['ssl_ca_cert']
    project = row.get('vim_project') or {}
    access = {
        'username': cred.get('username'),
        'password': cred.get('password'),
        'project': project.get('name'),
        'projectId': project.get('id'),
        'projectDomain': project.get('project_domain_name'),
        'userDomain': cred.get('user_domain_name'),
        'region': (row.get('extra') or {}).get('region'),
    }
    return interface, {k: v for k, v in access.items() if v}


def to_vim_connection_info(row: dict) -> dict:
    """The SOL003 VimConnectionInfo of a VIM row, secrets in clear: for the
    conductor and drivers, never for an API response."""
    cred = credentials(row)
    if row['type'] == KUBERNETES:
        interface, access = _kubernetes_info(row, cred)
    else:
        interface, access = _openstack_info(row, cred)
    return {
        'vimId': row['id'],
        'vimType': SOL_VIM_TYPES[row['type']],
        'interfaceInfo': interface,
        'accessInfo': access,
    }


def project_vim(vim_id: str, project_id: str | None) -> dict | None:
    """The VIM row ``vim_id`` if it is registered in ``project_id``; None
    otherwise (outside its project a VIM id is unknown)."""
    rows = registry.vim_list({'id': vim_id, 'project_key': project_id or ''})
    return rows[0] if rows else None


def find_default(
    project_id: str | None, vim_type: str | None = None
) -> dict | None:
    """The default VIM row of a project (of ``vim_type`` if given)."""
    where: dict = {'is_default': True, 'project_key': project_id or ''}
    if vim_type:
        where['type'] = vim_type
    rows = registry.vim_list(where)
    return rows[0] if rows else None


def _resolved_entry(info: Any, project_id: str | None) -> Any:
    """One vimConnectionInfo entry as a driver gets it: a VIM registered in
    the project gives its type, endpoint and credentials (whatever the
    entry says); another id must bring its own accessInfo."""
    if not isinstance(info, dict):
        return info
    if info.get('vimId'):
        row = project_vim(info['vimId'], project_id)
        if row is not None:
            info = {**info, **to_vim_connection_info(row)}
        elif not info.get('accessInfo'):
            # NotFound fails the operation.
            raise exceptions.NotFound(
                f'VIM {info["vimId"]} is not registered in project '
                f'{project_id}.'
            )
    if 'vimType' in info:
        info = dict(info, vimType=sol_vim_type(info['vimType']))
    return info


def resolve_vim_connection_info(stored: Any, project_id: str | None) -> Any:
    """A stored (sealed) vimConnectionInfo map with secrets in clear and
    SOL003 vimTypes (Tacker v1 names translated), each entry naming a VIM
    registered in ``project_id`` completed from it (NotFound for an entry
    without accessInfo naming no VIM of the project). For the conductor
    and drivers only."""
    plain = crypto.unseal_vim_connection_info(stored)
    if not isinstance(plain, dict):
        return plain
    return {
        key: _resolved_entry(info, project_id) for key, info in plain.items()
    }


def _uses(vim_connection_info: Any, vim_id: str) -> bool:
    entries = (
        vim_connection_info.values()
        if isinstance(vim_connection_info, dict)
        else vim_connection_info or []
    )
    return any(
        isinstance(e, dict) and vim_id in (e.get('vimId'), e.get('vim_id'))
        for e in entries
    )


def instances_using(
    vim_id: str, exclude: str, project_id: str | None
) -> list[dict[str, Any]]:
    """The instantiated VNF instances of ``project_id`` (the VIM's: no other
    project's instance can use it) but ``exclude`` whose vimConnectionInfo
    names ``vim_id``."""
    found = db.instance_list(
        {'instantiation_state': 'INSTANTIATED', 'project_id': project_id},
        columns=('id', 'vnf_instance_name', 'vim_connection_info'),
    )
    return [
        {'id': r['id'], 'vnfInstanceName': r['vnf_instance_name']}
        for r in found
        if r['id'] != exclude and _uses(r['vim_connection_info'], vim_id)
    ]


def provided_vim_ids(vim_connection_info: Any) -> list[str]:
    """The ids of the VIMs an instance provides (its cluster's VIM)."""
    entries = (
        vim_connection_info.values()
        if isinstance(vim_connection_info, dict)
        else vim_connection_info or []
    )
    return [
        e['vimId']
        for e in entries
        if isinstance(e, dict)
        and e.get('vimId')
        and (e.get('extra') or {}).get(infra.PROVIDED_VIM)
    ]
