"""vnfm-api's own server (cheroot): TCP_NODELAY and a thread pool."""

from __future__ import annotations

import socket

from vnfm.cmd import api as cmd_api
from vnfm.conf import CONF


def test_server_sets_nodelay_and_threads():
    CONF.set_override('port', 0, group='api')
    try:
        server = cmd_api.make_server(lambda e, s: [b''])
    finally:
        CONF.clear_override('port', group='api')
    assert server.nodelay is True
    assert server.requests.min >= 1
    server.prepare()
    try:
        sock = server.socket
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    finally:
        server.stop()
