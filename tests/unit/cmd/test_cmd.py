"""vnfm.cmd: every console command runs threads, never eventlet; importing
the package keeps eventlet out before oslo.messaging is imported."""

from __future__ import annotations

import subprocess
import sys


def run(code: str) -> str:
    # A new interpreter: what is imported is process-wide state.
    done = subprocess.run(  # nosec B603 - fixed argv
        [sys.executable, '-c', code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_command_process_cannot_load_eventlet():
    out = run(
        'import vnfm.cmd\n'
        'import oslo_messaging\n'
        'from oslo_service import backend\n'
        'try:\n'
        '    import eventlet\n'
        'except ImportError:\n'
        '    print("refused", backend.get_backend_type().name)\n'
    )

    assert out == 'refused THREADING'


def test_too_late_changes_nothing():
    out = run(
        'import eventlet\n'
        'from vnfm.common import process\n'
        'print(process.without_eventlet())\n'
        'import eventlet\n'
    )

    assert out == 'False'
