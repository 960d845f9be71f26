"""Hosts as network namespaces on a bridge: each has its own address of
198.18.0.0/15, reaches the bridge's address, and nothing is left behind."""

from __future__ import annotations

import os
import socket
import subprocess  # nosec B404 - ip netns exec: fixed argv
import sys

import pytest

from vnfm_testbed import hostns
from vnfm_testbed import prereqs
from vnfm_testbed import procs

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(autouse=True)
def _root() -> None:
    if os.geteuid() != 0:
        prereqs.missing('network namespaces need root')


def _connect_from(net: hostns.HostNetwork, index: int, port: int) -> str:
    """Connect from host ``index`` to the gateway; the source address."""
    code = (
        'import socket,sys;'
        f's=socket.create_connection(("{net.gateway}",{port}),timeout=5);'
        'print(s.getsockname()[0])'
    )
    out = subprocess.run(  # nosec B603 - fixed argv
        net.argv(index, [sys.executable, '-c', code]),
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return out.stdout.strip()


def test_hosts_reach_the_gateway_from_their_own_addresses() -> None:
    with hostns.host_network(2) as net:
        assert net.gateway.startswith('198.1')
        server = socket.create_server((net.gateway, 0))
        port = server.getsockname()[1]
        seen = {_connect_from(net, i, port) for i in range(2)}
        server.close()
        assert seen == set(net.addresses) and len(seen) == 2
    assert not net.exists()


def test_down_kills_what_runs_on_the_hosts() -> None:
    net = hostns.HostNetwork(1)
    net.up()
    try:
        proc = subprocess.Popen(  # nosec B603 - fixed argv
            net.argv(0, ['sleep', '600'])
        )
        # ``ip netns exec`` enters the namespace just after it starts.
        assert procs.wait_for(
            lambda: hostns.netns_pids(net.namespaces[0]), 10.0, 0.02
        )
    finally:
        net.down()
    assert proc.wait(timeout=10) != 0
    assert not net.exists()


def test_a_network_whose_creator_died_is_reaped(tmp_path) -> None:
    net = hostns.HostNetwork(1, state_dir=tmp_path)
    net.up()
    # As if the test process had been killed before its down().
    record = net.record.read_text().replace(str(os.getpid()), '999999999')
    net.record.write_text(record)
    assert hostns.reap_stale(tmp_path) == [net.bridge]
    assert not net.exists()
