"""vnfm-conductor as a process: start-up checks and graceful stop."""

import os
import signal
import subprocess
import sys
import time

import pytest
from cryptography import fernet

KEY = fernet.Fernet.generate_key().decode()


def conductor(
    tmp_path, extra: str = '', crypto: str = f'[crypto]\nkeys = {KEY}\n'
) -> subprocess.Popen:
    conf = tmp_path / 'vnfm.conf'
    conf.write_text(
        f'[DEFAULT]\nstate_path = {tmp_path}\ntransport_url = fake://\n'
        f'host = test-conductor\n'
        f'[database]\nconnection = sqlite:///{tmp_path / "db.sqlite"}\n'
        + crypto
        + extra
    )
    return subprocess.Popen(
        [
            sys.executable,
            '-m',
            'vnfm.cmd.conductor',
            '--config-file',
            str(conf),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def finished(proc: subprocess.Popen, timeout: float = 60) -> str:
    """The output of ``proc`` once it exits; killed (with its group) when
    it is still running at the deadline, so a failing test leaks nothing."""
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail(f'still running after {timeout} s:\n{out}')
    return out


def read_until(proc: subprocess.Popen, text: str, timeout: float = 60) -> str:
    """What ``proc`` printed up to the first line with ``text``."""
    deadline = time.monotonic() + timeout
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if text in line:
            return ''.join(lines)
        assert time.monotonic() < deadline, ''.join(lines)
    pytest.fail('conductor exited: ' + ''.join(lines))


def test_unknown_infra_driver_stops_start_up(tmp_path):
    proc = conductor(tmp_path, '[infra]\nenabled_infra_drivers = nopo\n')
    out = finished(proc)
    assert proc.returncode == 1
    assert (
        "vnfm-conductor cannot start: No driver named 'nopo' in "
        'vnfm.infra_drivers; installed: '
    ) in out


def test_no_crypto_keys_stops_start_up(tmp_path):
    proc = conductor(tmp_path, crypto='')
    out = finished(proc)
    assert proc.returncode == 1
    assert (
        'vnfm-conductor cannot start: vnfm-conductor needs [crypto] keys'
        in out
    )
    assert (
        '[crypto] keys must be the same on every vnfm-api and vnfm-conductor'
    ) in out
    assert not (tmp_path / 'crypto.key').exists()


def test_malformed_crypto_key_stops_start_up(tmp_path):
    proc = conductor(tmp_path, crypto='[crypto]\nkeys = not-a-key\n')
    out = finished(proc)
    assert proc.returncode == 1
    assert '[crypto] keys entry 0 is not a Fernet key' in out


def test_sigterm_stops_gracefully(tmp_path):
    proc = conductor(tmp_path)
    try:
        read_until(proc, 'Conductor test-conductor started')
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == 0, out
        assert 'Conductor test-conductor stopped' in out
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_start_up_objects_are_frozen_and_pauses_logged(tmp_path):
    proc = conductor(tmp_path, '[DEFAULT]\ngc_log_threshold_ms = 0.000001\n')
    try:
        out = read_until(proc, 'Conductor test-conductor started')
        assert 'objects made by start-up: garbage collections' in out
        # Later collections are timed and, over this tiny threshold, logged.
        read_until(proc, 'Garbage collection paused process')
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
