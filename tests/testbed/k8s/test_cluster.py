"""Unit tests of LocalCluster's start-up supervision, with stand-in
daemons (the real control plane: tests/integration/k8s)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from vnfm_testbed import procs
from vnfm_testbed.k8s import cluster as cluster_mod
from vnfm_testbed.k8s import k8sbuild


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[cluster_mod.LocalCluster]:
    c = cluster_mod.LocalCluster(tmp_path / 'c')
    c.binaries = k8sbuild.K8sBinaries(tmp_path, tmp_path, tmp_path)
    (c.state_dir / 'logs').mkdir(parents=True)
    yield c
    assert c._stop_processes() == []


def _left(state_dir: Path) -> list[int]:
    """Live processes whose command line names ``state_dir``."""
    left = []
    for proc in Path('/proc').iterdir():
        try:
            cmdline = (proc / 'cmdline').read_bytes()
        except OSError:
            continue
        if str(state_dir).encode() in cmdline and procs.is_running(
            int(proc.name)
        ):
            left.append(int(proc.name))
    return left


def test_a_daemon_that_keeps_exiting_fails_with_status_and_output(
    cluster: cluster_mod.LocalCluster,
) -> None:
    cluster._spawn(
        'kube-scheduler', ['sh', '-c', "echo 'E0101 no such flag'; exit 3"]
    )
    with pytest.raises(cluster_mod.DaemonFailed) as failed:
        cluster._wait(lambda: False, time.monotonic() + 30, 'never')
    assert failed.value.daemon == 'kube-scheduler'
    assert failed.value.returncode == 3
    assert failed.value.output_tail.endswith('E0101 no such flag')
    message = str(failed.value)
    assert 'kube-scheduler exited (exit status 3; restarted 3 times)' in (
        message
    )
    assert message.endswith('E0101 no such flag')
    assert cluster.restarts == {'kube-scheduler': cluster_mod.MAX_RESTARTS}


def test_a_daemon_killed_while_starting_is_started_again(
    cluster: cluster_mod.LocalCluster,
) -> None:
    once = cluster.state_dir / 'killed-once'
    cluster._spawn(
        'etcd',
        [
            'sh',
            '-c',
            f'[ -e {once} ] && exec sleep 300; touch {once}; kill -9 $$',
        ],
    )
    cluster._wait(
        lambda: cluster.restarts.get('etcd') == 1,
        time.monotonic() + 30,
        'a restart',
    )
    log = (cluster.state_dir / 'logs' / 'etcd.log').read_text()
    assert 'etcd exited (signal SIGKILL); restart 1' in log
    assert cluster.daemons['etcd'].running()


def test_a_dead_daemon_after_start_is_not_restarted(
    cluster: cluster_mod.LocalCluster,
) -> None:
    cluster._spawn('kubelet', ['sh', '-c', 'exit 1'])
    cluster.complete = True
    with pytest.raises(cluster_mod.DaemonFailed, match='restarted 0 times'):
        cluster._wait(lambda: False, time.monotonic() + 30, 'never')


def test_failed_start_leaves_no_process(
    cluster: cluster_mod.LocalCluster,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every daemon starts; the last one keeps failing: start() stops all.
    def fake(name: str) -> list[str]:
        # $0 is the state directory, for _left() to find the process.
        script = (
            'echo bad flag; exit 2'
            if name == 'kube-scheduler'
            else 'sleep 300 & wait'
        )
        return ['sh', '-c', script, str(cluster.state_dir)]

    monkeypatch.setattr(k8sbuild, 'ensure_built', lambda: cluster.binaries)
    monkeypatch.setattr(cluster, '_prepare', lambda: None)
    monkeypatch.setattr(cluster, '_layout', lambda: None)
    monkeypatch.setattr(cluster, '_apiserver_ready', lambda: True)
    monkeypatch.setattr(cluster, '_has_token', lambda _ns: False)
    for name in ('etcd', 'apiserver', 'scheduler', 'controller_manager'):
        monkeypatch.setattr(
            cluster_mod.daemons, name, lambda _b, _l, n=name: fake(f'kube-{n}')
        )
    monkeypatch.setattr(
        cluster_mod.daemons, 'kubelet', lambda *_a: fake('kubelet')
    )
    with pytest.raises(cluster_mod.DaemonFailed, match='bad flag'):
        cluster.start(timeout=30)
    assert _left(cluster.state_dir) == []
    assert not (cluster.state_dir / 'state.json').exists()


def test_state_records_every_daemon_as_it_starts(
    cluster: cluster_mod.LocalCluster,
) -> None:
    # A killed `up` leaves state.json behind: `down` stops what it names.
    cluster._spawn('etcd', ['sleep', '300'])
    state = json.loads((cluster.state_dir / 'state.json').read_text())
    assert state['complete'] is False
    loaded = cluster_mod.LocalCluster.load(cluster.state_dir)
    assert loaded.procs == cluster.procs
    assert not loaded.running()  # an unfinished start is not a cluster
    loaded.stop()
    assert not cluster.daemons['etcd'].running()


def test_a_started_cluster_is_not_started_twice(
    cluster: cluster_mod.LocalCluster,
) -> None:
    # `with cluster.start():` started a second cluster over the first,
    # whose daemons then ran on, forgotten.
    cluster._spawn('etcd', ['sleep', '300'])
    with pytest.raises(cluster_mod.ClusterError, match='started already'):
        cluster.start()
    cluster.complete = True
    with cluster as entered:
        assert entered is cluster and cluster.daemons['etcd'].running()
    assert cluster.daemons == {}
