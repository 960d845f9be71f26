"""[DEFAULT] defaults: a conductor is named by its host, its state (the
SQLite database, the crypto key) kept in the user's home."""

from __future__ import annotations

import os
import socket

from vnfm.conf import CONF
from vnfm.conf import default


def test_the_host_is_the_machines_name():
    assert CONF.host == socket.gethostname()
    [host] = [o for o in default.opts if o.name == 'host']
    assert host.sample_default == '<hostname>'


def test_state_is_kept_in_the_users_home():
    assert CONF.state_path == os.path.join(
        os.path.expanduser('~'), '.local', 'share', 'vnfm'
    )
