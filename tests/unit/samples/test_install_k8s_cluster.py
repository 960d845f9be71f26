"""samples/kubernetes_cluster's install script: how it reads its config.

Only what runs before any change to the machine is run here (an unknown
action stops after the config is read); the script itself is checked by
shellcheck in the lint run and needs a VM of its own to install anything.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from vnfm_testbed import prereqs

SCRIPT = (
    Path(__file__).resolve().parents[3]
    / 'samples'
    / 'kubernetes_cluster'
    / 'Scripts'
    / 'install_k8s_cluster.sh'
)


@pytest.fixture(autouse=True)
def _root() -> None:
    if os.geteuid() != 0:
        prereqs.missing('the install script refuses to run but as root')


def run(tmp_path: Path, config: str, action: str = 'no-such-action'):
    path = tmp_path / 'config'
    path.write_text(config)
    return subprocess.run(
        ['bash', str(SCRIPT), action, str(path)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_values_are_never_evaluated(tmp_path: Path) -> None:
    marker = tmp_path / 'pwned'
    result = run(
        tmp_path, f'NODE_IP=$(touch {marker})\nPOD_CIDR=`touch {marker}`\n'
    )
    assert result.returncode == 1
    assert 'unknown action no-such-action' in result.stderr
    assert not marker.exists()


def test_unknown_key_is_refused_without_its_value(tmp_path: Path) -> None:
    result = run(tmp_path, 'NODE_IP=192.0.2.1\nPASSWD=hunter2-secret\n')
    assert result.returncode == 1
    assert 'unknown config key PASSWD' in result.stderr
    assert 'hunter2-secret' not in result.stderr


def test_an_action_names_what_it_needs(tmp_path: Path) -> None:
    result = run(tmp_path, 'NODE_IP=192.0.2.1\n', action='join-worker')
    assert result.returncode == 1
    assert 'join-worker needs CLUSTER_ENDPOINT' in result.stderr
