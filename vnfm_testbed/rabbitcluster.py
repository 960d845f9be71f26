"""A RabbitMQ cluster of private nodes on this machine, for tests that kill
one of them: each node a :class:`~vnfm_testbed.brokers.PrivateRabbit` on a
port of its own, all with one Erlang cookie (the machine's epmd finds them
by name), joined to the first node.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import secrets
import signal
from collections.abc import Iterator
from pathlib import Path

from vnfm_testbed import brokers
from vnfm_testbed import procs


class RabbitCluster:
    """``size`` RabbitMQ nodes listening on loopback and ``address``."""

    def __init__(
        self, workdir: Path, size: int = 3, address: str = '127.0.0.1'
    ) -> None:
        cookie = secrets.token_hex(16)
        self.nodes = [
            brokers.PrivateRabbit(Path(workdir) / f'node{i}', address, cookie)
            for i in range(size)
        ]

    @property
    def transport_url(self) -> str:
        """oslo.messaging transport_url listing every node."""
        hosts = ','.join(
            f'guest:guest@{n.address}:{n.port}' for n in self.nodes
        )
        return f'rabbit://{hosts}/'

    def start(self, timeout: float = 120.0) -> None:
        """Start the nodes at once, then join the others to the first."""
        with concurrent.futures.ThreadPoolExecutor(len(self.nodes)) as pool:
            for done in [pool.submit(n.start, timeout) for n in self.nodes]:
                done.result()
        if len(self.nodes) == 1:
            return
        first = self.nodes[0].node
        for node in self.nodes[1:]:
            node.ctl('stop_app')
            node.ctl('join_cluster', first)
            node.ctl('start_app')
        if not procs.wait_for(self._formed, timeout, interval=0.5):
            raise RuntimeError(
                'RabbitMQ cluster not formed:\n'
                + self.nodes[0].ctl('cluster_status')
            )

    def _formed(self) -> bool:
        status = self.nodes[0].ctl('cluster_status', '--formatter', 'json')
        return all(n.node in status for n in self.nodes) and (
            status.count('@localhost') >= 2 * len(self.nodes)
        )

    def kill(self, index: int) -> None:
        """SIGKILL node ``index`` (a crash: no goodbye to its peers)."""
        node = self.nodes[index]
        procs.kill_group(node.pid, signal.SIGKILL)
        node.pid = 0

    def stop(self) -> None:
        """Stop every node still running."""
        for node in self.nodes:
            with contextlib.suppress(Exception):
                node.stop()


@contextlib.contextmanager
def rabbit_cluster(
    workdir: Path, size: int = 3, address: str = '127.0.0.1'
) -> Iterator[RabbitCluster]:
    """A started cluster, stopped at the end whatever happens."""
    cluster = RabbitCluster(workdir, size, address)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
