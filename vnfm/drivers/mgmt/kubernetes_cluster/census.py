"""The cluster as its Kubernetes API has it, against the instance's VMs:
a hook that built, scaled or healed the cluster ends only when every
worker VM is exactly one Node (found by its node address), no Node is
left of a VM the instance no longer has, and every PV it registered
exists.

Two VMs with one host name would make one Node (the second kubelet takes
the first one's Node over): the VMs get Node names of their own
(``nodes.node_name``), and this check fails naming the clash if a script
still registers them under one.
"""

from __future__ import annotations

from typing import Any

from vnfm.clients import kubernetes as k8s
from vnfm.common import exceptions
from vnfm.drivers.mgmt.kubernetes_cluster import nodes

Obj = dict[str, Any]


class ClusterMismatch(exceptions.OperationFailed):
    """The cluster's Nodes or PVs differ from what the instance has."""


def _addresses(node: Obj) -> set[str]:
    found = (node.get('status') or {}).get('addresses') or []
    return {str(a.get('address')) for a in found if a.get('address')}


def _listed(nodes_by_name: dict[str, set[str]]) -> str:
    return (
        ', '.join(
            f'{n} ({", ".join(sorted(a))})'
            for n, a in sorted(nodes_by_name.items())
        )
        or 'none'
    )


def node_problems(listed: list[Obj], cluster: list[nodes.VmNode]) -> list[str]:
    """What differs between the Nodes ``listed`` and the VMs."""
    by_name = {n['metadata']['name']: _addresses(n) for n in listed}
    problems = []
    for vm in cluster:
        mine = [n for n, a in by_name.items() if vm.node_address in a]
        if vm.role == nodes.WORKER and len(mine) != 1:
            problems.append(
                f'worker VNFC {vm.vnfc_id} ({vm.node_address}) is '
                f'{len(mine)} Nodes'
            )
    known = {vm.node_address for vm in cluster}
    stale = sorted(n for n, a in by_name.items() if not a & known)
    if stale:
        problems.append(f'Node {", ".join(stale)} has no VM of the instance')
    if problems:
        problems.append(f'the cluster has Nodes {_listed(by_name)}')
    return problems


def check_nodes(
    kube: k8s.KubeClient, cluster: list[nodes.VmNode], hook: str
) -> None:
    """ClusterMismatch unless the cluster's Nodes are the instance's VMs."""
    problems = node_problems(kube.list('v1', 'Node')[0], cluster)
    if problems:
        raise ClusterMismatch(
            f'{hook}: the cluster does not match the VMs of the instance: '
            f'{"; ".join(problems)}. Two VMs registered under one Node '
            'name make one Node: give each VM its own host name.'
        )


def check_pvs(kube: k8s.KubeClient, names: list[str], hook: str) -> None:
    """ClusterMismatch naming the PVs ``names`` the cluster lacks."""
    if not names:
        return
    have = {
        p['metadata']['name'] for p in kube.list('v1', 'PersistentVolume')[0]
    }
    missing = sorted(set(names) - have)
    if missing:
        raise ClusterMismatch(
            f'{hook}: PersistentVolume {", ".join(missing)} registered from '
            'pv_registration_params is not in the cluster.'
        )
