"""HTTP clients with a total deadline per request: requests sessions
(keystoneauth, heatclient, notifications, downloads) and urllib3 pool
managers (the kubernetes client).

A pool manager is ``guard``-ed: each connection its pools hand out is
attached to the call scopes in force (``deadlines``), so a scope's
deadline or a FORCEFUL cancel shuts it down, whatever phase the request is
in (TLS handshake, headers, body). A requests session is ``bound``: each
request, body included, runs in a scope of its own; a streamed one whose
caller reads the body in a scope as short runs in the caller's.
"""

from __future__ import annotations

import functools
import time
import urllib.parse
from typing import Any

import requests
import requests.adapters
import urllib3

from vnfm.clients import deadlines


class _GuardedPool:
    """Connection-pool mixin: connections taken are attached to the
    scopes in force."""

    def _get_conn(self, timeout: float | None = None) -> Any:
        conn = super()._get_conn(timeout)  # type: ignore[misc]
        deadlines.attach(lambda: deadlines.shut(getattr(conn, 'sock', None)))
        return conn


class _GuardedConnection:
    """Connection mixin: a connection made after its call was cut off
    (while the watchdog shut what existed) is not used."""

    def connect(self) -> None:
        super().connect()  # type: ignore[misc]
        deadlines.check(lambda: deadlines.shut(getattr(self, 'sock', None)))


@functools.cache
def _guarded(cls: type) -> type:
    if issubclass(cls, _GuardedPool):
        return cls
    conn = cls.ConnectionCls  # type: ignore[attr-defined]
    guarded_conn = type(
        f'Guarded{conn.__name__}', (_GuardedConnection, conn), {}
    )
    return type(
        f'Guarded{cls.__name__}',
        (_GuardedPool, cls),
        {'ConnectionCls': guarded_conn},
    )


def guard(manager: urllib3.PoolManager) -> urllib3.PoolManager:
    """Make ``manager``'s connections answer to the scopes in force."""
    manager.pool_classes_by_scheme = {
        scheme: _guarded(cls)
        for scheme, cls in manager.pool_classes_by_scheme.items()
    }
    manager.clear()  # pools made before were not guarded
    return manager


def safe_url(url: str) -> str:
    """``url`` without credentials, query or fragment (which may carry
    tokens), for messages."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ''
    if ':' in host:
        host = f'[{host}]'  # IPv6
    if parts.port:
        host = f'{host}:{parts.port}'
    return urllib.parse.urlunsplit((parts.scheme, host, parts.path, '', ''))


class _Bounded(requests.adapters.BaseAdapter):
    """A transport adapter running each request of ``inner`` within
    ``total`` seconds."""

    def __init__(
        self, inner: requests.adapters.HTTPAdapter, total: float, name: str
    ) -> None:
        super().__init__()
        self.inner, self.total, self.name = inner, total, name
        guard(inner.poolmanager)
        proxy_manager_for = inner.proxy_manager_for

        def guarded_proxy(proxy: str, **kwargs: Any) -> Any:
            return guard_once(proxy_manager_for(proxy, **kwargs))

        inner.proxy_manager_for = guarded_proxy  # type: ignore[method-assign]

    def send(  # type: ignore[override]
        self,
        request: requests.PreparedRequest,
        stream: bool = False,
        **kwargs: Any,
    ) -> requests.Response:
        outer = deadlines.current()
        if (
            stream
            and outer
            and outer.deadline <= time.monotonic() + self.total
        ):
            # The caller reads the body in a scope as short: it bounds all.
            return self.inner.send(request, stream=stream, **kwargs)
        what = f'{self.name}: {request.method} {safe_url(request.url or "")}'
        with deadlines.scope(self.total, what):
            resp = self.inner.send(request, stream=stream, **kwargs)
            if not stream:
                resp.content  # noqa: B018 - read the body within the scope
        return resp

    def close(self) -> None:
        self.inner.close()


def guard_once(manager: Any) -> Any:
    """``guard`` a pool manager unless it is already."""
    pools = manager.pool_classes_by_scheme.values()
    if not all(issubclass(cls, _GuardedPool) for cls in pools):
        guard(manager)
    return manager


def bound(http: requests.Session, total: float, name: str) -> requests.Session:
    """``http`` with each request (headers and body) limited to ``total``
    seconds in all; CallTimedOut names ``name``, the method and the URL."""
    for prefix, adapter in list(http.adapters.items()):
        if isinstance(adapter, requests.adapters.HTTPAdapter):
            http.mount(prefix, _Bounded(adapter, total, name))
    return http
