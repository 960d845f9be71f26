"""The kubernetes_cluster driver's script runner over real SSH and sudo:
the script and its config reach the VM privately, run as root, and leave
nothing behind; secrets stay out of errors."""

from __future__ import annotations

import time

import pytest

from tests.integration.ssh.test_ssh_client import FAST
from tests.integration.ssh.test_ssh_client import LOOPBACK
from tests.integration.ssh.test_ssh_client import target
from tests.unit.objects.test_k8s_cluster import valid
from vnfm.clients import ssh
from vnfm.drivers.mgmt.kubernetes_cluster import script
from vnfm.objects import k8s_cluster
from vnfm_testbed.sshd import LoopbackSshd

TOKEN = 'abcdef.0123456789abcdef'
# Stands in for the package's script: same calling convention.
FAKE = b"""#!/bin/bash
set -eu
action=$1 config=$2
echo "running $action" >&2
case $action in
join-info)
    echo "UID_SEEN=$(id -u)"
    echo "MODE=$(stat -c %a "$config")"
    echo "NODE_IP_SEEN=$(sed -n 's/^NODE_IP=//p' "$config")"
    echo "JOIN_TOKEN=abcdef.0123456789abcdef"
    ;;
fail)
    echo "kubeadm join with $(sed -n 's/^JOIN_TOKEN=//p' "$config") failed" >&2
    exit 7
    ;;
esac
"""


def config(**extra: str) -> dict[str, str]:
    params = k8s_cluster.parse(valid())
    return script.node_config(params, '198.18.0.11', '198.18.0.100') | extra


def test_runs_as_root_privately_and_cleans_up(sudo_sshd: LoopbackSshd) -> None:
    with ssh.connect(target(sudo_sshd), LOOPBACK, FAST) as session:
        runner = script.ScriptRunner(session, FAKE, 'master VNFC m1')
        with runner:
            results = runner.run('join-info', config(), timeout=30)
            directory = runner._dir
            left = session.run(f'ls -A {directory}', 'list').stdout.split()
            mode = session.run(f'stat -c %a {directory}', 'mode').stdout
        gone = session.run(f'test -e {directory}', 'gone', check=False)
    assert results['UID_SEEN'] == '0'
    assert results['MODE'] == '600'
    assert results['NODE_IP_SEEN'] == '198.18.0.11'
    assert results['JOIN_TOKEN'] == TOKEN
    assert left == ['install_k8s_cluster.sh']  # the config file is removed
    assert mode.strip() == '700'
    assert gone.exit_code == 1


def test_a_failing_action_names_vm_and_step_without_secrets(
    sudo_sshd: LoopbackSshd,
) -> None:
    with (
        ssh.connect(target(sudo_sshd), LOOPBACK, FAST) as session,
        script.ScriptRunner(session, FAKE, 'worker VNFC w2') as runner,
        pytest.raises(ssh.CommandFailed) as caught,
    ):
        runner.run('fail', config(JOIN_TOKEN=TOKEN), timeout=30)
    detail = caught.value.detail
    assert 'install script fail on worker VNFC w2' in detail
    assert 'exit code 7' in detail and '127.0.0.1' in detail
    assert TOKEN not in detail and 'kubeadm join with ********' in detail


def test_a_wrong_sudo_password_fails_the_step(sudo_sshd: LoopbackSshd) -> None:
    # Logged in by key; the password sudo is given is wrong.
    by_key = target(
        sudo_sshd, private_key=sudo_sshd.user_key, password='wrong-sudo-pw-1'
    )
    with (
        ssh.connect(by_key, LOOPBACK, FAST) as session,
        script.ScriptRunner(session, FAKE, 'master VNFC m1') as runner,
        pytest.raises(ssh.CommandFailed) as caught,
    ):
        runner.run('join-info', config(), timeout=30)
    assert 'join-info on master VNFC m1' in caught.value.detail
    assert 'incorrect password' in caught.value.detail
    assert 'wrong-sudo-pw-1' not in caught.value.detail


def test_a_root_command_past_its_deadline_is_killed(
    sudo_sshd: LoopbackSshd,
) -> None:
    seconds = str(600 + time.monotonic_ns() % 1000)
    pattern = f"'sleep {seconds[:-1]}[{seconds[-1]}]'"
    with ssh.connect(target(sudo_sshd), LOOPBACK, FAST) as session:
        with pytest.raises(ssh.CommandTimeout):
            # Deaf to TERM: only a KILL from root ends it.
            session.run(
                f"trap '' TERM; sleep {seconds}",
                'hang',
                timeout=1,
                as_root=True,
            )
        deadline = time.monotonic() + 15
        while (
            session.run(f'pgrep -f {pattern}', 'p', check=False).exit_code == 0
        ):
            assert time.monotonic() < deadline, 'the root command survived'
            time.sleep(0.2)
