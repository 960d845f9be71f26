"""vnfm-api with several worker processes: all serve, a dead one is
replaced, SIGTERM stops them all."""

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from cryptography import fernet


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def _wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f'timed out waiting for {what}')


def _children(pid: int) -> set[int]:
    path = f'/proc/{pid}/task/{pid}/children'
    try:
        with open(path) as f:
            return {int(p) for p in f.read().split()}
    except FileNotFoundError:
        return set()


def _answers(port: int) -> bool:
    req = urllib.request.Request(
        f'http://127.0.0.1:{port}/vnflcm/v2/api_versions',
        headers={'Version': '2.0.0'},
    )
    try:
        with urllib.request.urlopen(req, timeout=2) as resp:
            return resp.status == 200
    except OSError:
        return False


@pytest.fixture
def api(tmp_path):
    port = _free_port()
    conf = tmp_path / 'vnfm.conf'
    conf.write_text(
        f'[DEFAULT]\nstate_path = {tmp_path}\ntransport_url = fake://\n'
        f'[api]\nport = {port}\nworkers = 2\n'
        # vnfm-api refuses to start without the key it shares with the
        # conductors.
        f'[crypto]\nkeys = {fernet.Fernet.generate_key().decode()}\n'
    )
    subprocess.run(
        [
            os.path.join(sys.prefix, 'bin', 'vnfm-db-manage'),
            '--config-file',
            str(conf),
            'upgrade',
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    proc = subprocess.Popen(
        [
            os.path.join(sys.prefix, 'bin', 'vnfm-api'),
            '--config-file',
            str(conf),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for(lambda: _answers(port), 60, 'vnfm-api to answer')
        yield proc, port
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.mark.timeout(120)
def test_dead_worker_is_replaced_and_sigterm_stops_all(api):
    proc, port = api
    workers = _wait_for(
        lambda: len(_children(proc.pid)) == 2 and _children(proc.pid),
        30,
        'two workers',
    )
    victim = min(workers)
    os.kill(victim, signal.SIGKILL)
    replaced = _wait_for(
        lambda: (lambda c: len(c) == 2 and victim not in c and c)(
            _children(proc.pid)
        ),
        30,
        'a replacement worker',
    )
    assert victim not in replaced
    assert all(_answers(port) for _ in range(10))

    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    for pid in replaced:
        assert (
            not os.path.exists(f'/proc/{pid}')
            or Path(f'/proc/{pid}/stat').read_text().split()[2] == 'Z'
        )
