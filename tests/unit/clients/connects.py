"""Every socket this process connects, seen through Python's audit hooks
(``socket.connect``): tests show that a refused address was never even
tried."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator

import pytest

_lock = threading.Lock()
_recording: list[list] = []


def _hook(event: str, args: tuple) -> None:
    if event == 'socket.connect' and _recording:
        with _lock:
            for seen in _recording:
                seen.append(args[1])


sys.addaudithook(_hook)  # an audit hook cannot be removed: it stays idle


@pytest.fixture
def connects() -> Iterator[list]:
    """The addresses (host, port, ...) sockets connected to during the
    test, in order."""
    seen: list = []
    with _lock:
        _recording.append(seen)
    yield seen
    with _lock:
        _recording.remove(seen)


def hosts(seen: list) -> set[str]:
    """The IP addresses in ``seen`` (without ports)."""
    return {address[0] for address in seen if isinstance(address, tuple)}
