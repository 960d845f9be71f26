"""README's first command, as a newcomer runs it: ``vnfm-demo`` (what
``tools/demo`` runs once the virtualenv is there) on the local Kubernetes,
with the real client, every step with its expected outcome."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from vnfm_testbed.k8s.fixtures import local_k8s  # noqa: F401 - builds it once


def test_the_cnf_demo_passes_every_step(
    local_k8s: object,  # noqa: F811 - the build the demo starts
    tmp_path: Path,
) -> None:
    demo = Path(sys.executable).parent / 'vnfm-demo'
    done = subprocess.run(
        [str(demo), '--state-dir', str(tmp_path / 'state')],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    tail = done.stdout[-3000:] + done.stderr[-2000:]
    assert done.returncode == 0, tail
    assert 'All steps passed' in done.stdout, tail
