"""vnfm.clients.ssh against a real OpenSSH server on loopback."""

from __future__ import annotations

import dataclasses
import threading
import time

import pytest

from vnfm.clients import outbound
from vnfm.clients import ssh
from vnfm_testbed.sshd import LoopbackSshd

# Loopback is denied by the default policy; these tests allow it.
LOOPBACK = outbound.Policy()
FAST = ssh.Timeouts(connect=5, banner=5, auth=10, boot=20, command=30)


def target(server: LoopbackSshd, **kw: object) -> ssh.Target:
    """The test user with its password, nothing pinned."""
    values: dict = {
        'host': '127.0.0.1',
        'port': server.port,
        'username': server.username,
        'password': server.password,
    }
    values.update(kw)
    return ssh.Target(**values)


def poll(probe, timeout: float, what: str) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while not probe():
        if time.monotonic() > deadline:
            pytest.fail(f'{what} not within {timeout}s')
        time.sleep(0.1)


def test_first_contact_returns_the_key_then_pinned_works(
    sshd: LoopbackSshd,
) -> None:
    with ssh.connect(target(sshd), LOOPBACK, FAST) as session:
        assert session.first_contact
        assert session.host_keys == [sshd.host_key]
        assert session.run('echo hello', 'greet').stdout == 'hello\n'
    pinned = target(sshd, known_keys=(sshd.host_key,))
    with ssh.connect(pinned, LOOPBACK, FAST) as session:
        assert not session.first_contact
        assert session.run('id -un', 'who').stdout.strip() == sshd.username


def test_key_authentication(sshd: LoopbackSshd) -> None:
    by_key = target(sshd, password=None, private_key=sshd.user_key)
    with ssh.connect(by_key, LOOPBACK, FAST) as session:
        assert session.run('id -un', 'who').stdout.strip() == sshd.username


def test_changed_host_key_is_refused(own_sshd: LoopbackSshd) -> None:
    old = own_sshd.host_key
    own_sshd.stop()
    own_sshd.regenerate_host_key()
    own_sshd.start()
    with pytest.raises(ssh.HostKeyChanged) as caught:
        ssh.connect(target(own_sshd, known_keys=(old,)), LOOPBACK, FAST)
    detail = caught.value.detail
    assert '127.0.0.1' in detail
    assert ssh.fingerprint(old) in detail
    assert ssh.fingerprint(own_sshd.host_key) in detail
    # Nothing was run: the refusal came before authentication.
    assert 'Accepted' not in own_sshd.log_tail(100)


def test_wrong_password_fails_fast_without_the_password(
    sshd: LoopbackSshd,
) -> None:
    wrong = 'not-the-password-42'
    start = time.monotonic()
    with pytest.raises(ssh.AuthenticationFailed) as caught:
        ssh.connect(target(sshd, password=wrong), LOOPBACK, FAST)
    assert time.monotonic() - start < FAST.boot / 2  # not retried
    assert '127.0.0.1' in caught.value.detail
    assert sshd.username in caught.value.detail
    assert wrong not in caught.value.detail


def test_failed_command_names_host_step_and_code_secret_scrubbed(
    sshd: LoopbackSshd,
) -> None:
    with ssh.connect(target(sshd), LOOPBACK, FAST) as session:
        session.hide('cluster-token-0123')
        with pytest.raises(ssh.CommandFailed) as caught:
            session.run(
                'echo "joining with cluster-token-0123 failed" >&2; exit 3',
                'join the cluster',
            )
        result = session.run('exit 5', 'probe', check=False)
    detail = caught.value.detail
    assert caught.value.exit_code == 3
    assert '127.0.0.1' in detail and 'join the cluster' in detail
    assert 'exit code 3' in detail
    assert 'cluster-token-0123' not in detail and '********' in detail
    assert result.exit_code == 5


def test_password_in_stderr_is_scrubbed(sshd: LoopbackSshd) -> None:
    with (
        ssh.connect(target(sshd), LOOPBACK, FAST) as session,
        pytest.raises(ssh.CommandFailed) as caught,
    ):
        session.run(
            'read p; echo "bad: $p" >&2; exit 1',
            'x',
            stdin=sshd.password + '\n',
        )
    assert sshd.password not in caught.value.detail
    assert '********' in caught.value.detail


def test_stdin_reaches_the_command(sshd: LoopbackSshd) -> None:
    with ssh.connect(target(sshd), LOOPBACK, FAST) as session:
        assert (
            session.run('cat', 'echo stdin', stdin='a\nb\n').stdout == 'a\nb\n'
        )


def test_command_past_its_deadline_is_killed(sshd: LoopbackSshd) -> None:
    seconds = str(600 + time.monotonic_ns() % 1000)
    # The bracket keeps pgrep's own shell from matching.
    pattern = f"'sleep {seconds[:-1]}[{seconds[-1]}]'"
    with ssh.connect(target(sshd), LOOPBACK, FAST) as session:
        start = time.monotonic()
        with pytest.raises(ssh.CommandTimeout) as caught:
            session.run(f'sleep {seconds}', 'hang', timeout=1)
        assert time.monotonic() - start < 10
        assert 'hang' in caught.value.detail and '1s' in caught.value.detail

        def gone() -> bool:
            probe = session.run(f'pgrep -f {pattern}', 'probe', check=False)
            return probe.exit_code == 1

        poll(gone, 10, 'the hung command killed')


def test_sftp_round_trip(sshd: LoopbackSshd) -> None:
    data = bytes(range(256)) * 1000
    path = f'{sshd.home}/payload.bin'
    with ssh.connect(target(sshd), LOOPBACK, FAST) as session:
        session.put(data, path, 'copy the script', mode=0o700)
        assert session.get(path, 'read back') == data
        mode = session.run(f'stat -c %a {path}', 'mode').stdout.strip()
        assert mode == '700'
        with pytest.raises(ssh.SshError) as caught:
            session.get(f'{sshd.home}/missing', 'fetch kubeconfig')
    assert 'fetch kubeconfig' in caught.value.detail
    assert 'missing' in caught.value.detail


def test_one_connection_serves_many_steps(own_sshd: LoopbackSshd) -> None:
    with ssh.connect(target(own_sshd), LOOPBACK, FAST) as session:
        for i in range(5):
            session.run(f'echo {i}', f'step {i}')
        session.put(b'x', f'{own_sshd.home}/f', 'put')
        session.get(f'{own_sshd.home}/f', 'get')
    assert own_sshd.log_tail(200).count('Accepted password') == 1


def test_retries_while_sshd_is_not_listening_yet(
    own_sshd: LoopbackSshd,
) -> None:
    own_sshd.stop()
    timer = threading.Timer(1.5, own_sshd.start)
    timer.start()
    try:
        start = time.monotonic()
        with ssh.connect(target(own_sshd), LOOPBACK, FAST) as session:
            assert session.run('true', 'ping').exit_code == 0
        assert time.monotonic() - start >= 1.0
    finally:
        timer.join()


def test_unreachable_after_the_boot_deadline(own_sshd: LoopbackSshd) -> None:
    own_sshd.stop()
    quick = dataclasses.replace(FAST, boot=2)
    start = time.monotonic()
    with pytest.raises(ssh.Unreachable) as caught:
        ssh.connect(target(own_sshd), LOOPBACK, quick)
    assert time.monotonic() - start < 8
    assert f'127.0.0.1:{own_sshd.port}' in caught.value.detail


def test_large_output_on_both_streams_is_read_whole(
    sshd: LoopbackSshd,
) -> None:
    command = (
        "head -c 3000000 /dev/zero | tr '\\0' a; "
        "head -c 300000 /dev/zero | tr '\\0' b >&2"
    )
    with ssh.connect(target(sshd), LOOPBACK, FAST) as session:
        result = session.run(command, 'print a lot')
    assert len(result.stdout) == 3_000_000
    # stderr is kept for errors only: its tail, capped.
    assert result.stderr == 'b' * ssh.STDERR_TAIL
