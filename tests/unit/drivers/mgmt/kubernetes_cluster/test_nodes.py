"""kubernetes_cluster.nodes: the cluster's VMs from the instance's CPs."""

from __future__ import annotations

import dataclasses

import pytest

from tests.unit.drivers.mgmt.kubernetes_cluster.instances import cp
from tests.unit.drivers.mgmt.kubernetes_cluster.instances import info
from tests.unit.drivers.mgmt.kubernetes_cluster.instances import master
from tests.unit.drivers.mgmt.kubernetes_cluster.instances import params
from tests.unit.drivers.mgmt.kubernetes_cluster.instances import vnfc
from tests.unit.drivers.mgmt.kubernetes_cluster.instances import worker
from vnfm.drivers.mgmt.kubernetes_cluster import nodes

P = 'additionalParams/k8s_cluster_installation_param'


def test_masters_then_workers_with_their_addresses() -> None:
    found = nodes.find(info(worker(1), master(1), worker(2)), params())
    assert [(n.role, n.vnfc_id) for n in found] == [
        ('master', 'm1'),
        ('worker', 'w1'),
        ('worker', 'w2'),
    ]
    first = found[0]
    assert first.ssh_address == '198.18.0.11' == first.node_address
    assert first.resource_id == 'server-m1'
    assert first.vdu_id == 'masterNode'


def test_ssh_and_node_addresses_come_from_their_own_cps() -> None:
    base = params()
    p = dataclasses.replace(
        base,
        master=dataclasses.replace(base.master, nic_cp_name='masterNode_CP2'),
    )
    two_nics = vnfc(
        'm1',
        'masterNode',
        cp('masterNode_CP1', '198.18.1.5'),
        cp('masterNode_CP2', '2001:db8::5', '198.18.2.5'),
    )
    (found,) = nodes.find(info(two_nics), p)
    assert found.ssh_address == '198.18.1.5'
    assert found.node_address == '198.18.2.5'  # IPv4 first


def test_no_master_names_the_parameter_and_the_cps_seen() -> None:
    with pytest.raises(nodes.NodeNotFound) as caught:
        nodes.find(info(worker(1)), params())
    detail = caught.value.detail
    assert detail.startswith(f'{P}/master_node/ssh_cp_name:')
    assert 'masterNode_CP1' in detail and 'workerNode_CP2' in detail


def test_a_cp_without_address_names_the_parameter() -> None:
    bare = vnfc('w9', 'workerNode', cp('workerNode_CP2'))
    with pytest.raises(nodes.NodeNotFound) as caught:
        nodes.find(info(master(1), bare), params())
    assert caught.value.detail.startswith(f'{P}/worker_node/ssh_cp_name:')
    assert 'w9' in caught.value.detail


def test_a_vnfc_in_both_roles_is_refused() -> None:
    both = vnfc(
        'x1',
        'allInOne',
        cp('masterNode_CP1', '198.18.0.9'),
        cp('workerNode_CP2', '198.18.0.9'),
    )
    with pytest.raises(nodes.NodeNotFound) as caught:
        nodes.find(info(both), params())
    assert 'x1' in caught.value.detail


def test_no_instantiated_info() -> None:
    with pytest.raises(nodes.NodeNotFound):
        nodes.find(None, params())


def test_cluster_address_from_a_vip_ext_cp_or_a_vnfc_cp() -> None:
    vip = {'id': 'e1', 'cpdId': 'vip_CP', **cp('vip_CP', '198.18.0.100')}
    assert (
        nodes.cluster_address(info(master(1), extCpInfo=[vip]), params())
        == '198.18.0.100'
    )
    own = vnfc(
        'm1',
        'masterNode',
        cp('masterNode_CP1', '198.18.0.11'),
        cp('vip_CP', '198.18.0.101'),
    )
    assert nodes.cluster_address(info(own), params()) == '198.18.0.101'
    with pytest.raises(nodes.NodeNotFound) as caught:
        nodes.cluster_address(info(master(1)), params())
    assert caught.value.detail.startswith(f'{P}/master_node/cluster_cp_name')
