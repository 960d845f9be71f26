"""vnfm.clients.deadlines: a call blocked on a socket ends at its total
deadline or at a FORCEFUL cancel of its op, and says which."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from vnfm.clients import deadlines


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    """A connected pair: reads on the first block until it is shut."""
    a, b = socket.socketpair()
    yield a, b
    a.close()
    b.close()


def _until(done, seconds: float = 5.0) -> None:
    """Poll ``done()`` until true; fail after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, 'not in time'
        time.sleep(0.01)


def _blocked_read(sock: socket.socket, seconds: float, what: str) -> bytes:
    with deadlines.scope(seconds, what):
        deadlines.attach(lambda: deadlines.shut(sock))
        return sock.recv(1)


def test_a_read_blocked_past_the_deadline_ends_then(pair) -> None:
    started = time.monotonic()
    with pytest.raises(deadlines.CallTimedOut) as caught:
        _blocked_read(pair[0], 0.3, 'GET http://peer/x')
    assert 0.3 <= time.monotonic() - started < 2.0
    assert caught.value.detail == (
        'GET http://peer/x: no complete answer within 0.3 s.'
    )


def test_a_call_that_finishes_in_time_is_untouched(pair) -> None:
    pair[1].sendall(b'x')
    assert _blocked_read(pair[0], 5, 'GET') == b'x'
    # The watchdog's later firing finds the scope gone: nothing is shut.
    pair[1].sendall(b'y')
    assert pair[0].recv(1) == b'y'


def test_the_sooner_deadline_of_nested_scopes_holds(pair) -> None:
    started = time.monotonic()
    with (
        pytest.raises(deadlines.CallTimedOut) as caught,
        deadlines.scope(0.3, 'sync of VIM a'),
    ):
        _blocked_read(pair[0], 30, 'Keystone')
    assert time.monotonic() - started < 2.0
    assert caught.value.detail == (
        'sync of VIM a: no complete answer within 0.3 s '
        '(cut off during Keystone).'
    )


def test_after_the_deadline_no_new_call_starts() -> None:
    with (
        pytest.raises(deadlines.CallTimedOut),
        deadlines.scope(0.2, 'outer') as outer,
    ):
        _until(lambda: outer.tripped)  # the watchdog trips it
        with (
            pytest.raises(deadlines.CallTimedOut) as caught,
            deadlines.scope(5, 'inner'),
        ):
            pytest.fail('a call of a tripped scope ran')
        assert 'cut off during inner' in caught.value.detail


def test_a_result_read_from_a_shut_connection_is_not_trusted() -> None:
    with (
        pytest.raises(deadlines.CallTimedOut),
        deadlines.scope(0.2, 'GET') as call,
    ):
        _until(lambda: call.tripped)
        # A library took the shut connection for the end of the answer.


def test_interrupt_ends_the_waiting_call_of_that_op_only(pair) -> None:
    other = socket.socketpair()
    outcome: dict[str, BaseException | bytes] = {}

    def run(op_id: str, sock: socket.socket) -> None:
        try:
            with deadlines.for_op(op_id):
                outcome[op_id] = _blocked_read(sock, 60, f'Heat of {op_id}')
        except deadlines.CallInterrupted as e:
            outcome[op_id] = e

    threads = [
        threading.Thread(target=run, args=('op1', pair[0])),
        threading.Thread(target=run, args=('op2', other[0])),
    ]
    for thread in threads:
        thread.start()
    _until(lambda: deadlines.interrupt('op1'))  # once its call waits
    threads[0].join(5)
    assert isinstance(outcome['op1'], deadlines.CallInterrupted)
    assert 'FORCEFUL cancel' in outcome['op1'].detail
    assert threads[1].is_alive()  # op2 still waits
    other[1].sendall(b'z')
    threads[1].join(5)
    assert outcome['op2'] == b'z'
    other[0].close()
    other[1].close()


def test_without_a_scope_nothing_is_attached(pair) -> None:
    deadlines.attach(lambda: pytest.fail('closed outside any call'))
    assert deadlines.current() is None
