"""vnfm-all: API + conductor in one process with its embedded defaults."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def _get(url: str, headers: dict | None = None):
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=5) as resp:
        return resp.status, json.loads(resp.read())


def _wait_answer(proc: subprocess.Popen, url: str, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while True:
        assert proc.poll() is None, proc.stdout.read()
        try:
            return _get(url, {'Version': '2.0.0'})
        except (urllib.error.URLError, ConnectionError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@pytest.fixture
def vnfm_all(tmp_path):
    """Start ``python -m vnfm.cmd.all`` with only state_path and the port
    configured; yield (process, base URL, state dir)."""
    state = tmp_path / 'state'
    port = _free_port()
    conf = tmp_path / 'vnfm.conf'
    conf.write_text(f'[DEFAULT]\nstate_path = {state}\n[api]\nport = {port}\n')
    env = dict(os.environ)
    env.pop('OS_TRANSPORT_URL', None)
    proc = subprocess.Popen(
        [sys.executable, '-m', 'vnfm.cmd.all', '--config-file', str(conf)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        yield proc, f'http://127.0.0.1:{port}', state
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        proc.stdout.close()


@pytest.mark.parametrize('sig', [signal.SIGTERM, signal.SIGINT])
def test_starts_with_embedded_defaults_answers_and_stops(vnfm_all, sig):
    proc, url, state = vnfm_all

    status, body = _wait_answer(proc, url + '/vnflcm/v2/api_versions')

    assert status == 200
    assert body['uriPrefix'] == '/vnflcm/v2'
    # SQLite in state_path, created and migrated at start.
    assert (state / 'vnfm.sqlite').exists()
    assert _get(url + '/vnfpkgm/v1/vnf_packages') == (200, [])
    proc.send_signal(sig)
    assert proc.wait(timeout=15) == 0
    output = proc.stdout.read()
    assert f'API listening on {url}' in output
    assert 'Traceback' not in output
