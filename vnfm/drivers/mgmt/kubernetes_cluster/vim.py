"""The cluster as a Kubernetes VIM.

The install script's ``vim-access`` action prints the API endpoint, the
cluster CA (base64 of its PEM) and the token of the service account it made
for vnfm. From them: the VIM vnfm registers (``registration``, a Tacker
``/v1.0/vims`` body with the CA pinned) and the vimConnectionInfo entry the
instance keeps under ``CONNECTION_KEY``.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
from typing import Any

from vnfm.common import exceptions
from vnfm.objects import infra

#: Key of the cluster's entry in the instance's vimConnectionInfo.
CONNECTION_KEY = 'kubernetes_cluster'
_PEM = '-----BEGIN CERTIFICATE-----'


@dataclasses.dataclass(frozen=True)
class ClusterAccess:
    """How vnfm reaches the cluster's API."""

    server: str
    ca_cert: str  # PEM
    token: str = dataclasses.field(repr=False)


def access_from(results: dict[str, str], where: str) -> ClusterAccess:
    """The access the ``vim-access`` action printed on ``where`` (a VM);
    OperationFailed naming what is missing or wrong."""
    step = f"{where}: the install script's vim-access"
    missing = [k for k in ('SERVER', 'CA_CERT', 'TOKEN') if not results.get(k)]
    if missing:
        raise exceptions.OperationFailed(
            f'{step} printed no {", ".join(missing)}.'
        )
    if not results['SERVER'].startswith('https://'):
        raise exceptions.OperationFailed(
            f'{step} printed SERVER {results["SERVER"]}, not an https:// URL.'
        )
    try:
        ca = base64.b64decode(results['CA_CERT'], validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        ca = ''
    if _PEM not in ca:
        raise exceptions.OperationFailed(
            f'{step} printed a CA_CERT that is not a base64 PEM certificate.'
        )
    return ClusterAccess(results['SERVER'], ca, results['TOKEN'])


def registration(
    access: ClusterAccess, name: str, vnf_instance_id: str
) -> dict[str, Any]:
    """The VIM to register (a ``/v1.0/vims`` ``vim`` body)."""
    return {
        'name': name,
        'description': f'Kubernetes cluster of VNF instance {vnf_instance_id}',
        'type': 'kubernetes',
        'auth_url': access.server,
        'auth_cred': {
            'bearer_token': access.token,
            'ssl_ca_cert': access.ca_cert,
        },
        'vim_project': {'name': 'default'},
        'extra': {'vnf_instance_id': vnf_instance_id},
        'is_default': False,
    }


def connection_info(access: ClusterAccess, vim_id: str) -> dict[str, Any]:
    """The instance's vimConnectionInfo entry for the registered VIM."""
    return {
        'vimId': vim_id,
        'vimType': 'ETSINFV.KUBERNETES.V_1',
        'interfaceInfo': {
            'endpoint': access.server,
            'ssl_ca_cert': access.ca_cert,
        },
        'accessInfo': {'bearer_token': access.token},
        # The instance provides this VIM; it does not run on it.
        'extra': {infra.PROVIDED_VIM: True},
    }
