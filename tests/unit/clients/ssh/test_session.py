"""vnfm.clients.ssh.session without a server (tests/integration/ssh has
the real one): the command line each run sends, root through sudo, exit
codes and deadlines as errors that quote stderr without secrets, and
file transfers (against a recording stand-in for paramiko's client)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from vnfm.clients import ssh
from vnfm.clients.ssh import session as session_mod


class FakeChannel:
    """A command that exits ``code`` at once with ``out`` and ``err``."""

    def __init__(self, code: int, out: bytes, err: bytes) -> None:
        self.code, self.out, self.err = code, out, err
        self.command: str | None = None
        self.stdin = b''
        self.closed = False
        self.eof_received = True
        self.status_event = threading.Event()

    def settimeout(self, seconds: float) -> None:
        pass

    def exec_command(self, command: str) -> None:
        self.command = command

    def sendall(self, data: bytes) -> None:
        self.stdin += data

    def shutdown_write(self) -> None:
        pass

    def exit_status_ready(self) -> bool:
        return True

    def recv_exit_status(self) -> int:
        return self.code

    def recv_ready(self) -> bool:
        return bool(self.out)

    def recv(self, n: int) -> bytes:
        data, self.out = self.out, b''
        return data

    def recv_stderr_ready(self) -> bool:
        return bool(self.err)

    def recv_stderr(self, n: int) -> bytes:
        data, self.err = self.err, b''
        return data

    def close(self) -> None:
        self.closed = True


class FakeFile:
    def __init__(self, files: dict[str, bytes], path: str, mode: str) -> None:
        self.files, self.path, self.mode = files, path, mode
        self.chmodded: int | None = None

    def __enter__(self) -> FakeFile:
        if 'r' in self.mode and self.path not in self.files:
            raise FileNotFoundError(2, 'No such file')
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def chmod(self, mode: int) -> None:
        self.files[self.path + ':mode'] = oct(mode).encode()

    def write(self, data: bytes) -> None:
        self.files[self.path] = data

    def read(self, n: int) -> bytes:
        return self.files[self.path][:n]


class FakeSftp:
    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files

    def __enter__(self) -> FakeSftp:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def get_channel(self) -> FakeChannel:
        return FakeChannel(0, b'', b'')

    def open(self, path: str, mode: str) -> FakeFile:
        return FakeFile(self.files, path, mode)


class FakeClient:
    """paramiko.SSHClient: each session runs the next planned command."""

    def __init__(self) -> None:
        self.channels: list[FakeChannel] = []
        self.files: dict[str, bytes] = {}
        self.closed = False

    def plan(self, code: int, out: bytes = b'', err: bytes = b'') -> None:
        self.channels.append(FakeChannel(code, out, err))

    def get_transport(self) -> Any:
        client = self

        class Transport:
            sock = None

            def is_active(self) -> bool:
                return not client.closed

            def open_session(self, timeout: float) -> FakeChannel:
                return next(c for c in client.channels if c.command is None)

        return Transport()

    def open_sftp(self) -> FakeSftp:
        return FakeSftp(self.files)

    def close(self) -> None:
        self.closed = True


def _session(
    client: FakeClient, username: str = 'ubuntu', password: str | None = None
) -> session_mod.Session:
    target = ssh.Target('198.18.0.10', username, password=password)
    return session_mod.Session(
        client,  # type: ignore[arg-type]
        target,
        ssh.Timeouts(command=30),
        ['ssh-ed25519 KEY'],
        target.secrets(),
    )


def test_a_command_runs_within_its_limit_and_returns_its_output() -> None:
    client = FakeClient()
    client.plan(0, b'hello\n')

    result = _session(client).run('echo hello', 'greet', timeout=12)

    assert result == ssh.Result(0, 'hello\n', '')
    [chan] = client.channels
    assert chan.command == "timeout -k 5 12 sh -c 'echo hello'"
    assert chan.closed


def test_root_goes_through_sudo_with_the_password_on_stdin() -> None:
    client = FakeClient()
    client.plan(0)
    client.plan(0)
    client.plan(0)

    _session(client).run('id', 'who', as_root=True)
    _session(client, password='PW-1').run('id', 'who', as_root=True)
    _session(client, username='root').run('id', 'who', as_root=True)

    first, second, third = client.channels
    assert first.command == 'sudo -n timeout -k 5 30 sh -c id'
    assert second.command == "sudo -S -p '' timeout -k 5 30 sh -c id"
    assert second.stdin == b'PW-1\n'
    assert third.command == 'timeout -k 5 30 sh -c id'


def test_sudo_with_a_password_takes_no_other_stdin() -> None:
    client = FakeClient()
    client.plan(0)
    with pytest.raises(ValueError, match='takes no stdin'):
        _session(client, password='PW-1').run(
            'cat', 'read', stdin='data', as_root=True
        )
    assert client.channels[0].command is None  # nothing was sent


def test_a_failure_quotes_stderr_without_the_secrets() -> None:
    client = FakeClient()
    client.plan(3, b'', b'sudo: password PW-1 is wrong\n')
    session = _session(client, password='PW-1')
    session.hide('TOKEN-9')
    client.plan(1, b'', b'token TOKEN-9 refused\n')

    with pytest.raises(ssh.CommandFailed) as first:
        session.run('id', 'check the user', as_root=True)
    with pytest.raises(ssh.CommandFailed) as second:
        session.run('login', 'log in', stdin='TOKEN-9')

    assert first.value.exit_code == 3
    assert str(first.value).startswith(
        '198.18.0.10: check the user failed with exit code 3. stderr (tail): '
    )
    assert 'PW-1' not in str(first.value)
    assert 'TOKEN-9' not in str(second.value)
    # Unchecked, a failure is a result.
    client.plan(2, b'', b'no\n')
    assert session.run('false', 'try', check=False).exit_code == 2


def test_a_command_past_its_deadline_is_a_timeout() -> None:
    client = FakeClient()
    client.plan(124, b'', b'')

    with pytest.raises(ssh.CommandTimeout) as e:
        _session(client).run('sleep 99', 'wait', timeout=3)

    assert str(e.value) == (
        '198.18.0.10: wait ran past its deadline of 3s and was killed.'
    )


def test_a_closed_connection_is_named() -> None:
    client = FakeClient()
    client.plan(0)
    client.closed = True
    with pytest.raises(
        ssh.SshError, match='greet: the SSH connection is closed'
    ):
        _session(client).run('echo', 'greet')


def test_files_go_and_come_back_with_their_mode_and_limit() -> None:
    client = FakeClient()
    session = _session(client)

    session.put(b'a=1\n', '/tmp/x.conf', 'copy the config', mode=0o600)

    assert client.files['/tmp/x.conf'] == b'a=1\n'
    assert client.files['/tmp/x.conf:mode'] == b'0o600'
    assert session.get('/tmp/x.conf', 'read the config') == b'a=1\n'
    with pytest.raises(ssh.SshError) as big:
        session.get('/tmp/x.conf', 'read the config', limit=2)
    assert str(big.value) == (
        '198.18.0.10: read the config: /tmp/x.conf is larger than 2 bytes.'
    )
    with pytest.raises(ssh.SshError) as missing:
        session.get('/tmp/none', 'read the log')
    assert str(missing.value) == (
        '198.18.0.10: read the log: /tmp/none: No such file.'
    )


def test_closing_the_session_closes_the_connection() -> None:
    client = FakeClient()
    with _session(client) as session:
        assert session.first_contact
        assert session.host_keys == ['ssh-ed25519 KEY']
    assert client.closed
