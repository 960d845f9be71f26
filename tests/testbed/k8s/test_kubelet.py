"""The simulated kubelet's Nodes: numbered ones, or one named after a VM."""

from kubernetes import client

from vnfm_testbed.k8s import kubelet


def test_numbered_nodes_get_test_net_addresses():
    sim = kubelet.SimKubelet(client.ApiClient(), nodes=2, node_prefix='t')

    assert sim.nodes == {'t-node-0': 0, 't-node-1': 1}
    assert sim.host_ip(1) == '192.0.2.11'


def test_a_vms_kubelet_registers_one_node_at_its_address():
    sim = kubelet.SimKubelet(
        client.ApiClient(),
        nodes=5,
        node_name='vnf-1-workerNode-Ab3',
        node_ip='198.18.4.11',
    )

    assert sim.nodes == {'vnf-1-workernode-ab3': 0}
    assert sim.host_ip(0) == '198.18.4.11'
