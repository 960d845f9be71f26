"""Total deadlines and cancellation of external calls.

A per-read timeout does not bound a call: a peer that trickles one byte
within each read timeout holds it for ever. Every external call therefore
runs in a ``scope``, a wall-clock deadline. The transports ``attach`` what
a call is using (an HTTP connection, an SSH socket) to the scopes in force;
when a scope's deadline passes, or a FORCEFUL cancel interrupts the op the
call runs for (``interrupt``), a watchdog thread shuts those sockets down:
the blocked read returns at once, the library fails, and the scope turns
that failure into ``CallTimedOut`` or ``CallInterrupted``, naming the call.

Scopes nest within a thread (a context variable): a call inside a scope
ends at the sooner deadline, and an op's scope (``for_op``) holds every
call its run makes. Once tripped, a scope refuses new calls at once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import heapq
import itertools
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar

from vnfm.common import exceptions

DEADLINE, CANCEL = 'deadline', 'cancel'


class CallTimedOut(exceptions.DeadlineExceeded):
    """An external call did not finish within its total deadline."""


class CallInterrupted(exceptions.OperationFailed):
    """A FORCEFUL cancel interrupted an external call of its op."""

    title = 'Cancelled'


CallFailed = (CallTimedOut, CallInterrupted)


@dataclasses.dataclass(eq=False)
class Scope:
    """One call (or one op's run): its deadline and what it is using."""

    what: str
    seconds: float | None  # None: no deadline of its own
    parent: Scope | None
    op_id: str | None = None
    tripped: str | None = None  # DEADLINE or CANCEL once it fired
    closers: dict[int, Callable[[], None]] = dataclasses.field(
        default_factory=dict
    )
    deadline: float = float('inf')
    live: bool = True
    # Whether a failure inside, once tripped, becomes this scope's error
    # (not for an op's scope: its run records its own errors).
    judge: bool = True

    def chain(self) -> list[Scope]:
        """This scope and its enclosing ones, innermost first."""
        out: list[Scope] = []
        scope: Scope | None = self
        while scope is not None:
            out.append(scope)
            scope = scope.parent
        return out

    def cause(self) -> Scope | None:
        """The outermost tripped scope of the chain (it explains all)."""
        tripped = [s for s in self.chain() if s.tripped]
        return tripped[-1] if tripped else None

    def error(self, cause: Scope) -> exceptions.VnfmError:
        """What ended this call, ``cause`` having tripped."""
        if cause.tripped == CANCEL:
            return CallInterrupted(
                f'{self.what}: interrupted by a FORCEFUL cancel of the '
                'operation.'
            )
        done = f'{cause.what}: no complete answer within {cause.seconds:g} s'
        if cause is self:
            return CallTimedOut(f'{done}.')
        return CallTimedOut(f'{done} (cut off during {self.what}).')


_lock = threading.Lock()
_current: ContextVar[Scope | None] = ContextVar('vnfm_call', default=None)
_ops: dict[str, set[Scope]] = {}
_keys = itertools.count()


def _trip(scope: Scope, why: str) -> int:
    """Mark ``scope`` tripped and shut what is attached to it; how many."""
    with _lock:
        if not scope.live:
            return 0
        scope.tripped = scope.tripped or why
        closers = list(scope.closers.values())
    for close in closers:
        close()
    return len(closers)


class _Watchdog:
    """One thread that trips each scope at its deadline."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, Scope]] = []
        self._thread: threading.Thread | None = None

    def arm(self, scope: Scope) -> None:
        with self._cond:
            heapq.heappush(self._heap, (scope.deadline, next(_keys), scope))
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name='vnfm-deadlines', daemon=True
                )
                self._thread.start()
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._heap or self._heap[0][0] > time.monotonic():
                    wait = (
                        self._heap[0][0] - time.monotonic()
                        if self._heap
                        else None
                    )
                    self._cond.wait(wait)
                _, _, scope = heapq.heappop(self._heap)
            _trip(scope, DEADLINE)


_WATCHDOG = _Watchdog()


def current() -> Scope | None:
    """The innermost scope in force, if any."""
    return _current.get()


@contextlib.contextmanager
def _entered(scope: Scope) -> Iterator[Scope]:
    """Make ``scope`` the one in force; a call's failure (or its result
    after it tripped) becomes the scope's error. An op's scope (no
    deadline of its own) leaves its calls' errors as they are."""
    cause = scope.parent.cause() if scope.parent else None
    if cause is not None:
        raise scope.error(cause)
    token = _current.set(scope)
    try:
        yield scope
        # A library may take a connection shut under it for the end of
        # the answer: what it read is cut off all the same.
        cause = scope.cause()
        if cause is not None and scope.judge:
            raise scope.error(cause)
    except CallFailed:
        raise
    except Exception:
        cause = scope.cause()
        if cause is None or not scope.judge:
            raise
        raise scope.error(cause) from None
    finally:
        _current.reset(token)
        with _lock:
            scope.live = False
            for outer in scope.chain()[1:]:
                for key in scope.closers:
                    outer.closers.pop(key, None)
            # The watchdog keeps the scope until its deadline: not what
            # it used.
            scope.closers.clear()


@contextlib.contextmanager
def scope(seconds: float | None, what: str) -> Iterator[Scope]:
    """Run an external call (``what``, for messages) for at most
    ``seconds`` in all; CallTimedOut when it is cut off. ``seconds`` None:
    a wait with a deadline of its own, that the scopes around it (an
    enclosing deadline, a FORCEFUL cancel) still end."""
    parent = _current.get()
    call = Scope(what=what, seconds=seconds, parent=parent)
    if seconds is not None:
        call.deadline = time.monotonic() + seconds
    if parent is not None:
        call.deadline = min(call.deadline, parent.deadline)
    if call.deadline < float('inf'):
        _WATCHDOG.arm(call)
    with _entered(call):
        yield call


@contextlib.contextmanager
def for_op(op_id: str) -> Iterator[Scope]:
    """Run the calls of op ``op_id`` so that ``interrupt`` can end them."""
    run = Scope(what=f'operation {op_id}', seconds=None, parent=None)
    run.op_id, run.judge = op_id, False
    with _lock:
        _ops.setdefault(op_id, set()).add(run)
    try:
        with _entered(run):
            yield run
    finally:
        with _lock:
            _ops[op_id].discard(run)
            if not _ops[op_id]:
                del _ops[op_id]


def interrupt(op_id: str) -> int:
    """End the calls op ``op_id`` is waiting for, and refuse its next ones
    (a FORCEFUL cancel); how many connections were shut."""
    with _lock:
        runs = list(_ops.get(op_id, ()))
    return sum(_trip(run, CANCEL) for run in runs)


def attach(close: Callable[[], None]) -> None:
    """Have ``close`` called if a scope in force trips while the innermost
    one lasts; if one has tripped already, ``close`` now and raise."""
    inner = _current.get()
    if inner is None:
        return
    key = next(_keys)
    with _lock:
        chain = inner.chain()
        for scope_ in chain:
            scope_.closers[key] = close
    check(close)


def check(close: Callable[[], None] | None = None) -> None:
    """CallTimedOut or CallInterrupted if a scope in force has tripped
    (``close`` called first), else nothing."""
    inner = _current.get()
    cause = inner.cause() if inner is not None else None
    if inner is None or cause is None:
        return
    if close is not None:
        close()
    raise inner.error(cause)


def shut(sock: socket.socket | None) -> None:
    """Shut ``sock`` down both ways: a read blocked on it returns now (the
    socket's owner still closes it)."""
    if sock is None:
        return
    with contextlib.suppress(OSError):
        # The plain socket's shutdown, also for TLS: no close_notify to a
        # peer that does not read.
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
