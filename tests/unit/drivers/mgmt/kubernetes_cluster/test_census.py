"""A cluster hook ends only when the cluster's Nodes are the instance's
VMs (each worker exactly one Node, no Node of a VM that is gone) and the
PVs it registered exist; else it fails saying what differs."""

from __future__ import annotations

import pytest

from vnfm.drivers.mgmt.kubernetes_cluster import census
from vnfm.drivers.mgmt.kubernetes_cluster import nodes


def vm(vnfc: str, address: str, role: str = nodes.WORKER) -> nodes.VmNode:
    return nodes.VmNode(
        role=role,
        vnfc_id=vnfc,
        vdu_id='workerNode',
        resource_id=f'server-{vnfc}',
        ssh_address=address,
        node_address=address,
    )


def node(name: str, *addresses: str) -> dict:
    return {
        'metadata': {'name': name},
        'status': {
            'addresses': [
                {'type': 'InternalIP', 'address': a} for a in addresses
            ]
        },
    }


MASTER = vm('m1', '198.18.0.10', nodes.MASTER)
W1 = vm('w1', '198.18.0.11')
W2 = vm('w2', '198.18.0.12')


class FakeKube:
    def __init__(self, **kinds: list[dict]) -> None:
        self.kinds = kinds

    def list(self, api_version: str, kind: str) -> tuple[list[dict], str]:
        return self.kinds.get(kind, []), '1'


def test_a_cluster_matching_its_vms_has_no_problem():
    listed = [
        node('master-198-18-0-10', '198.18.0.10'),
        node('worker-198-18-0-11', '198.18.0.11', 'worker-1'),
        node('worker-198-18-0-12', '198.18.0.12'),
    ]

    assert census.node_problems(listed, [MASTER, W1, W2]) == []
    census.check_nodes(FakeKube(Node=listed), [MASTER, W1, W2], 'heal_end')


def test_two_workers_under_one_node_name_are_named():
    # The second kubelet took the first one's Node over.
    listed = [node('worker', '198.18.0.12')]

    problems = census.node_problems(listed, [W1, W2])

    assert problems == [
        'worker VNFC w1 (198.18.0.11) is 0 Nodes',
        'the cluster has Nodes worker (198.18.0.12)',
    ]


def test_a_node_of_a_vm_that_is_gone_is_named():
    listed = [node('a', '198.18.0.11'), node('old', '198.18.0.99')]

    problems = census.node_problems(listed, [W1])

    assert 'Node old has no VM of the instance' in problems


def test_a_master_need_not_be_a_node():
    listed = [node('w', '198.18.0.11')]

    assert census.node_problems(listed, [MASTER, W1]) == []


def test_check_nodes_fails_the_hook_with_what_to_do():
    with pytest.raises(census.ClusterMismatch) as e:
        census.check_nodes(FakeKube(Node=[]), [W1], 'scale_end')

    assert str(e.value).startswith(
        'scale_end: the cluster does not match the VMs of the instance: '
        'worker VNFC w1 (198.18.0.11) is 0 Nodes; the cluster has Nodes none.'
    )
    assert 'give each VM its own host name' in str(e.value)


def test_check_pvs_names_the_missing_ones():
    kube = FakeKube(PersistentVolume=[{'metadata': {'name': 'pv-1'}}])

    census.check_pvs(kube, ['pv-1'], 'instantiate_end')
    census.check_pvs(kube, [], 'instantiate_end')
    with pytest.raises(census.ClusterMismatch) as e:
        census.check_pvs(kube, ['pv-3', 'pv-1', 'pv-2'], 'instantiate_end')

    assert str(e.value) == (
        'instantiate_end: PersistentVolume pv-2, pv-3 registered from '
        'pv_registration_params is not in the cluster.'
    )
