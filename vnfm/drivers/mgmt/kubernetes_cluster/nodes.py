"""The master and worker VMs of a cluster VNF and their addresses.

Found in the instance's ``instantiatedVnfInfo`` as the infra driver
reported it (SOL003 VnfcResourceInfo): a VNFC is a master when one of its
``vnfcCpInfo`` has the ``cpdId`` of ``master_node.ssh_cp_name``, a worker
when one has ``worker_node.ssh_cp_name``; its SSH address is the address
of that CP and its node address the one of ``nic_cp_name``
(``cpProtocolInfo[].ipOverEthernet.ipAddresses[].addresses``). Nothing is
guessed: a CP that no VNFC has fails naming the parameter.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
from collections.abc import Iterable
from typing import Any

from vnfm.common import exceptions
from vnfm.objects import k8s_cluster
from vnfm.objects import k8s_storage

MASTER, WORKER, STORAGE = 'master', 'worker', 'storage'
_PARAM = f'additionalParams/{k8s_cluster.PARAM}'


class NodeNotFound(exceptions.OperationFailed):
    """The instance has no VM or address the parameters name."""


@dataclasses.dataclass(frozen=True)
class VmNode:
    """One VM of the cluster."""

    role: str  # MASTER, WORKER or STORAGE
    vnfc_id: str  # vnfcResourceInfo id
    vdu_id: str
    resource_id: str  # computeResource.resourceId (the server)
    ssh_address: str
    node_address: str


def node_name(node: VmNode) -> str:
    """The host and Node name of a VM: its role and node address, unique in
    the cluster whatever name the VM was given (Tacker too derives it from
    the address; two workers named alike would make one Node)."""
    address = re.sub(r'[^0-9a-z]+', '-', node.node_address.lower())
    return f'{node.role}-{address.strip("-")}'


def login(
    params: k8s_cluster.ClusterParams, node: VmNode
) -> k8s_cluster.Node | k8s_storage.StorageServer:
    """The credentials of ``node``'s role."""
    if node.role == STORAGE and params.storage is not None:
        return params.storage
    return params.master if node.role == MASTER else params.worker


def cp_addresses(cp: dict[str, Any]) -> list[str]:
    """The IP addresses of a VnfcCpInfo or VnfExtCpInfo, IPv4 first."""
    found: list[str] = []
    for proto in cp.get('cpProtocolInfo') or []:
        over = (proto or {}).get('ipOverEthernet') or {}
        for entry in over.get('ipAddresses') or []:
            found.extend(a for a in entry.get('addresses') or [] if a)
    return sorted(
        dict.fromkeys(found), key=lambda a: ipaddress.ip_address(a).version
    )


def _cp_address(vnfc: dict[str, Any], cpd_id: str) -> str | None:
    for cp in vnfc.get('vnfcCpInfo') or []:
        if cp.get('cpdId') == cpd_id:
            addresses = cp_addresses(cp)
            return addresses[0] if addresses else None
    return None


def _has_cp(vnfc: dict[str, Any], cpd_id: str) -> bool:
    return any(
        cp.get('cpdId') == cpd_id for cp in vnfc.get('vnfcCpInfo') or []
    )


def _node(vnfc: dict[str, Any], role: str, params: k8s_cluster.Node) -> VmNode:
    where = f'{_PARAM}/{role}_node'
    ssh = _cp_address(vnfc, params.ssh_cp_name)
    nic = _cp_address(vnfc, params.nic_cp_name)
    for name, cp, address in (
        ('ssh_cp_name', params.ssh_cp_name, ssh),
        ('nic_cp_name', params.nic_cp_name, nic),
    ):
        if address is None:
            raise NodeNotFound(
                f'{where}/{name}: CP {cp} of VNFC {vnfc.get("id")} (VDU '
                f'{vnfc.get("vduId")}) has no IP address in the instance.'
            )
    return VmNode(
        role=role,
        vnfc_id=vnfc['id'],
        vdu_id=vnfc.get('vduId', ''),
        resource_id=(vnfc.get('computeResource') or {}).get('resourceId', ''),
        ssh_address=ssh or '',
        node_address=nic or '',
    )


def _cp_names(vnfcs: Iterable[dict[str, Any]]) -> str:
    names = {
        cp.get('cpdId')
        for v in vnfcs
        for cp in v.get('vnfcCpInfo') or []
        if cp.get('cpdId')
    }
    return ', '.join(sorted(names)) or 'none'


def find(
    instantiated_vnf_info: dict[str, Any] | None,
    params: k8s_cluster.ClusterParams,
) -> list[VmNode]:
    """The masters, then the workers, of an instance; NodeNotFound naming
    the parameter when no VNFC has its CP or the CP has no address."""
    vnfcs = (instantiated_vnf_info or {}).get('vnfcResourceInfo') or []
    found: list[VmNode] = []
    for role, node in ((MASTER, params.master), (WORKER, params.worker)):
        mine = [v for v in vnfcs if _has_cp(v, node.ssh_cp_name)]
        if role == MASTER and not mine:
            raise NodeNotFound(
                f'{_PARAM}/master_node/ssh_cp_name: no VNFC of the instance '
                f'has CP {node.ssh_cp_name}; its CPs are {_cp_names(vnfcs)}.'
            )
        found.extend(_node(v, role, node) for v in mine)
    both = {n.vnfc_id for n in found if n.role == MASTER} & {
        n.vnfc_id for n in found if n.role == WORKER
    }
    if both:
        raise NodeNotFound(
            f'{_PARAM}: VNFC {", ".join(sorted(both))} has both the master '
            'and the worker ssh_cp_name; master_node and worker_node must '
            'name CPs of different VDUs.'
        )
    return found


def cluster_address(
    instantiated_vnf_info: dict[str, Any] | None,
    params: k8s_cluster.ClusterParams,
) -> str:
    """The address of ``master_node.cluster_cp_name``, the API endpoint:
    a CP of a VNFC (a single master's own port) or an external CP (a VIP
    in front of several masters)."""
    info = instantiated_vnf_info or {}
    wanted = params.master.cluster_cp_name
    cps = [
        cp
        for v in info.get('vnfcResourceInfo') or []
        for cp in v.get('vnfcCpInfo') or []
    ] + list(info.get('extCpInfo') or [])
    for cp in cps:
        if cp.get('cpdId') == wanted and cp_addresses(cp):
            return cp_addresses(cp)[0]
    raise NodeNotFound(
        f'{_PARAM}/master_node/cluster_cp_name: no CP {wanted} with an IP '
        'address among the VNFC and external CPs of the instance.'
    )
