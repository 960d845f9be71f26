"""Unit tests of the process lifetime part of vnfm_testbed.procs."""

from __future__ import annotations

import os
import shutil
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from vnfm_testbed import procs


@pytest.fixture
def started() -> Iterator[list[procs.Daemon]]:
    """Daemons a test starts; none may outlive it."""
    daemons: list[procs.Daemon] = []
    yield daemons
    assert procs.stop_daemons(daemons, timeout=2) == []


def _daemon(
    started: list[procs.Daemon], tmp_path: Path, script: str
) -> procs.Daemon:
    daemon = procs.Daemon(['sh', '-c', script], tmp_path / 'log')
    started.append(daemon)
    return daemon


def _evict_from_page_cache(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def test_a_daemon_still_loading_its_program_is_running(
    started: list[procs.Daemon],
    tmp_path: Path,
) -> None:
    # While the kernel reads a binary from disk after exec, the new
    # process's /proc/<pid>/cmdline is empty: a check of the command line
    # took such a daemon for dead, and did not stop it.
    binary = tmp_path / 'kube-scheduler'
    shutil.copy(shutil.which('sleep') or '/bin/sleep', binary)
    for _ in range(20):
        _evict_from_page_cache(binary)
        pid = procs.spawn([str(binary), '300'], tmp_path / 'log')
        started.append(procs.spawned(pid))
        assert procs.is_running(pid)
        assert procs.stop(pid, timeout=2) == []
        assert not procs.is_running(pid)


def test_exit_status_and_output_tail(
    started: list[procs.Daemon],
    tmp_path: Path,
) -> None:
    daemon = _daemon(
        started, tmp_path, 'for i in $(seq 30); do echo line $i; done; exit 3'
    )
    assert procs.wait_for(lambda: not daemon.running(), 10)
    assert daemon.exit_reason() == 'exit status 3'
    tail = daemon.output_tail(lines=2).splitlines()
    # The first lines (an error before a usage text), then the tail.
    assert tail == [
        'line 1',
        'line 2',
        'line 3',
        'line 4',
        'line 5',
        '[... 23 lines ...]',
        'line 29',
        'line 30',
    ]


def test_killed_daemon_names_the_signal(
    started: list[procs.Daemon],
    tmp_path: Path,
) -> None:
    daemon = _daemon(started, tmp_path, 'sleep 300')
    os.kill(daemon.pid, signal.SIGKILL)
    assert procs.wait_for(lambda: not daemon.running(), 10)
    assert daemon.exit_reason() == 'signal SIGKILL'


def _children_started(daemon: procs.Daemon, n: int) -> list[procs.Proc]:
    assert procs.wait_for(lambda: len(procs.descendants(daemon.pid)) >= n, 10)
    return procs.descendants(daemon.pid)


def test_stop_leaves_no_descendant_even_in_another_session(
    started: list[procs.Daemon],
    tmp_path: Path,
) -> None:
    daemon = _daemon(
        started, tmp_path, "sleep 300 & setsid sleep 300 & trap '' TERM; wait"
    )
    children = _children_started(daemon, 2)
    assert daemon.stop(timeout=1) == []  # SIGKILL after the ignored TERM
    assert not daemon.running()
    assert not any(child.alive() for child in children)


def test_stop_stops_the_group_of_a_leader_that_exited(
    started: list[procs.Daemon],
    tmp_path: Path,
) -> None:
    daemon = _daemon(started, tmp_path, 'sleep 300 & echo $!; exit 0')
    assert procs.wait_for(lambda: not daemon.running(), 10)
    child = procs.Proc.of(int(daemon.output_tail()))
    assert child is not None and child.alive()  # in the daemon's group
    assert daemon.stop(timeout=2) == []
    assert not child.alive()


# The main thread leaves (its /proc entry turns 'Z') while a second thread,
# deaf to SIGTERM, ends the process a second later: waitpid reports the exit
# only then, as it does for a conductor whose threads are still exiting.
_LEADER_LEAVES_FIRST = """
import ctypes, os, signal, sys, threading, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
def later():
    time.sleep(1)
    os._exit(0)
threading.Thread(target=later).start()
print('ready', flush=True)
ctypes.CDLL(None).pthread_exit(None)
"""


def test_stop_waits_until_the_kernel_reports_the_exit(
    started: list[procs.Daemon],
    tmp_path: Path,
) -> None:
    daemon = procs.Daemon(
        [sys.executable, '-c', _LEADER_LEAVES_FIRST], tmp_path / 'log'
    )
    started.append(daemon)
    assert procs.wait_for(lambda: 'ready' in daemon.output_tail(), 10)
    assert procs.wait_for(lambda: not daemon.proc.alive(), 10)  # 'Z'
    assert daemon.stop(timeout=5) == []
    assert not daemon.running()


def test_a_reused_pid_is_another_process() -> None:
    me = procs.Proc.of(os.getpid())
    assert me is not None and me.alive()
    assert not procs.Proc(me.pid, me.start + 1).alive()
    # Stopping "it" signals nobody: this test process lives on.
    assert procs.stop_procs([procs.Proc(me.pid, me.start + 1)]) == []


def test_killed_service_leaves_no_orphan_after_stop(tmp_path: Path) -> None:
    # A conductor killed with -9 leaves its hooks (sessions of their own)
    # running; stopping the services stops them too.
    services = procs.VnfmServices(tmp_path)
    services._spawn('conductor-1', ['sh', '-c', 'setsid sleep 300 & wait'])
    daemon = procs.spawned(services.pids['conductor-1'])
    assert daemon is not None
    (hook,) = _children_started(daemon, 1)
    services.kill('conductor-1')
    assert hook.alive()
    services.stop()
    assert not hook.alive()


def test_a_cluster_transport_url_is_a_kombu_failover_list() -> None:
    assert procs.kombu_url('rabbit://u:p@a:1,u:p@b:2/vh') == (
        'amqp://u:p@a:1/vh;amqp://u:p@b:2/vh'
    )
    assert procs.kombu_url('rabbit://guest:guest@127.0.0.1:5672/') == (
        'amqp://guest:guest@127.0.0.1:5672/'
    )
