"""Taking a cluster VM's Node out before its VM goes: cordon, drain by
evictions, delete the Node (what ``kubectl drain`` then ``kubectl delete
node`` do).

A Node is found by the VM's node address (``status.addresses``), never by
guessing its name. Evictions respect PodDisruptionBudgets and are bounded
by ``[kubernetes] eviction_timeout`` and the operation's deadline; one
still refused fails the hook naming the Pod and the budget. DaemonSet Pods
and static (mirror) Pods are left alone: they go with the Node.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vnfm.clients import kubernetes as k8s

Obj = dict[str, Any]
_MIRROR = 'kubernetes.io/config.mirror'


def node_named_at(kube: k8s.KubeClient, address: str) -> Obj | None:
    """The Node with ``address`` among its status addresses, or None."""
    for node in kube.list('v1', 'Node')[0]:
        found = (node.get('status') or {}).get('addresses') or []
        if any(a.get('address') == address for a in found):
            return node
    return None


def _evictable(pod: Obj) -> bool:
    meta = pod.get('metadata') or {}
    if _MIRROR in (meta.get('annotations') or {}):
        return False
    owners = meta.get('ownerReferences') or []
    return not any(o.get('kind') == 'DaemonSet' for o in owners)


def pods_on(kube: k8s.KubeClient, node_name: str) -> list[Obj]:
    """The Pods on a Node that a drain evicts."""
    pods = kube.list('v1', 'Pod')[0]
    return [
        p
        for p in pods
        if (p.get('spec') or {}).get('nodeName') == node_name and _evictable(p)
    ]


def remove_node(
    kube: k8s.KubeClient,
    address: str,
    deadline: float,
    on_refused: Callable[[str], None] | None = None,
) -> str | None:
    """Cordon, drain and delete the Node at ``address``; its name, None
    when no Node has that address (already removed: nothing to do)."""
    node = node_named_at(kube, address)
    if node is None:
        return None
    name = node['metadata']['name']
    kube.patch('v1', 'Node', name, None, {'spec': {'unschedulable': True}})
    for pod in pods_on(kube, name):
        meta = pod['metadata']
        grace = (pod.get('spec') or {}).get('terminationGracePeriodSeconds')
        kube.evict_until(
            meta['name'],
            meta['namespace'],
            30 if grace is None else int(grace),
            deadline,
            on_refused,
        )
    kube.delete('v1', 'Node', name, None, propagation='Background')
    return name


def delete_stale_nodes(kube: k8s.KubeClient, addresses: set[str]) -> list[str]:
    """Delete the Nodes with none of ``addresses`` (their VMs are gone:
    the cluster's Nodes are all the instance's VMs); their names."""
    deleted = []
    for node in kube.list('v1', 'Node')[0]:
        found = (node.get('status') or {}).get('addresses') or []
        if not any(a.get('address') in addresses for a in found):
            name = node['metadata']['name']
            kube.delete('v1', 'Node', name, None, propagation='Background')
            deleted.append(name)
    return deleted
