"""Every socket this process connects, seen through Python's audit hooks
(``socket.connect``): tests show that a refused address was never even
tried. While a test records, a connection to anything but loopback is
aborted by the hook itself (an audit hook may raise), so a regression
cannot send traffic to the private or metadata addresses the tests name.
"""

from __future__ import annotations

import ipaddress
import sys
import threading
from collections.abc import Iterator

import pytest

_lock = threading.Lock()
_recording: list[list] = []


class OutsideLoopback(RuntimeError):
    """A test tried to connect outside loopback."""


def _loopback(address: object) -> bool:
    if not isinstance(address, tuple):
        return True  # a Unix socket
    try:
        ip = ipaddress.ip_address(str(address[0]).split('%')[0])
    except ValueError:
        return False
    mapped = getattr(ip, 'ipv4_mapped', None)
    return ip.is_loopback or bool(mapped and mapped.is_loopback)


def _hook(event: str, args: tuple) -> None:
    if event != 'socket.connect' or not _recording:
        return
    with _lock:
        for seen in _recording:
            seen.append(args[1])
    if not _loopback(args[1]):
        raise OutsideLoopback(f'a test connected to {args[1]!r}')


sys.addaudithook(_hook)  # an audit hook cannot be removed: it stays idle


@pytest.fixture
def connects() -> Iterator[list]:
    """The addresses (host, port, ...) sockets connected to during the
    test, in order; connecting outside loopback fails."""
    seen: list = []
    with _lock:
        _recording.append(seen)
    yield seen
    with _lock:
        _recording.remove(seen)


def hosts(seen: list) -> set[str]:
    """The IP addresses in ``seen`` (without ports)."""
    return {address[0] for address in seen if isinstance(address, tuple)}
