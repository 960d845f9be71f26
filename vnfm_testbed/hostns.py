"""Separate "hosts" on this machine: network namespaces on a bridge.

Each host is a network namespace with its own address from 198.18.0.0/15
(never a private range) on a veth pair whose other end is on a Linux bridge
of the root namespace; the bridge holds the gateway address, where the
servers the hosts share listen (a private PostgreSQL and RabbitMQ started
with ``address=HostNetwork.gateway``: the machine's own listen on loopback
only, which a namespace cannot reach). A process runs on a host with
``ip netns exec``: :meth:`HostNetwork.argv`.

``down()`` kills what still runs in the namespaces and deletes them and the
bridge; a record in ``/run/vnfm-hostns`` lets the next ``up()`` remove what
a test process killed before its ``down()`` left behind. Needs root.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import os
import signal
import subprocess  # nosec B404 - ip: fixed argv
import uuid
from collections.abc import Iterator
from pathlib import Path

from vnfm_testbed import brokers
from vnfm_testbed import procs
from vnfm_testbed import rabbitcluster
from vnfm_testbed.openstack import vmhost

#: Records of the networks up now: {"pid", "bridge", "namespaces"}.
STATE_DIR = Path('/run/vnfm-hostns')


def _ip(*args: str) -> str:
    return subprocess.run(  # nosec B603 B607 - fixed argv
        ['ip', *args], check=True, capture_output=True, text=True, timeout=30
    ).stdout


def _ip_quiet(*args: str) -> None:
    subprocess.run(  # nosec B603 B607 - fixed argv
        ['ip', *args], check=False, capture_output=True, timeout=30
    )


def netns_pids(namespace: str) -> list[int]:
    """Processes running in network namespace ``namespace``."""
    out = subprocess.run(  # nosec B603 B607 - fixed argv
        ['ip', 'netns', 'pids', namespace],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    ).stdout
    return [int(p) for p in out.split()]


def _remove(bridge: str, namespaces: list[str]) -> None:
    """Kill every process of ``namespaces``, delete them and ``bridge``."""
    for ns in namespaces:
        pids = netns_pids(ns)
        procs.stop_all(pids, timeout=5.0)
        for pid in netns_pids(ns):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        _ip_quiet('netns', 'del', ns)
    vmhost.bridge_down(bridge)


def reap_stale(state_dir: Path = STATE_DIR) -> list[str]:
    """Remove the networks whose creating process is gone; their bridges."""
    removed = []
    for record in sorted(state_dir.glob('*.json')):
        try:
            info = json.loads(record.read_text())
        except (OSError, ValueError):
            continue
        if procs.Proc.of(int(info['pid'])):
            continue
        _remove(info['bridge'], info['namespaces'])
        record.unlink(missing_ok=True)
        removed.append(info['bridge'])
    return removed


class HostNetwork:
    """``count`` hosts (network namespaces) on one bridge; ``up()`` makes
    them, ``down()`` removes them and everything running in them."""

    def __init__(self, count: int, state_dir: Path = STATE_DIR) -> None:
        self.count = count
        self.state_dir = state_dir
        self.token = uuid.uuid4().hex[:7]
        self.bridge = f'vh{self.token}'
        self.namespaces = [
            f'vnfmhost-{self.token}-{i + 1}' for i in range(count)
        ]
        self.gateway = ''
        self.addresses: list[str] = []
        self.network = ''

    @property
    def record(self) -> Path:
        """This network's record in the state directory."""
        return self.state_dir / f'{self.token}.json'

    def up(self) -> None:
        """Create the bridge (gateway address) and the hosts on it."""
        reap_stale(self.state_dir)
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.record.write_text(
            json.dumps(
                {
                    'pid': os.getpid(),
                    'bridge': self.bridge,
                    'namespaces': self.namespaces,
                }
            )
        )
        with vmhost.address_lock():
            block = vmhost.free_block(prefix=26)
            hosts = [str(a) for a in block.hosts()]
            if self.count + 1 > len(hosts):
                raise ValueError(f'at most {len(hosts) - 1} hosts')
            self.gateway, self.addresses = hosts[0], hosts[1 : self.count + 1]
            self.network = str(block)
            vmhost.bridge_up(self.bridge, f'{self.gateway}/26')
        for i, ns in enumerate(self.namespaces):
            self._plug(i, ns)

    def _plug(self, index: int, ns: str) -> None:
        outside, inside = f'{self.bridge}h{index}', f'{self.bridge}n{index}'
        _ip('netns', 'add', ns)
        _ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', inside)
        _ip('link', 'set', outside, 'master', self.bridge, 'up')
        _ip('link', 'set', inside, 'netns', ns)
        _ip('-n', ns, 'link', 'set', inside, 'name', 'eth0')
        _ip(
            '-n',
            ns,
            'addr',
            'add',
            f'{self.addresses[index]}/26',
            'dev',
            'eth0',
        )
        _ip('-n', ns, 'link', 'set', 'eth0', 'up')
        _ip('-n', ns, 'link', 'set', 'lo', 'up')

    def argv(self, index: int, argv: list[str]) -> list[str]:
        """``argv`` run on host ``index`` (0-based)."""
        return ['ip', 'netns', 'exec', self.namespaces[index], *argv]

    def down(self) -> None:
        """Kill what runs on the hosts; delete them and the bridge."""
        _remove(self.bridge, self.namespaces)
        self.record.unlink(missing_ok=True)

    def exists(self) -> bool:
        """Whether any of the hosts or the bridge is still there."""
        listed = _ip('netns', 'list')
        links = _ip('-o', 'link', 'show')
        return any(ns in listed for ns in self.namespaces) or (
            f' {self.bridge}:' in links
        )


@contextlib.contextmanager
def host_network(count: int) -> Iterator[HostNetwork]:
    """``count`` hosts on a bridge, removed at the end whatever happens."""
    net = HostNetwork(count)
    try:
        net.up()
        yield net
    finally:
        net.down()


class MultiHost:
    """vnfm-api in the root namespace and each vnfm-conductor on a host of
    its own (conductor-N on host N-1), on a private RabbitMQ and PostgreSQL
    (pg_stat_statements loaded) listening on the bridge. ``rabbit_nodes``
    over 1: a RabbitMQ cluster, the conductors' queue a quorum queue."""

    def __init__(
        self,
        workdir: Path,
        hosts: int,
        conf: dict[str, dict[str, object]] | None = None,
        rabbit_nodes: int = 1,
    ) -> None:
        self.workdir = Path(workdir)
        self.net = HostNetwork(hosts)
        self.conf = conf or {}
        self.rabbit_nodes = rabbit_nodes
        self.postgres: brokers.PrivatePostgres | None = None
        self.rabbit: rabbitcluster.RabbitCluster | None = None
        self.services: procs.VnfmServices | None = None

    def start(self, conductors: int) -> procs.VnfmServices:
        """Hosts, servers, then the API and ``conductors`` conductors."""
        self.net.up()
        self.postgres = brokers.PrivatePostgres(
            self.workdir / 'pg', self.net.gateway, stat_statements=True
        )
        self.rabbit = rabbitcluster.RabbitCluster(
            self.workdir / 'rabbit', self.rabbit_nodes, self.net.gateway
        )
        # Both start in the time of the slower.
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            for done in [
                pool.submit(self.postgres.start),
                pool.submit(self.rabbit.start),
            ]:
                done.result()
        conf = {**self.conf}
        if self.rabbit_nodes > 1:
            conf['oslo_messaging_rabbit'] = {
                'rabbit_quorum_queue': True,
                **conf.get('oslo_messaging_rabbit', {}),
            }
        conf['outbound'] = {
            'allowed_networks': f'{procs.LOOPBACK},{self.net.network}',
            **conf.get('outbound', {}),
        }
        self.services = procs.VnfmServices(
            self.workdir / 'vnfm',
            conf=conf,
            transport_url=self.rabbit.transport_url,
            postgres_url=self.postgres.url,
            launch=self._launch,
        )
        self.services.start(conductors=conductors)
        self.services.sql('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
        return self.services

    def _launch(self, service: str, argv: list[str]) -> list[str]:
        if not service.startswith('conductor-'):
            return argv
        index = int(service.rsplit('-', 1)[1]) - 1
        return self.net.argv(index % self.net.count, argv)

    def stop(self) -> None:
        """Stop the services and servers; remove the hosts and the bridge."""
        # Each step runs even if one before it failed.
        with contextlib.ExitStack() as stack:
            stack.callback(self.net.down)
            if self.postgres:
                stack.callback(self.postgres.remove)
            if self.rabbit:
                stack.callback(self.rabbit.stop)
            if self.services:
                stack.callback(self.services.stop)


@contextlib.contextmanager
def multi_host(
    workdir: Path,
    hosts: int,
    conductors: int,
    conf: dict[str, dict[str, object]] | None = None,
    rabbit_nodes: int = 1,
) -> Iterator[MultiHost]:
    """A started :class:`MultiHost`, stopped at the end whatever happens."""
    testbed = MultiHost(workdir, hosts, conf, rabbit_nodes)
    try:
        testbed.start(conductors)
        yield testbed
    finally:
        testbed.stop()
