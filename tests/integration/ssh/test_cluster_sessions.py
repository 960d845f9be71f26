"""The kubernetes_cluster driver's sessions over real SSH: one connection
per VM per hook, host keys pinned at first contact and held after."""

from __future__ import annotations

import dataclasses

import pytest

from tests.integration.ssh.test_ssh_client import FAST
from tests.integration.ssh.test_ssh_client import LOOPBACK
from tests.unit.drivers.mgmt.kubernetes_cluster.instances import params
from vnfm.clients import ssh
from vnfm.drivers.mgmt.kubernetes_cluster import hostkeys
from vnfm.drivers.mgmt.kubernetes_cluster import nodes
from vnfm.drivers.mgmt.kubernetes_cluster import sessions
from vnfm.lcm import merge
from vnfm_testbed.sshd import LoopbackSshd


def cluster_params(server: LoopbackSshd):  # noqa: ANN201
    base = params()
    login = {'username': server.username, 'password': server.password}
    return dataclasses.replace(
        base,
        master=dataclasses.replace(base.master, **login),
        worker=dataclasses.replace(base.worker, **login),
    )


def vm(resource_id: str, role: str = nodes.WORKER) -> nodes.VmNode:
    return nodes.VmNode(
        role, f'vnfc-{resource_id}', 'VDU', resource_id, '127.0.0.1', ''
    )


class Hook:
    """What a hook keeps: the instance's metadata and its work."""

    def __init__(self, metadata: dict | None = None) -> None:
        self.metadata = metadata or {}
        self.work: dict = {}
        self.saved: list[dict] = []

    def sessions(self, server: LoopbackSshd) -> sessions.Sessions:
        pins = hostkeys.Pins.of({'metadata': self.metadata}, self.work)
        return sessions.Sessions(
            cluster_params(server),
            pins,
            self.work,
            lambda: self.saved.append(dict(self.work)),
            LOOPBACK,
            FAST,
            port=server.port,
        )


def test_one_connection_per_vm_and_the_key_pinned(
    own_sshd: LoopbackSshd,
) -> None:
    hook = Hook()
    with hook.sessions(own_sshd) as open_sessions:
        first = open_sessions.open(vm('server-1', nodes.MASTER))
        for _ in range(3):
            assert open_sessions.open(vm('server-1', nodes.MASTER)) is first
            first.run('true', 'step')
        open_sessions.open(vm('server-2'))
        assert open_sessions.connections == 2
        changes = open_sessions.pins.changes()
    assert own_sshd.log_tail(200).count('Accepted password') == 2
    # The work was saved as soon as each key was learnt.
    assert hook.saved[0]['learned_host_keys'] == {
        'server-1': [own_sshd.host_key]
    }
    stored = changes['metadata'][hostkeys.METADATA_KEY]
    assert stored == {
        'server-1': [own_sshd.host_key],
        'server-2': [own_sshd.host_key],
    }


def test_a_pinned_vm_with_a_new_key_is_refused_unless_forgotten(
    own_sshd: LoopbackSshd,
) -> None:
    hook = Hook()
    with hook.sessions(own_sshd) as open_sessions:
        open_sessions.open(vm('server-1'))
        patch = open_sessions.pins.changes()['metadata']
    later = Hook(merge.merge_patch({}, patch))
    own_sshd.stop()
    own_sshd.regenerate_host_key()
    own_sshd.start()
    with (
        later.sessions(own_sshd) as open_sessions,
        pytest.raises(ssh.HostKeyChanged),
    ):
        open_sessions.open(vm('server-1'))
    healed = Hook(later.metadata)
    with healed.sessions(own_sshd) as open_sessions:
        open_sessions.pins.forget('server-1')
        session = open_sessions.open(vm('server-1'))
        assert session.first_contact
        new = open_sessions.pins.changes()['metadata']
    assert new[hostkeys.METADATA_KEY]['server-1'] == [own_sshd.host_key]
