"""Conductors on two hosts: each vnfm-conductor in a network namespace of
its own (its own address of 198.18.0.0/15, RabbitMQ and PostgreSQL over a
bridge), vnfm-api in the root namespace. Many operations sent at once all
end COMPLETED, none is left owned or unfinished, and both conductors ran
some; with RabbitMQ a three-node cluster (quorum queues), also when a node
is killed while operations are sent."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.unit.conductor.receiver import Receiver
from vnfm_testbed import hostns
from vnfm_testbed import procs

from .conftest import wait_for
from .conftest import zip_scripts_sha256

pytestmark = pytest.mark.timeout(180)

OPS = 200
V2 = {'Version': '2.0.0'}
INSTANTIATE = {
    'flavourId': 'simple',
    'vimConnectionInfo': {'vim1': {'vimType': 'VNFM.NOOP.V_1'}},
}
COMPLETED_LINE = re.compile(r'Op (\S+) \(\w+\) of VNF instance \S+ COMPLETED')


def _on_two_hosts(
    tmp_path_factory, zips, rabbit_nodes: int
) -> Iterator[hostns.MultiHost]:
    """vnfm-api and one conductor on each of two hosts, the sample hook
    script allowed, on ``rabbit_nodes`` RabbitMQ nodes."""
    work = tmp_path_factory.mktemp('multihost')
    allowed = zip_scripts_sha256(zips['pkg_a'].path.read_bytes())
    conf = {'mgmt_driver': {'allowed_script_sha256': ','.join(allowed)}}
    with hostns.multi_host(work, 2, 2, conf, rabbit_nodes) as testbed:
        yield testbed


@pytest.fixture(scope='module')
def two_hosts(tmp_path_factory, zips) -> Iterator[hostns.MultiHost]:
    """Two conductors on two hosts, one RabbitMQ node."""
    yield from _on_two_hosts(tmp_path_factory, zips, 1)


def _http(svc: procs.VnfmServices) -> requests.Session:
    http = requests.Session()
    http.headers.update(V2)
    return http


def _onboard(svc: procs.VnfmServices, http, zip_path: Path) -> None:
    """Onboard the package at ``zip_path``."""
    base = svc.api_url + '/vnfpkgm/v1/vnf_packages'
    pkg = http.post(base, json={}, timeout=30).json()
    r = http.put(
        f'{base}/{pkg["id"]}/package_content',
        data=zip_path.read_bytes(),
        headers={'Content-Type': 'application/zip'},
        timeout=30,
    )
    assert r.status_code == 202, r.text

    def onboarded() -> bool:
        state = http.get(f'{base}/{pkg["id"]}', timeout=30).json()
        return state['onboardingState'] == 'ONBOARDED'

    wait_for(onboarded, 30, 'package ONBOARDED')


def _send_ops(
    svc: procs.VnfmServices, http, vnfd_id: str, count: int = OPS
) -> list[str]:
    """Create ``count`` instances, then instantiate them all; the op ids."""
    base = svc.api_url + '/vnflcm/v2/vnf_instances'
    body = {'vnfdId': vnfd_id, 'vnfInstanceName': 'multihost'}
    insts = [
        http.post(base, json=body, timeout=30).json()['id']
        for _ in range(count)
    ]
    ops = []
    for inst in insts:
        r = http.post(
            f'{base}/{inst}/instantiate', json=INSTANTIATE, timeout=30
        )
        assert r.status_code == 202, r.text
        ops.append(r.headers['Location'].rsplit('/', 1)[1])
    return ops


def _wait_all_final(svc: procs.VnfmServices, timeout: float) -> None:
    def none_left() -> bool:
        rows = svc.sql(
            'SELECT count(*) FROM vnf_lcm_op_occs WHERE operation_state '
            "NOT IN ('COMPLETED', 'FAILED_TEMP', 'FAILED', 'ROLLED_BACK')"
        )
        return rows[0][0] == 0

    wait_for(none_left, timeout, 'every op final', interval=0.5)


def _ops_run_by(svc: procs.VnfmServices) -> dict[str, set[str]]:
    """The op ids each conductor's log says it completed."""
    return {
        host: set(COMPLETED_LINE.findall(svc.logs[host].read_text()))
        for host in svc.conductors()
    }


def test_two_conductors_on_two_hosts_complete_every_op(
    two_hosts: hostns.MultiHost, zips
) -> None:
    svc = two_hosts.services
    assert svc is not None
    http = _http(svc)
    _onboard(svc, http, zips['pkg_a'].path)
    # Each conductor talks to the databases from its own host's address.
    seen = dict(
        svc.sql(
            'SELECT DISTINCT application_name, host(client_addr) '
            'FROM pg_stat_activity WHERE application_name LIKE %s',
            ('conductor-%',),
        )
    )
    assert seen == {
        'conductor-1': two_hosts.net.addresses[0],
        'conductor-2': two_hosts.net.addresses[1],
    }
    ops = _send_ops(svc, http, zips['pkg_a'].vnfd_id)
    _wait_all_final(svc, timeout=90)
    states = dict(
        svc.sql('SELECT id::text, operation_state FROM vnf_lcm_op_occs')
    )
    assert {states[op] for op in ops} == {'COMPLETED'}, states
    assert (
        svc.sql('SELECT id FROM vnf_lcm_op_occs WHERE owner IS NOT NULL') == []
    )
    ran = _ops_run_by(svc)
    assert all(ran.values()), {h: len(r) for h, r in ran.items()}
    assert set().union(*ran.values()) == set(ops)


@pytest.fixture(scope='module')
def three_brokers(tmp_path_factory, zips) -> Iterator[hostns.MultiHost]:
    """Two conductors on two hosts, RabbitMQ a three-node cluster with
    quorum queues."""
    yield from _on_two_hosts(tmp_path_factory, zips, 3)


NOTIFIED_STATES = ('STARTING', 'PROCESSING', 'COMPLETED')


def _subscribe(svc: procs.VnfmServices, http, address: str) -> Receiver:
    """A receiver on ``address`` (where the conductors' hosts reach it)
    subscribed to every LCM notification."""
    receiver = Receiver(host=address).start()
    r = http.post(
        svc.api_url + '/vnflcm/v2/subscriptions',
        json={'callbackUri': receiver.url},
        timeout=30,
    )
    assert r.status_code == 201, r.text
    return receiver


def _notified(receiver: Receiver) -> set[tuple[str, str]]:
    """(op id, operationState) of the op notifications received."""
    return {
        (r['body']['vnfLcmOpOccId'], r['body']['operationState'])
        for r in list(receiver.received)
        if r['body'].get('notificationType')
        == 'VnfLcmOperationOccurrenceNotification'
    }


def _queues(
    testbed: hostns.MultiHost, node: int, field: str
) -> dict[str, str]:
    """{queue: ``field``} of the queues, as node ``node`` lists them."""
    assert testbed.rabbit is not None
    out = testbed.rabbit.nodes[node].ctl('list_queues', 'name', field)
    return dict(line.split() for line in out.splitlines() if line.strip())


def test_a_broker_node_killed_under_load_loses_no_op(
    three_brokers: hostns.MultiHost, zips
) -> None:
    svc, cluster = three_brokers.services, three_brokers.rabbit
    assert svc is not None and cluster is not None
    http = _http(svc)
    _onboard(svc, http, zips['pkg_a'].path)
    receiver = _subscribe(svc, http, three_brokers.net.gateway)
    topic = procs.CONDUCTOR_TOPIC
    assert _queues(three_brokers, 1, 'type')[topic] == 'quorum'
    # The first node of the list: where the clients connected.
    first = _send_ops(svc, http, zips['pkg_a'].vnfd_id, OPS // 4)
    cluster.kill(0)
    rest = _send_ops(svc, http, zips['pkg_a'].vnfd_id, OPS // 4)
    # Both conductors consume the topic queue again within seconds.
    wait_for(
        lambda: _queues(three_brokers, 1, 'consumers').get(topic) == '2',
        30,
        'both conductors consuming again',
        interval=1.0,
    )
    _wait_all_final(svc, timeout=90)
    states = dict(
        svc.sql('SELECT id::text, operation_state FROM vnf_lcm_op_occs')
    )
    assert {states[op] for op in first + rest} == {'COMPLETED'}, states
    ran = _ops_run_by(svc)
    assert all(ran.values()), {h: len(r) for h, r in ran.items()}
    # Every op's STARTING, PROCESSING and COMPLETED reached the subscriber.
    wait_for(
        lambda: (
            _notified(receiver)
            >= {(op, s) for op in first + rest for s in NOTIFIED_STATES}
        ),
        60,
        'every notification received',
    )
    receiver.stop()
