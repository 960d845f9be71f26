"""One SSH session per VM for the length of a hook, host keys pinned.

``Sessions.open(node)`` logs into a cluster VM with the credentials of its
role the first time the hook needs it and returns the same session after
that. A VM met for the first time has its host key pinned (``Pins.learn``)
and the hook's work saved at once, so a retry holds the VM to that key.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

from vnfm.clients import outbound
from vnfm.clients import ssh
from vnfm.drivers.mgmt.kubernetes_cluster import hostkeys
from vnfm.drivers.mgmt.kubernetes_cluster import nodes
from vnfm.objects import k8s_cluster


def timeouts_within(remaining: float) -> ssh.Timeouts:
    """The ``[ssh]`` deadlines, none beyond ``remaining`` seconds (what is
    left of the operation's deadline)."""
    conf = ssh.configured_timeouts()
    return dataclasses.replace(
        conf,
        boot=min(conf.boot, remaining),
        command=min(conf.command, remaining),
    )


class Sessions:
    """The open sessions of one hook, by VM."""

    def __init__(
        self,
        params: k8s_cluster.ClusterParams,
        pins: hostkeys.Pins,
        work: dict[str, Any],
        save_work: Callable[[], None],
        policy: outbound.Policy,
        timeouts: ssh.Timeouts,
        port: int = 22,
    ) -> None:
        self.params = params
        self.pins = pins
        self.work = work
        self.save_work = save_work
        self.policy = policy
        self.timeouts = timeouts
        self.port = port
        self._open: dict[str, ssh.Session] = {}
        #: Connections opened (one per VM when all goes well).
        self.connections = 0

    def open(self, node: nodes.VmNode) -> ssh.Session:
        """The session to ``node``, opened at its first use."""
        key = node.resource_id or node.vnfc_id
        session = self._open.get(key)
        if session is not None:
            return session
        login = nodes.login(self.params, node)
        target = ssh.Target(
            host=node.ssh_address,
            username=login.username,
            password=login.password,
            private_key=login.private_key,
            port=self.port,
            known_keys=self.pins.known_keys(key),
        )
        began = time.monotonic()
        session = ssh.connect(target, self.policy, self.timeouts)
        self.connections += 1
        # Kept with the op (bench/k8s_cluster.py reads it).
        logins = self.work.setdefault('ssh_logins', [])
        logins.append([key, round(time.monotonic() - began, 3)])
        self._open[key] = session
        session.hide(*self.params.secrets())
        if session.first_contact:
            self.pins.learn(key, session.host_keys, self.work)
            self.save_work()
        return session

    def close(self) -> None:
        """Close every session."""
        for session in self._open.values():
            session.close()
        self._open.clear()

    def __enter__(self) -> Sessions:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
