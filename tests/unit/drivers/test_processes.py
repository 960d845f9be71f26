"""Hook subprocesses by op: a FORCEFUL cancel kills the running one."""

from __future__ import annotations

import subprocess
import sys

from vnfm.drivers import processes


def test_kill_ends_the_process_group_of_the_op_only():
    code = (
        'import subprocess,sys,time; subprocess.Popen([sys.executable, '
        '"-c", "import time; time.sleep(60)"]); time.sleep(60)'
    )
    mine = subprocess.Popen(
        [sys.executable, '-c', code], start_new_session=True
    )
    other = subprocess.Popen(
        [sys.executable, '-c', 'import time; time.sleep(60)'],
        start_new_session=True,
    )
    processes.started('op-1', mine)
    processes.started('op-2', other)
    try:
        assert processes.kill('op-1') == 1
        assert mine.wait(timeout=10) == -9
        assert other.poll() is None
        assert processes.kill('op-3') == 0
    finally:
        processes.finished('op-1', mine)
        processes.finished('op-2', other)
        other.kill()
        other.wait()
    assert processes.kill('op-1') == 0  # forgotten once finished
