"""vnfm.clients.ssh.connection without a server: keys, credentials,
policy, errors (tests/integration/ssh has the real server)."""

from __future__ import annotations

import io
import ipaddress
import subprocess
import time
from pathlib import Path

import paramiko
import pytest

from vnfm.clients import outbound
from vnfm.clients import ssh
from vnfm.clients.ssh import connection

from ..peers import Peer


def new_key(tmp_path: Path) -> paramiko.PKey:
    """A fresh Ed25519 key made by ssh-keygen."""
    path = tmp_path / f'k{len(list(tmp_path.iterdir()))}'
    subprocess.run(
        ['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', str(path)],
        check=True,
    )
    return paramiko.Ed25519Key.from_private_key(io.StringIO(path.read_text()))


def test_key_line_round_trips(tmp_path: Path) -> None:
    line = ssh.key_line(new_key(tmp_path))
    assert line.startswith('ssh-ed25519 AAAA')
    assert ssh.key_line(connection._parse_key(line, 'h')) == line


def test_no_credentials_is_refused_before_connecting() -> None:
    with pytest.raises(ssh.SshError) as caught:
        ssh.connect(ssh.Target('192.0.2.1', 'ubuntu'), outbound.Policy())
    assert '192.0.2.1' in caught.value.detail
    assert 'ubuntu' in caught.value.detail


def test_unusable_private_key_error_does_not_quote_it() -> None:
    bad = '-----BEGIN OPENSSH PRIVATE KEY-----\nnot-a-key-zzzz\n-----END'
    with pytest.raises(ssh.SshError) as caught:
        ssh.connect(
            ssh.Target('192.0.2.1', 'ubuntu', private_key=bad),
            outbound.Policy(),
        )
    assert 'not-a-key-zzzz' not in caught.value.detail
    assert 'private key' in caught.value.detail


def test_bad_pinned_key_names_the_host() -> None:
    target = ssh.Target(
        '192.0.2.7', 'u', password='p', known_keys=('garbage',)
    )
    with pytest.raises(ssh.SshError) as caught:
        ssh.connect(target, outbound.Policy())
    assert '192.0.2.7' in caught.value.detail


def test_outbound_policy_is_obeyed() -> None:
    policy = outbound.Policy(
        denied=(ipaddress.ip_network('192.0.2.0/24'),),
        resolver=lambda host, port: ['192.0.2.9'],
    )
    target = ssh.Target('vm.example', 'u', password='p')
    with pytest.raises(ssh.SshError) as caught:
        ssh.connect(target, policy, ssh.Timeouts(boot=1))
    assert 'does not connect to' in caught.value.detail


@pytest.mark.parametrize(
    ('error', 'transient'),
    [
        (ConnectionRefusedError(), True),
        (TimeoutError(), True),
        (OSError(113, 'No route to host'), True),
        (EOFError(), True),
        (paramiko.SSHException('Error reading SSH protocol banner'), True),
        (paramiko.SSHException('Incompatible ssh peer'), False),
        (paramiko.AuthenticationException('no'), False),
        (ValueError('x'), False),
    ],
)
def test_what_is_retried_while_a_vm_boots(
    error: BaseException, transient: bool
) -> None:
    assert connection._transient(error) is transient


def test_host_key_changed_names_both_fingerprints(tmp_path: Path) -> None:
    old = ssh.key_line(new_key(tmp_path))
    new = new_key(tmp_path)
    target = ssh.Target('192.0.2.3', 'u', password='p', known_keys=(old,))
    error = connection._changed(target, new)
    assert ssh.fingerprint(old) in error.detail
    assert ssh.fingerprint(ssh.key_line(new)) in error.detail
    assert '192.0.2.3' in error.detail


@pytest.mark.parametrize('kind', ['trickling_banner', 'garbage'])
def test_an_ssh_server_that_trickles_or_lies_ends_the_login_in_time(
    kind: str, request: pytest.FixtureRequest
) -> None:
    peer = request.getfixturevalue(kind)
    # Each timeout alone would restart at every byte the server trickles.
    timeouts = ssh.Timeouts(connect=0.5, banner=0.5, auth=0.5, boot=0)
    target = ssh.Target('127.0.0.1', 'u', port=peer.port, password='p')
    started = time.monotonic()
    with pytest.raises(ssh.SshError) as caught:
        ssh.connect(target, outbound.Policy(), timeouts)
    assert time.monotonic() - started < 1.5 + 2.0
    assert '127.0.0.1' in caught.value.detail
    assert peer.accepted == 1


def test_a_command_the_server_never_answers_ends_in_time(
    stalling_sshd: Peer,
) -> None:
    timeouts = ssh.Timeouts(connect=1.0, banner=1.0, auth=1.0, boot=0)
    target = ssh.Target(
        '127.0.0.1', 'u', port=stalling_sshd.port, password='p'
    )
    with ssh.connect(target, outbound.Policy(), timeouts) as session:
        started = time.monotonic()
        with pytest.raises(ssh.SshError) as caught:
            session.run('true', 'check the VM', timeout=1)
    assert time.monotonic() - started < 1.0 + 2.0
    assert caught.value.detail == (
        '127.0.0.1: starting check the VM: no complete answer within 1 s.'
    )
