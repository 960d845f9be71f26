"""Taking a cluster VM's Node out: cordon, evict what a drain evicts,
delete the Node; Nodes whose VMs are gone deleted (against a recording
stand-in for the cluster)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from vnfm.drivers.mgmt.kubernetes_cluster import drain

Obj = dict[str, Any]


def _node(name: str, *addresses: str) -> Obj:
    return {
        'metadata': {'name': name},
        'status': {
            'addresses': [
                {'type': 'InternalIP', 'address': a} for a in addresses
            ]
            + [{'type': 'Hostname', 'address': name}]
        },
    }


def _pod(name: str, node: str, grace: int | None = None, **meta: Any) -> Obj:
    spec: Obj = {'nodeName': node}
    if grace is not None:
        spec['terminationGracePeriodSeconds'] = grace
    return {
        'metadata': {'name': name, 'namespace': 'app', **meta},
        'spec': spec,
    }


class FakeKube:
    """Nodes and Pods; records patches, evictions and deletes in order."""

    def __init__(self, nodes: list[Obj], pods: list[Obj]) -> None:
        self.objs = {'Node': nodes, 'Pod': pods}
        self.calls: list[tuple] = []

    def list(self, api_version: str, kind: str) -> tuple[list[Obj], str]:
        return list(self.objs[kind]), '1'

    def patch(self, api_version, kind, name, ns, body) -> Obj:
        self.calls.append(('patch', kind, name, body))
        return {}

    def evict_until(self, name, ns, grace, deadline, on_refused) -> None:
        self.calls.append(('evict', f'{ns}/{name}', grace))

    def delete(self, api_version, kind, name, ns, propagation=None) -> bool:
        self.calls.append(('delete', kind, name, propagation))
        return True


@pytest.fixture
def kube() -> FakeKube:
    return FakeKube(
        [
            _node('worker-198-18-0-21', '198.18.0.21'),
            _node('worker-198-18-0-22', '198.18.0.22'),
            _node('master-198-18-0-11', '198.18.0.11'),
        ],
        [
            _pod('web-a', 'worker-198-18-0-21'),
            _pod('db-0', 'worker-198-18-0-21', grace=5),
            _pod('web-b', 'worker-198-18-0-22'),
            _pod(
                'proxy-x',
                'worker-198-18-0-21',
                ownerReferences=[{'kind': 'DaemonSet', 'name': 'proxy'}],
            ),
            _pod(
                'static-x',
                'worker-198-18-0-21',
                annotations={'kubernetes.io/config.mirror': 'abc'},
            ),
        ],
    )


def test_a_node_is_cordoned_drained_then_deleted(kube: FakeKube) -> None:
    name = drain.remove_node(
        kube,  # type: ignore[arg-type]
        '198.18.0.21',
        time.monotonic() + 60,
    )
    assert name == 'worker-198-18-0-21'
    assert kube.calls == [
        ('patch', 'Node', name, {'spec': {'unschedulable': True}}),
        # Each Pod gets its own grace period, 30 s by default; DaemonSet
        # and static Pods go with the Node.
        ('evict', 'app/web-a', 30),
        ('evict', 'app/db-0', 5),
        ('delete', 'Node', name, 'Background'),
    ]


def test_a_node_already_gone_is_nothing_to_do(kube: FakeKube) -> None:
    deadline = time.monotonic() + 60
    gone = drain.remove_node(kube, '198.18.0.99', deadline)  # type: ignore[arg-type]
    assert gone is None
    assert kube.calls == []


def test_the_node_is_found_by_its_address(kube: FakeKube) -> None:
    found = drain.node_named_at(kube, '198.18.0.22')  # type: ignore[arg-type]
    assert found is not None
    assert found['metadata']['name'] == 'worker-198-18-0-22'
    assert drain.node_named_at(kube, '198.18.0.2') is None  # type: ignore[arg-type]


def test_nodes_whose_vms_are_gone_are_deleted(kube: FakeKube) -> None:
    deleted = drain.delete_stale_nodes(
        kube,  # type: ignore[arg-type]
        {'198.18.0.11', '198.18.0.21'},
    )
    assert deleted == ['worker-198-18-0-22']
    assert kube.calls == [
        ('delete', 'Node', 'worker-198-18-0-22', 'Background')
    ]
