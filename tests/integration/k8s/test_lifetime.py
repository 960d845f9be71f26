"""The local cluster's daemons: started robustly, never left behind.

``vnfm-localk8s up`` is run the way scripts and CI run it: in a session of
its own, stdin from /dev/null, stdout a pipe its reader closes at once, and
the Kubernetes binaries not in the page cache (scripts run between other
work; a daemon still loading its program was taken for dead).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess  # nosec B404
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from vnfm_testbed import prereqs
from vnfm_testbed import procs
from vnfm_testbed.k8s import cluster as cluster_mod
from vnfm_testbed.k8s import daemons
from vnfm_testbed.k8s import k8sbuild


@pytest.fixture(scope='module')
def cold_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy of the binaries' cache whose files can be evicted
    from the page cache without slowing other clusters down."""
    try:
        bins = k8sbuild.ensure_built()
    except k8sbuild.BuildUnavailable as e:
        prereqs.missing(
            f'local Kubernetes unavailable: {e}', opt_out=k8sbuild.SKIP_ENV
        )
    cache = tmp_path_factory.mktemp('k8s-cache')
    shutil.copytree(bins.bin_dir, cache / 'bin')
    return cache


def _evict(cache: Path) -> None:
    for binary in (cache / 'bin').iterdir():
        fd = os.open(binary, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


@pytest.fixture
def env(cold_cache: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv('VNFM_K8S_CACHE', str(cold_cache))
    _evict(cold_cache)
    return dict(os.environ)


def left_behind(state_dir: Path) -> list[str]:
    """Live processes whose command line names ``state_dir``."""
    found = []
    for entry in Path('/proc').iterdir():
        try:
            cmdline = (entry / 'cmdline').read_bytes().replace(b'\0', b' ')
        except OSError:
            continue
        if (
            str(state_dir).encode() in cmdline
            and entry.name.isdigit()
            and procs.is_running(int(entry.name))
        ):
            found.append(cmdline.decode(errors='replace')[:120])
    return found


def localk8s(*args: str, env: dict[str, str]) -> subprocess.Popen:
    """``vnfm-localk8s ARGS`` as a script runs it in the background."""
    proc = subprocess.Popen(  # nosec B603
        [sys.executable, '-m', 'vnfm_testbed.k8s.localk8s', *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )
    assert proc.stdout is not None
    proc.stdout.close()  # the reader went away
    return proc


@pytest.fixture
def state_dir(tmp_path: Path) -> Iterator[Path]:
    state = tmp_path / 'cluster'
    yield state
    if (state / 'state.json').exists():
        cluster_mod.LocalCluster.load(state).stop()


def test_up_down_cycles_leave_nothing(
    env: dict[str, str],
    cold_cache: Path,
    state_dir: Path,
) -> None:
    for _ in range(2):
        _evict(cold_cache)
        up = localk8s('up', '--state-dir', str(state_dir), env=env)
        _, err = up.communicate(timeout=240)
        assert up.returncode == 0, err.decode()
        state = json.loads((state_dir / 'state.json').read_text())
        assert state['complete'] and state['restarts'] == {}
        assert len(left_behind(state_dir)) == 5
        down = localk8s('down', '--state-dir', str(state_dir), env=env)
        assert down.wait(timeout=60) == 0
        assert left_behind(state_dir) == []


def _wait_for_daemons(state_dir: Path, n: int) -> None:
    def started() -> bool:
        try:
            state = json.loads((state_dir / 'state.json').read_text())
        except (OSError, ValueError):
            return False
        return len(state['procs']) >= n

    assert procs.wait_for(started, 60)


def test_up_stopped_by_sigterm_leaves_nothing(
    env: dict[str, str],
    state_dir: Path,
) -> None:
    up = localk8s('up', '--state-dir', str(state_dir), env=env)
    _wait_for_daemons(state_dir, 4)
    up.send_signal(signal.SIGTERM)
    _, err = up.communicate(timeout=60)
    assert up.returncode == 1
    assert 'interrupted by SIGTERM' in err.decode()
    assert left_behind(state_dir) == []


def test_down_stops_what_a_killed_up_left(
    env: dict[str, str],
    state_dir: Path,
) -> None:
    up = localk8s('up', '--state-dir', str(state_dir), env=env)
    _wait_for_daemons(state_dir, 4)
    up.kill()
    up.wait(timeout=10)
    assert left_behind(state_dir)
    status = localk8s('status', '--state-dir', str(state_dir), env=env)
    assert status.wait(timeout=60) == 1  # not a cluster: it never started
    down = localk8s('down', '--state-dir', str(state_dir), env=env)
    assert down.wait(timeout=60) == 0
    assert left_behind(state_dir) == []


def test_daemon_killed_during_start_is_restarted(
    env: dict[str, str],
    state_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spawn = cluster_mod.LocalCluster._spawn

    def spawn_and_kill_scheduler(
        self: cluster_mod.LocalCluster,
        daemon: str,
        *args: object,
        **kw: object,
    ) -> None:
        spawn(self, daemon, *args, **kw)  # type: ignore[arg-type]
        if daemon == 'kube-scheduler' and not self.restarts:
            os.kill(self.daemons[daemon].pid, signal.SIGKILL)

    monkeypatch.setattr(
        cluster_mod.LocalCluster, '_spawn', spawn_and_kill_scheduler
    )
    cluster = cluster_mod.LocalCluster(state_dir, name='restart')
    cluster.start(timeout=180)
    with cluster:
        assert cluster.restarts == {'kube-scheduler': 1}
        assert cluster.running()
        log = (state_dir / 'logs' / 'kube-scheduler.log').read_text()
        assert 'kube-scheduler exited (signal SIGKILL); restart 1' in log
    assert left_behind(state_dir) == []


def test_daemon_that_cannot_start_fails_up_with_its_output(
    env: dict[str, str],
    state_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scheduler = daemons.scheduler
    monkeypatch.setattr(
        daemons, 'scheduler', lambda *a: [*scheduler(*a), '--no-such-flag']
    )
    cluster = cluster_mod.LocalCluster(state_dir, name='broken')
    begin = time.monotonic()
    with pytest.raises(cluster_mod.DaemonFailed) as failed:
        cluster.start(timeout=180)
    assert time.monotonic() - begin < 120
    assert failed.value.daemon == 'kube-scheduler'
    assert failed.value.returncode not in (0, None)
    assert 'unknown flag: --no-such-flag' in failed.value.output_tail
    assert 'unknown flag: --no-such-flag' in str(failed.value)
    assert left_behind(state_dir) == []
    assert not (state_dir / 'state.json').exists()
