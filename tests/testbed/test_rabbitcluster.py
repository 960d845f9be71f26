"""The RabbitMQ cluster of private nodes: one transport_url naming every
node, one Erlang cookie for all (forming the cluster and killing a node
under load is tests/integration/test_multi_host.py)."""

from __future__ import annotations

from vnfm_testbed import procs
from vnfm_testbed import rabbitcluster


def test_the_transport_url_names_every_node(tmp_path) -> None:
    cluster = rabbitcluster.RabbitCluster(tmp_path, 3, '198.18.0.1')
    ports = [n.port for n in cluster.nodes]

    assert len(set(ports)) == 3
    assert (
        cluster.transport_url
        == 'rabbit://'
        + ','.join(f'guest:guest@198.18.0.1:{p}' for p in ports)
        + '/'
    )
    assert procs.kombu_url(cluster.transport_url).count('amqp://') == 3


def test_the_nodes_share_one_cookie(tmp_path) -> None:
    cluster = rabbitcluster.RabbitCluster(tmp_path, 2)
    for node in cluster.nodes:
        node.workdir.mkdir(parents=True)
        node._env()  # writes the node's files

    cookies = {
        (n.workdir / '.erlang.cookie').read_text() for n in cluster.nodes
    }
    assert len(cookies) == 1 and len(cookies.pop()) == 32
    assert {n.node for n in cluster.nodes} != {cluster.nodes[0].node}
