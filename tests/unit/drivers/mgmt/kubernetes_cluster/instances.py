"""Instances of a cluster VNF as the OpenStack infra driver reports them
(SOL003 v3.3.1 VnfcResourceInfo with vnfcCpInfo addresses)."""

from __future__ import annotations

from typing import Any

from tests.unit.objects.test_k8s_cluster import valid
from vnfm.objects import k8s_cluster


def cp(cpd_id: str, *addresses: str) -> dict[str, Any]:
    """A VnfcCpInfo with IP addresses."""
    return {
        'id': f'{cpd_id}-port',
        'cpdId': cpd_id,
        'cpProtocolInfo': [
            {
                'layerProtocol': 'IP_OVER_ETHERNET',
                'ipOverEthernet': {
                    'ipAddresses': [
                        {'type': 'IPV4', 'addresses': list(addresses)}
                    ]
                },
            }
        ],
    }


def vnfc(vnfc_id: str, vdu: str, *cps: dict[str, Any]) -> dict[str, Any]:
    """A VnfcResourceInfo of a server."""
    return {
        'id': vnfc_id,
        'vduId': vdu,
        'computeResource': {
            'vimConnectionId': 'vim1',
            'resourceId': f'server-{vnfc_id}',
            'vimLevelResourceType': 'OS::Nova::Server',
        },
        'vnfcCpInfo': list(cps),
    }


def master(n: int) -> dict[str, Any]:
    return vnfc(
        f'm{n}',
        'masterNode',
        cp('masterNode_CP1', f'198.18.0.{10 + n}'),
    )


def worker(n: int) -> dict[str, Any]:
    return vnfc(
        f'w{n}',
        'workerNode',
        cp('workerNode_CP2', f'198.18.0.{20 + n}'),
    )


def info(*vnfcs: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """An instantiatedVnfInfo."""
    return {
        'flavourId': 'cluster_install',
        'vnfcResourceInfo': list(vnfcs),
    } | extra


def params() -> k8s_cluster.ClusterParams:
    return k8s_cluster.parse(valid())
