"""kubernetes_cluster.sessions: deadlines (the sessions themselves are
tested over real SSH in tests/integration/ssh)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from vnfm.conf import CONF
from vnfm.drivers.mgmt.kubernetes_cluster import sessions


@pytest.fixture
def short_commands() -> Iterator[None]:
    CONF.set_override('command_timeout', 50, group='ssh')
    yield
    CONF.clear_override('command_timeout', group='ssh')


def test_no_deadline_beyond_the_operations(short_commands: None) -> None:
    timeouts = sessions.timeouts_within(20.0)
    assert timeouts.command == 20.0
    assert timeouts.boot == 20.0
    assert timeouts.connect == CONF.ssh.connect_timeout
    roomy = sessions.timeouts_within(10_000.0)
    assert roomy.command == 50.0
    assert roomy.boot == CONF.ssh.boot_timeout
