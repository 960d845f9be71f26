"""A real OpenSSH server on loopback for the SSH client's tests.

``LoopbackSshd`` runs ``sshd -D -f <conf>`` on a free port of 127.0.0.1
with a host key of its own, for a throw-away system user (created with a
random password and a key pair, deleted afterwards). ``regenerate_host_key``
and ``restart`` stand in for a VM rebuilt with the same address. Needs root
(sshd must switch to the user) and Debian's openssh-server.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import socket
import subprocess  # nosec B404 - fixed argv
import tempfile
import time
from pathlib import Path

SSHD = '/usr/sbin/sshd'


def free_port() -> int:
    """A TCP port of 127.0.0.1 nobody listens on now."""
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return int(s.getsockname()[1])


def _run(*argv: str, stdin: str | None = None) -> str:
    return subprocess.run(  # noqa: S603 - fixed argv
        argv,
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout


def _keygen(path: Path) -> str:
    """A new Ed25519 key pair at ``path``; the public-key line."""
    path.unlink(missing_ok=True)
    Path(f'{path}.pub').unlink(missing_ok=True)
    _run('ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', str(path))
    parts = Path(f'{path}.pub').read_text().split()
    return f'{parts[0]} {parts[1]}'


class LoopbackSshd:
    """sshd on 127.0.0.1:``port`` for user ``username``."""

    def __init__(self, root: Path, sudo: bool = False) -> None:
        self.root = root
        # The user may run anything as root with its password (sudo -S).
        self.sudo = sudo
        self.port = free_port()
        self.username = 'vnfmssh' + secrets.token_hex(3)
        self.password = secrets.token_urlsafe(12)
        # Outside ``root``: a test's tmp_path is private to root.
        self.home = Path(tempfile.mkdtemp(prefix=f'{self.username}-'))
        self.host_key = ''
        self.user_key = ''  # the user's private key (OpenSSH PEM)
        self.user_key_path = root / 'user_key'
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> LoopbackSshd:
        self.setup()
        return self

    def __exit__(self, *exc: object) -> None:
        self.teardown()

    def setup(self) -> None:
        """Create the user and keys, write the config; not started."""
        if not os.path.exists(SSHD):
            raise FileNotFoundError(f'{SSHD} (apt-get install openssh-server)')
        _run(
            'useradd',
            '-M',
            '-d',
            str(self.home),
            '-s',
            '/bin/sh',
            self.username,
        )
        _run('chpasswd', stdin=f'{self.username}:{self.password}\n')
        shutil.chown(self.home, self.username)
        self.host_key = _keygen(self.root / 'host_key')
        public = _keygen(self.user_key_path)
        self.user_key = self.user_key_path.read_text()
        # Read by sshd as the user: in the user's home.
        (self.home / 'authorized_keys').write_text(public + '\n')
        (self.root / 'sshd_config').write_text(self._config())
        if self.sudo:
            self._sudoers().write_text(f'{self.username} ALL=(ALL) ALL\n')
            self._sudoers().chmod(0o440)
        Path('/run/sshd').mkdir(mode=0o755, exist_ok=True)

    def _sudoers(self) -> Path:
        return Path('/etc/sudoers.d') / self.username

    def _config(self) -> str:
        return '\n'.join(
            [
                f'Port {self.port}',
                'ListenAddress 127.0.0.1',
                f'HostKey {self.root / "host_key"}',
                f'PidFile {self.root / "sshd.pid"}',
                f'AuthorizedKeysFile {self.home / "authorized_keys"}',
                f'AllowUsers {self.username}',
                'PasswordAuthentication yes',
                'KbdInteractiveAuthentication no',
                'PubkeyAuthentication yes',
                'UsePAM no',
                'StrictModes no',
                'UseDNS no',
                'MaxAuthTries 3',
                'LoginGraceTime 20',
                'Subsystem sftp internal-sftp',
                '',
            ]
        )

    def start(self, timeout: float = 15.0) -> None:
        """Start sshd and wait until it answers with its banner."""
        log = open(self.root / 'sshd.log', 'ab')  # noqa: SIM115
        with log:
            self.proc = subprocess.Popen(  # noqa: S603 - fixed argv
                [SSHD, '-D', '-e', '-f', str(self.root / 'sshd_config')],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while not self.answers():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f'sshd did not start: {self.log_tail()}')
            time.sleep(0.05)

    def answers(self) -> bool:
        """Whether sshd sends its banner now."""
        try:
            with socket.create_connection(('127.0.0.1', self.port), 1) as s:
                s.settimeout(1)
                return s.recv(4).startswith(b'SSH-')
        except OSError:
            return False

    def stop(self) -> None:
        """Stop sshd (sessions it forked end with it)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None

    def regenerate_host_key(self) -> None:
        """A new host key, as a VM rebuilt at the same address has; takes
        effect at the next ``start``."""
        self.host_key = _keygen(self.root / 'host_key')

    def log_tail(self, lines: int = 20) -> str:
        """The last lines sshd logged."""
        with contextlib.suppress(OSError):
            text = (self.root / 'sshd.log').read_text(errors='replace')
            return '\n'.join(text.splitlines()[-lines:])
        return ''

    def teardown(self) -> None:
        """Stop sshd and delete the user."""
        self.stop()
        self._sudoers().unlink(missing_ok=True)
        subprocess.run(  # noqa: S603 - fixed argv
            ['userdel', '-f', self.username],
            capture_output=True,
            check=False,
            timeout=30,
        )
        shutil.rmtree(self.home, ignore_errors=True)
