"""What the SSH client takes and gives: targets that keep their secrets
out of reprs, fingerprints as OpenSSH prints them, deadlines from [ssh],
errors callers can branch on."""

from __future__ import annotations

import subprocess
from pathlib import Path

from vnfm.clients import ssh
from vnfm.clients.ssh import model
from vnfm.common import exceptions


def test_fingerprint_is_what_ssh_keygen_prints(tmp_path: Path) -> None:
    key = tmp_path / 'k'
    subprocess.run(
        ['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', str(key)],
        check=True,
    )
    printed = subprocess.run(
        ['ssh-keygen', '-lf', f'{key}.pub'],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()[1]
    line = Path(f'{key}.pub').read_text()
    assert ssh.fingerprint(line) == printed


def test_target_repr_hides_credentials() -> None:
    target = ssh.Target('192.0.2.1', 'ubuntu', password='pw-123456')
    assert 'pw-123456' not in repr(target)
    assert target.secrets() == {'pw-123456'}


def test_a_target_with_a_key_keeps_it_secret_too() -> None:
    target = model.Target(
        '198.18.0.5', 'ubuntu', private_key='-----BEGIN KEY-----x'
    )

    assert 'BEGIN KEY' not in repr(target)
    assert target.secrets() == {'-----BEGIN KEY-----x'}
    assert model.Target('198.18.0.5', 'ubuntu').secrets() == set()


def test_deadlines_come_from_the_ssh_options(conf) -> None:
    conf('connect_timeout', 3.0, 'ssh')
    conf('command_timeout', 42.0, 'ssh')

    timeouts = model.configured_timeouts()

    assert (timeouts.connect, timeouts.command) == (3.0, 42.0)
    assert timeouts.boot > 0 and timeouts.transfer > 0


def test_a_command_timeout_is_both_a_failed_command_and_a_deadline() -> None:
    error = model.CommandTimeout('kubeadm join ran past 600 s', None)

    assert isinstance(error, model.CommandFailed)
    assert isinstance(error, exceptions.DeadlineExceeded)
    assert error.exit_code is None
    assert isinstance(model.HostKeyChanged('x'), model.SshError)
    assert model.HostKeyChanged('x').title == 'SSH Host Key Changed'
