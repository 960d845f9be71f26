"""What the SSH client takes and gives: targets, deadlines, results and
errors (no paramiko here)."""

from __future__ import annotations

import base64
import dataclasses
import hashlib

from vnfm.common import exceptions
from vnfm.conf import CONF

#: Characters of stderr quoted in an error.
STDERR_TAIL = 2000
#: Bytes of output kept per stream (the tail, when a command prints more).
OUTPUT_CAP = 4 * 1024 * 1024


class SshError(exceptions.OperationFailed):
    """A VM could not be reached, logged into or commanded over SSH."""

    title = 'SSH Failed'


class Unreachable(SshError):
    """The VM did not accept an SSH connection before the boot deadline."""


class HostKeyChanged(SshError):
    """The VM presented a host key other than the one pinned for it."""

    title = 'SSH Host Key Changed'


class AuthenticationFailed(SshError):
    """The VM refused the username and password or key."""


class CommandFailed(SshError):
    """A command exited non-zero."""

    def __init__(self, detail: str, exit_code: int | None) -> None:
        super().__init__(detail)
        self.exit_code = exit_code


class CommandTimeout(CommandFailed, exceptions.DeadlineExceeded):
    """A command ran past its deadline and was killed."""

    title = 'SSH Command Deadline Exceeded'


@dataclasses.dataclass(frozen=True)
class Timeouts:
    """Deadlines in seconds: per connection attempt, for the server's
    banner, for authentication, for all attempts while the VM boots, per
    command (the default of ``Session.run``) and per file transfer."""

    connect: float = 10.0
    banner: float = 15.0
    auth: float = 20.0
    boot: float = 300.0
    command: float = 600.0
    transfer: float = 120.0


def configured_timeouts() -> Timeouts:
    """The ``[ssh]`` deadlines."""
    conf = CONF.ssh
    return Timeouts(
        connect=conf.connect_timeout,
        banner=conf.banner_timeout,
        auth=conf.auth_timeout,
        boot=conf.boot_timeout,
        command=conf.command_timeout,
        transfer=conf.transfer_timeout,
    )


@dataclasses.dataclass(frozen=True)
class Target:
    """A VM to log into: its address, credentials and pinned host keys
    (OpenSSH public-key lines, ``ssh-ed25519 AAAA...``)."""

    host: str
    username: str
    password: str | None = dataclasses.field(default=None, repr=False)
    private_key: str | None = dataclasses.field(default=None, repr=False)
    port: int = 22
    known_keys: tuple[str, ...] = ()

    def secrets(self) -> set[str]:
        """The credentials to keep out of errors and logs."""
        return {s for s in (self.password, self.private_key) if s}


@dataclasses.dataclass(frozen=True)
class Result:
    """What a command returned: its exit code, stdout (the last
    ``OUTPUT_CAP`` bytes) and the scrubbed last ``STDERR_TAIL``
    characters of stderr."""

    exit_code: int
    stdout: str
    stderr: str


def fingerprint(key_line: str) -> str:
    """The OpenSSH SHA256 fingerprint of a public-key line."""
    blob = base64.b64decode(key_line.split()[1])
    digest = base64.b64encode(hashlib.sha256(blob).digest()).decode()
    return 'SHA256:' + digest.rstrip('=')
