"""Opening a ``Session``: the outbound policy, host keys pinned per VM,
password or key login, retries with backoff while the VM boots."""

from __future__ import annotations

import base64
import io
import logging
import socket
import time

import paramiko

from vnfm.clients import deadlines
from vnfm.clients import outbound
from vnfm.clients.ssh.model import AuthenticationFailed
from vnfm.clients.ssh.model import HostKeyChanged
from vnfm.clients.ssh.model import SshError
from vnfm.clients.ssh.model import Target
from vnfm.clients.ssh.model import Timeouts
from vnfm.clients.ssh.model import Unreachable
from vnfm.clients.ssh.model import configured_timeouts
from vnfm.clients.ssh.model import fingerprint
from vnfm.clients.ssh.session import Session

LOG = logging.getLogger(__name__)

_BACKOFF_FIRST, _BACKOFF_MAX = 0.5, 5.0


def key_line(key: paramiko.PKey) -> str:
    """``key`` as an OpenSSH public-key line."""
    return f'{key.get_name()} {key.get_base64()}'


def _parse_key(line: str, host: str) -> paramiko.PKey:
    try:
        kind, data = line.split()[:2]
        return paramiko.PKey.from_type_string(kind, base64.b64decode(data))
    except (ValueError, paramiko.SSHException) as e:
        raise SshError(
            f'{host}: the host key stored for it is not an OpenSSH public '
            f'key line ({e}).'
        ) from None


class _Pin(paramiko.MissingHostKeyPolicy):
    """Accept the first key of a VM with none pinned; refuse any key of a
    type not pinned (paramiko checks keys of a pinned type itself)."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.seen: paramiko.PKey | None = None

    def missing_host_key(
        self, client: paramiko.SSHClient, hostname: str, key: paramiko.PKey
    ) -> None:
        if self.target.known_keys:
            raise _changed(self.target, key)
        self.seen = key


def _changed(target: Target, key: paramiko.PKey) -> HostKeyChanged:
    pinned = ', '.join(fingerprint(k) for k in target.known_keys)
    presented = fingerprint(key_line(key))
    return HostKeyChanged(
        f'{target.host}: the VM presented host key {presented}'
        f' but {pinned} is pinned for it; refusing to connect. If this VM was '
        'replaced outside vnfm, heal it through vnfm so its new key is pinned.'
    )


def _transient(error: BaseException) -> bool:
    """Whether ``error`` is what a VM that is still booting causes."""
    transient = (
        TimeoutError,
        ConnectionError,
        EOFError,
        deadlines.CallTimedOut,
    )
    if isinstance(error, transient):
        return True
    if isinstance(error, paramiko.SSHException) and not isinstance(
        error, (paramiko.AuthenticationException, paramiko.BadHostKeyException)
    ):
        return 'banner' in str(error).lower() or 'reset' in str(error).lower()
    return isinstance(error, OSError)


def _private_key(target: Target) -> paramiko.PKey | None:
    if not target.private_key:
        return None
    for cls in (paramiko.Ed25519Key, paramiko.ECDSAKey, paramiko.RSAKey):
        try:
            return cls.from_private_key(io.StringIO(target.private_key))
        except (paramiko.SSHException, ValueError):
            continue
    raise SshError(
        f'{target.host}: the private key given for user {target.username} '
        'is not an unencrypted Ed25519, ECDSA or RSA key in PEM/OpenSSH form.'
    )


def connect(
    target: Target,
    policy: outbound.Policy,
    timeouts: Timeouts | None = None,
) -> Session:
    """A logged-in ``Session`` to ``target``; retried while the VM boots
    (deadlines: ``timeouts``, by default the ``[ssh]`` options)."""
    timeouts = timeouts or configured_timeouts()
    pkey = _private_key(target)
    if pkey is None and not target.password:
        raise SshError(
            f'{target.host}: neither a password nor a private key is given '
            f'for user {target.username}.'
        )
    keys = [_parse_key(line, target.host) for line in target.known_keys]
    deadline = time.monotonic() + timeouts.boot
    delay, attempt = _BACKOFF_FIRST, 0
    while True:
        attempt += 1
        try:
            return _attempt(target, policy, timeouts, pkey, keys)
        except (
            HostKeyChanged,
            AuthenticationFailed,
            deadlines.CallInterrupted,
        ):
            raise
        except outbound.Refused as e:
            raise SshError(str(e)) from None
        except Exception as e:  # noqa: BLE001 - classified below
            if not _transient(e):
                raise SshError(
                    f'{target.host}: SSH connection failed: {e}.'
                ) from None
            left = deadline - time.monotonic()
            if left <= 0:
                raise Unreachable(
                    f'{target.host}:{target.port} did not accept an SSH '
                    f'connection within {timeouts.boot:.0f}s ({attempt} '
                    f'attempts; last: {e or type(e).__name__}).'
                ) from None
            LOG.debug('%s: not up yet (%s), retrying', target.host, e)
            time.sleep(min(delay, left))
            delay = min(delay * 2, _BACKOFF_MAX)


def _attempt(
    target: Target,
    policy: outbound.Policy,
    timeouts: Timeouts,
    pkey: paramiko.PKey | None,
    keys: list[paramiko.PKey],
) -> Session:
    what = f'{target.host}:{target.port}: SSH login'
    # paramiko's banner and auth timeouts restart at each byte: the
    # attempt as a whole has a deadline (the socket is shut at it).
    total = timeouts.connect + timeouts.banner + timeouts.auth
    with deadlines.scope(total, what):
        sock = _socket(target, policy, timeouts)
        deadlines.attach(lambda: deadlines.shut(sock))
        return _login(target, timeouts, pkey, keys, sock)


def _login(
    target: Target,
    timeouts: Timeouts,
    pkey: paramiko.PKey | None,
    keys: list[paramiko.PKey],
    sock: socket.socket,
) -> Session:
    client = paramiko.SSHClient()
    name = _host_key_name(target)
    for key in keys:
        client.get_host_keys().add(name, key.get_name(), key)
    pin = _Pin(target)
    client.set_missing_host_key_policy(pin)
    try:
        client.connect(
            target.host,
            port=target.port,
            username=target.username,
            password=target.password,
            pkey=pkey,
            sock=sock,
            timeout=timeouts.connect,
            banner_timeout=timeouts.banner,
            auth_timeout=timeouts.auth,
            channel_timeout=timeouts.connect,
            allow_agent=False,
            look_for_keys=False,
        )
    except paramiko.BadHostKeyException as e:
        client.close()
        raise _changed(target, e.key) from None
    except paramiko.AuthenticationException:
        client.close()
        raise AuthenticationFailed(
            f'{target.host}: SSH login as {target.username} was refused '
            f'(wrong {"password" if target.password else "key"}?).'
        ) from None
    except BaseException:
        client.close()
        raise
    transport = client.get_transport()
    assert transport is not None  # noqa: S101 - connect() succeeded
    seen = pin.seen or transport.get_remote_server_key()
    return Session(
        client, target, timeouts, [key_line(seen)], target.secrets()
    )


def _host_key_name(target: Target) -> str:
    """The name paramiko files a host's keys under."""
    if target.port == 22:
        return target.host
    return f'[{target.host}]:{target.port}'


def _socket(
    target: Target, policy: outbound.Policy, timeouts: Timeouts
) -> socket.socket:
    """A TCP connection to an address of ``target`` the policy permits."""
    last: OSError | None = None
    for address in policy.addresses(target.host, target.port):
        try:
            sock = socket.create_connection(
                (address, target.port), timeout=timeouts.connect
            )
        except OSError as e:
            last = e
            continue
        sock.settimeout(timeouts.connect)
        return sock
    assert last is not None  # noqa: S101 - addresses() is never empty
    raise last
