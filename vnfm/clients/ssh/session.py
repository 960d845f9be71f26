"""One logged-in SSH connection to a VM: commands with deadlines, as root
through sudo, and SFTP."""

from __future__ import annotations

import contextlib
import logging
import select
import shlex
import time
from collections.abc import Iterator

import paramiko

from vnfm.clients import deadlines
from vnfm.clients.ssh.model import OUTPUT_CAP
from vnfm.clients.ssh.model import STDERR_TAIL
from vnfm.clients.ssh.model import CommandFailed
from vnfm.clients.ssh.model import CommandTimeout
from vnfm.clients.ssh.model import Result
from vnfm.clients.ssh.model import SshError
from vnfm.clients.ssh.model import Target
from vnfm.clients.ssh.model import Timeouts
from vnfm.common import scrub

LOG = logging.getLogger(__name__)

#: Exit status of coreutils ``timeout`` when the command ran out of time
#: (and when it had to KILL it: 128 + 9, told from an OOM kill by the time).
_TIMED_OUT, _KILLED = 124, 137
#: Seconds between TERM and KILL of a command past its deadline.
_KILL_GRACE = 5


class Session:
    """One logged-in SSH connection to a VM."""

    def __init__(
        self,
        client: paramiko.SSHClient,
        target: Target,
        timeouts: Timeouts,
        host_keys: list[str],
        secrets: set[str],
    ) -> None:
        self._client = client
        self.target = target
        self.timeouts = timeouts
        #: The VM's host key as seen now (to store when first contact).
        self.host_keys = host_keys
        self.first_contact = not target.known_keys
        self._secrets = secrets

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def hide(self, *values: str) -> None:
        """Also scrub ``values`` (secrets sent on stdin) from errors."""
        self._secrets.update(v for v in values if v)

    def close(self) -> None:
        """Close the connection."""
        self._client.close()

    def run(
        self,
        command: str,
        step: str,
        *,
        stdin: str | bytes | None = None,
        timeout: float | None = None,
        check: bool = True,
        as_root: bool = False,
    ) -> Result:
        """Run ``command`` (a shell line without secrets: pass those on
        ``stdin``), as root through sudo when ``as_root``; CommandFailed if
        it exits non-zero and ``check``, CommandTimeout if it runs past
        ``timeout`` seconds."""
        limit = max(1, int(timeout or self.timeouts.command))
        wrapped, stdin = self._wrap(command, limit, stdin, as_root)
        LOG.info('%s: %s', self.target.host, step)
        start = time.monotonic()
        # The VM answers a channel and exec request at once; the command
        # itself has its limit (and the grace to kill it) after that.
        chan = None
        try:
            with self._bounded(f'starting {step}', self.timeouts.connect):
                chan = self._open(step, limit)
                chan.exec_command(wrapped)
            with self._bounded(step, limit + _KILL_GRACE + 5):
                if stdin is not None:
                    chan.sendall(
                        stdin.encode() if isinstance(stdin, str) else stdin
                    )
                chan.shutdown_write()
                code, out, err = _collect(
                    chan, start + limit + _KILL_GRACE + 5
                )
        finally:
            if chan is not None:
                chan.close()
        result = Result(code, out.decode(errors='replace'), self._tail(err))
        elapsed = time.monotonic() - start
        LOG.debug(
            '%s: %s exited %s after %.1fs',
            self.target.host,
            step,
            code,
            elapsed,
        )
        if code in (_TIMED_OUT, -1) or (code == _KILLED and elapsed >= limit):
            raise CommandTimeout(
                f'{self.target.host}: {step} ran past its deadline of '
                f'{limit}s and was killed.{self._quote(result.stderr)}',
                None,
            )
        if check and code != 0:
            raise CommandFailed(
                f'{self.target.host}: {step} failed with exit code {code}.'
                f'{self._quote(result.stderr)}',
                code,
            )
        return result

    def _wrap(
        self,
        command: str,
        limit: int,
        stdin: str | bytes | None,
        as_root: bool,
    ) -> tuple[str, str | bytes | None]:
        """The command line that runs ``command`` within ``limit`` seconds
        (killed on the VM after), and its stdin. Through sudo, ``timeout``
        runs as root too, so that it can kill what the command started."""
        line = f'timeout -k {_KILL_GRACE} {limit} sh -c {shlex.quote(command)}'
        if not as_root or self.target.username == 'root':
            return line, stdin
        if not self.target.password:
            return f'sudo -n {line}', stdin
        if stdin is not None:
            # Where sudo needs no password, the command would read it.
            raise ValueError('as_root with a password takes no stdin')
        return f"sudo -S -p '' {line}", self.target.password + '\n'

    @contextlib.contextmanager
    def _bounded(self, step: str, seconds: float) -> Iterator[None]:
        """Run ``step`` within ``seconds`` in all: the connection is shut
        at the deadline or at a FORCEFUL cancel (it is of no use after)."""
        transport = self._client.get_transport()
        sock = getattr(transport, 'sock', None)
        try:
            with deadlines.scope(seconds, f'{self.target.host}: {step}'):
                deadlines.attach(lambda: deadlines.shut(sock))
                yield
        except deadlines.CallTimedOut as e:
            raise SshError(e.detail) from None

    def _open(self, step: str, limit: float) -> paramiko.Channel:
        transport = self._client.get_transport()
        if transport is None or not transport.is_active():
            raise SshError(
                f'{self.target.host}: {step}: the SSH connection is closed.'
            )
        chan = transport.open_session(timeout=self.timeouts.connect)
        chan.settimeout(limit + _KILL_GRACE + 5)
        return chan

    def put(
        self, data: bytes, remote_path: str, step: str, mode: int = 0o600
    ) -> None:
        """Write ``data`` to ``remote_path`` on the VM (created ``mode``)."""
        with (
            self._bounded(step, self.timeouts.transfer),
            self._sftp(step) as sftp,
        ):
            try:
                with sftp.open(remote_path, 'wb') as f:
                    f.chmod(mode)
                    f.write(data)
            except OSError as e:
                raise self._sftp_error(step, remote_path, e) from None

    def get(
        self, remote_path: str, step: str, limit: int = OUTPUT_CAP
    ) -> bytes:
        """The content of ``remote_path`` on the VM (at most ``limit``)."""
        with (
            self._bounded(step, self.timeouts.transfer),
            self._sftp(step) as sftp,
        ):
            try:
                with sftp.open(remote_path, 'rb') as f:
                    data = f.read(limit + 1)
            except OSError as e:
                raise self._sftp_error(step, remote_path, e) from None
        if len(data) > limit:
            raise SshError(
                f'{self.target.host}: {step}: {remote_path} is larger than '
                f'{limit} bytes.'
            )
        return data

    def _sftp(self, step: str) -> paramiko.SFTPClient:
        try:
            sftp = self._client.open_sftp()
        except (paramiko.SSHException, OSError) as e:
            raise SshError(
                f'{self.target.host}: {step}: no SFTP session ({e}).'
            ) from None
        sftp.get_channel().settimeout(self.timeouts.transfer)  # type: ignore[union-attr]
        return sftp

    def _sftp_error(self, step: str, path: str, error: OSError) -> SshError:
        if isinstance(error, TimeoutError):
            return SshError(
                f'{self.target.host}: {step}: transfer of {path} ran past '
                f'{self.timeouts.transfer}s.'
            )
        reason = error.strerror or str(error)
        return SshError(f'{self.target.host}: {step}: {path}: {reason}.')

    def _tail(self, err: bytes) -> str:
        text = err.decode(errors='replace')
        if len(text) <= STDERR_TAIL:
            return scrub.scrub(text, self._secrets)
        return scrub.scrub_cut(text[-STDERR_TAIL:], self._secrets)

    @staticmethod
    def _quote(stderr: str) -> str:
        stderr = stderr.strip()
        return f' stderr (tail): {stderr}' if stderr else ''


def _collect(
    chan: paramiko.Channel, deadline: float
) -> tuple[int, bytes, bytes]:
    """Read stdout and stderr until the command exits; (status, out, err).
    Status -1 when the local deadline passed first (or the connection
    ended: paramiko then reports no status)."""
    out, err = bytearray(), bytearray()
    while True:
        _drain(chan, out, err)
        if chan.exit_status_ready():
            _drain(chan, out, err)
            return chan.recv_exit_status(), bytes(out), bytes(err)
        left = deadline - time.monotonic()
        if left <= 0:
            return -1, bytes(out), bytes(err)
        if chan.eof_received:
            # All output is in; the exit status comes next.
            chan.status_event.wait(min(left, 1.0))
        else:
            # Wakes on output to either stream, or on EOF.
            select.select([chan], [], [], min(left, 1.0))


def _drain(chan: paramiko.Channel, out: bytearray, err: bytearray) -> bool:
    """Move what has arrived into ``out``/``err`` (tails kept); whether
    anything did."""
    got = False
    while chan.recv_ready():
        out += chan.recv(65536)
        got = True
    while chan.recv_stderr_ready():
        err += chan.recv_stderr(65536)
        got = True
    del out[:-OUTPUT_CAP]
    del err[:-OUTPUT_CAP]
    return got
