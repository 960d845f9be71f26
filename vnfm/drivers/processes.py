"""Hook subprocesses by the op occurrence they run for, so a FORCEFUL
cancel (SOL003 5.4.17) can kill the one running now."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess  # nosec B404 - only to type the processes kept here
import threading

_lock = threading.Lock()
_running: dict[str, set[subprocess.Popen]] = {}


def started(op_id: str | None, proc: subprocess.Popen) -> None:
    """Record that ``proc`` (a process-group leader) runs for ``op_id``."""
    if op_id is None:
        return
    with _lock:
        _running.setdefault(op_id, set()).add(proc)


def finished(op_id: str | None, proc: subprocess.Popen) -> None:
    """Forget ``proc``."""
    with _lock:
        procs = _running.get(op_id or '')
        if procs is not None:
            procs.discard(proc)
            if not procs:
                del _running[op_id or '']


def kill(op_id: str) -> int:
    """SIGKILL the process group of every hook running for ``op_id``; how
    many there were."""
    with _lock:
        procs = list(_running.get(op_id, ()))
    for proc in procs:
        with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
            os.killpg(proc.pid, signal.SIGKILL)
    return len(procs)
