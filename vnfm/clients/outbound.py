"""Where vnfm may connect to for an address an API user gave: a
subscription's callbackUri and tokenEndpoint, a package's upload_from_uri
address, a VIM's endpoint (``[outbound]`` options).

The check is made where the connection is made, on each new connection:
the host name is resolved once, every address it resolves to must be
permitted, and the socket connects to one of those very addresses. A DNS
answer that changes between the check and the connection (rebinding)
therefore cannot switch it, and every redirect, being a new connection, is
checked the same way. TLS still verifies the certificate against the name.
"""

from __future__ import annotations

import dataclasses
import functools
import ipaddress
import socket
from collections.abc import Callable, Iterable
from typing import Any

import requests
import requests.adapters
from urllib3 import connection as urllib3_connection
from urllib3 import connectionpool
from urllib3 import exceptions as urllib3_exceptions

from vnfm.common import exceptions
from vnfm.conf import CONF

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
#: (host, port) -> the addresses to connect to, as strings; raises
#: socket.gaierror when the name does not resolve.
Resolver = Callable[[str, int], list[str]]


class Refused(Exception):
    """The policy forbids a connection. ``address`` is for the operator's
    log only: telling a user what a name resolves to inside vnfm's network
    would help them map it."""

    def __init__(self, host: str, address: str) -> None:
        super().__init__(
            f'{host} resolves to {address}, in a network '
            'vnfm does not connect to ([outbound])'
        )
        self.host = host
        self.address = address


def resolve(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to, in the resolver's order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def networks(cidrs: Iterable[str], option: str) -> tuple[Network, ...]:
    """The CIDRs of configuration option ``option``, parsed; VnfmError
    naming the option and the bad entry."""
    out = []
    for cidr in cidrs:
        try:
            out.append(ipaddress.ip_network(cidr.strip(), strict=False))
        except ValueError:
            raise exceptions.VnfmError(
                f'{option}: {cidr!r} is not a CIDR; the operator must '
                'correct it.'
            ) from None
    return tuple(out)


def _forms(
    address: str,
) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """``address`` and, for an IPv4-mapped IPv6 address, the IPv4 address
    it maps (what the kernel connects to)."""
    ip = ipaddress.ip_address(address.split('%', 1)[0])
    mapped = getattr(ip, 'ipv4_mapped', None)
    return [ip, mapped] if mapped else [ip]


@dataclasses.dataclass(frozen=True)
class Policy:
    """Networks denied, and allowed ones that take precedence."""

    denied: tuple[Network, ...] = ()
    allowed: tuple[Network, ...] = ()
    resolver: Resolver = resolve

    def permits(self, address: str) -> bool:
        """Whether vnfm may connect to ``address`` (an IP address)."""
        forms = _forms(address)
        if any(ip in net for ip in forms for net in self.allowed):
            return True
        return not any(ip in net for ip in forms for net in self.denied)

    def addresses(self, host: str, port: int) -> list[str]:
        """The addresses of ``host`` to connect to; Refused if the policy
        denies any of them (a name that also points inside is refused)."""
        found = self.resolver(host, port)
        if not found:
            raise socket.gaierror(socket.EAI_NONAME, f'{host}: no address')
        for address in found:
            if not self.permits(address):
                raise Refused(host, address)
        return found


def configured(resolver: Resolver | None = None) -> Policy:
    """The policy of the ``[outbound]`` options."""
    conf = CONF.outbound
    return Policy(
        denied=networks(conf.denied_networks, '[outbound] denied_networks'),
        allowed=networks(conf.allowed_networks, '[outbound] allowed_networks'),
        resolver=resolver or resolve,
    )


def for_vims(resolver: Resolver | None = None) -> Policy:
    """The policy for VIM endpoints: ``configured`` with
    ``[outbound] vim_allowed_networks`` allowed too."""
    policy = configured(resolver)
    extra = networks(
        CONF.outbound.vim_allowed_networks,
        '[outbound] vim_allowed_networks',
    )
    return dataclasses.replace(policy, allowed=policy.allowed + extra)


def refused_vim(error: Refused) -> str:
    """What a user is told of a VIM endpoint the policy refused (where it
    resolves to is for the operator's log only)."""
    return (
        f'refused by policy: {error.host} resolves to an address vnfm does '
        'not connect to ([outbound] vim_allowed_networks)'
    )


class _PinnedConnection:
    """urllib3 connection mixin: connect only to addresses ``policy``
    permits, and to exactly the addresses it checked."""

    policy: Policy
    # Set by urllib3's HTTPConnection.
    _dns_host: str
    host: str
    port: int

    def _new_conn(self) -> socket.socket:
        name = self._dns_host
        try:
            addresses = self.policy.addresses(name, self.port)
        except socket.gaierror as e:
            raise urllib3_exceptions.NameResolutionError(
                self.host,
                self,  # type: ignore[arg-type]
                e,
            ) from e
        failures: list[Exception] = []
        try:
            for address in addresses:
                # An address literal: urllib3 connects without resolving.
                self._dns_host = address
                try:
                    return super()._new_conn()  # type: ignore[misc]
                except (
                    urllib3_exceptions.NewConnectionError,
                    urllib3_exceptions.ConnectTimeoutError,
                ) as e:
                    failures.append(e)
        finally:
            self._dns_host = name
        raise failures[-1]  # addresses() returned at least one


def pool_classes(policy: Policy) -> dict[str, type]:
    """HTTP and HTTPS connection pool classes by scheme (a urllib3
    PoolManager's ``pool_classes_by_scheme``) whose connections obey
    ``policy``: the same classes for an equal policy, so that classes
    derived from them (``bounded.guard``) are made once."""
    return dict(_pool_classes(policy))


@functools.lru_cache(maxsize=32)
def _pool_classes(policy: Policy) -> dict[str, type]:
    plain = type(
        'PolicyHTTPConnection',
        (_PinnedConnection, urllib3_connection.HTTPConnection),
        {'policy': policy},
    )
    tls = type(
        'PolicyHTTPSConnection',
        (_PinnedConnection, urllib3_connection.HTTPSConnection),
        {'policy': policy},
    )
    return {
        'http': type(
            'PolicyHTTPConnectionPool',
            (connectionpool.HTTPConnectionPool,),
            {'ConnectionCls': plain},
        ),
        'https': type(
            'PolicyHTTPSConnectionPool',
            (connectionpool.HTTPSConnectionPool,),
            {'ConnectionCls': tls},
        ),
    }


class _PolicyAdapter(requests.adapters.HTTPAdapter):
    """A requests transport adapter whose connections obey a policy."""

    def __init__(self, policy: Policy) -> None:
        self._policy = policy  # init_poolmanager (below) needs it
        super().__init__()

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = pool_classes(self._policy)


def session(policy: Policy) -> requests.Session:
    """A requests session for user-given addresses, obeying ``policy``.

    It ignores the environment (proxy variables, .netrc): through a proxy
    the policy would judge the proxy, not the peer, and the operator's
    .netrc credentials must not go to a user's host.
    """
    http = requests.Session()
    http.trust_env = False
    adapter = _PolicyAdapter(policy)
    http.mount('http://', adapter)
    http.mount('https://', adapter)
    return http
