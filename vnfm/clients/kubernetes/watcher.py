"""Informer: objects kept current by list + watch, and waits on them.

Each watched (kind, namespace, label selector) is listed once, then watched
from the list's resourceVersion in a thread; a wait re-evaluates its
predicate on every event, so it returns as soon as the API server reports
the change (no polling interval). ``stop()`` shuts the streams down.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import urllib3

from vnfm.clients import deadlines
from vnfm.clients.kubernetes import errors
from vnfm.clients.kubernetes.client import KubeClient
from vnfm.clients.kubernetes.client import events
from vnfm.common import exceptions
from vnfm.conf import CONF

LOG = logging.getLogger(__name__)
Key = tuple[str, str, str]  # kind, namespace, name


@dataclasses.dataclass(frozen=True)
class WatchSpec:
    """What to watch: a kind in a namespace, optionally by label."""

    api_version: str
    kind: str
    namespace: str | None
    label_selector: str | None = None


def key(obj: dict[str, Any]) -> Key:
    """Cache key of an object."""
    meta = obj.get('metadata') or {}
    return (
        obj.get('kind', ''),
        meta.get('namespace') or '',
        meta.get('name', ''),
    )


class Informer:
    """A live cache of the watched objects; use as a context manager."""

    def __init__(self, kube: KubeClient, specs: list[WatchSpec]) -> None:
        self.kube = kube
        self.specs = list(dict.fromkeys(specs))
        self.objects: dict[Key, dict[str, Any]] = {}
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._error: Exception | None = None
        self._streams: set[Any] = set()
        self._threads: list[threading.Thread] = []

    def __enter__(self) -> Informer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """List every spec (in this thread), then watch each in a thread."""
        for spec in self.specs:
            rv = self._relist(spec)
            thread = threading.Thread(
                target=self._run,
                args=(spec, rv),
                daemon=True,
                name=f'k8s-watch-{spec.kind}',
            )
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        """Stop the watches and wait briefly for their threads."""
        with self._cond:
            self._stop.set()
            streams = list(self._streams)
        for resp in streams:
            with contextlib.suppress(OSError, AttributeError):
                resp.shutdown()
        for thread in self._threads:
            thread.join(timeout=2)

    def _relist(self, spec: WatchSpec) -> str:
        items, rv = self.kube.list(
            spec.api_version, spec.kind, spec.namespace, spec.label_selector
        )
        with self._cond:
            for k in [k for k in self.objects if self._covers(spec, k)]:
                del self.objects[k]
            for item in items:
                self.objects[key(item)] = item
            self._cond.notify_all()
        return rv

    @staticmethod
    def _covers(spec: WatchSpec, k: Key) -> bool:
        return k[0] == spec.kind and (
            spec.namespace is None or k[1] == spec.namespace
        )

    def _run(self, spec: WatchSpec, rv: str) -> None:
        """Watch until stopped; relist on 410 Gone or a broken stream."""
        while not self._stop.is_set():
            try:
                rv = self._watch_once(spec, rv)
            except (
                errors.KubernetesError,
                urllib3.exceptions.HTTPError,
                OSError,
                ValueError,
            ) as e:
                if self._stop.is_set():
                    return
                LOG.debug('watch of %s ended (%s); relisting', spec.kind, e)
                try:
                    rv = self._relist(spec)
                except errors.KubernetesError as err:
                    self._fail(err)
                    return

    def _watch_once(self, spec: WatchSpec, rv: str) -> str:
        resp = self.kube.open_watch(
            spec.api_version,
            spec.kind,
            spec.namespace,
            spec.label_selector,
            rv,
            CONF.kubernetes.watch_timeout,
        )
        with self._cond:
            if self._stop.is_set():  # stopped while the watch was opening
                resp.shutdown()
                resp.release_conn()
                return rv
            self._streams.add(resp)
        try:
            for event in events(resp):
                rv = self._apply(spec, event, rv)
        finally:
            with self._cond:
                self._streams.discard(resp)
            resp.release_conn()
        return rv

    def _apply(self, spec: WatchSpec, event: dict[str, Any], rv: str) -> str:
        etype, obj = event.get('type'), event.get('object') or {}
        if etype == 'ERROR':
            code = obj.get('code')
            if code == 410:
                return self._relist(spec)
            raise errors.from_status(code or 500, obj, f'watch {spec.kind}')
        obj.setdefault('kind', spec.kind)
        new_rv = (obj.get('metadata') or {}).get('resourceVersion') or rv
        if etype == 'BOOKMARK':
            return new_rv
        with self._cond:
            if etype == 'DELETED':
                self.objects.pop(key(obj), None)
            else:
                self.objects[key(obj)] = obj
            self._cond.notify_all()
        return new_rv

    def _fail(self, err: Exception) -> None:
        with self._cond:
            self._error = err
            self._cond.notify_all()

    def wait(
        self,
        predicate: Callable[[], tuple[bool, str]],
        deadline: float,
        what: str,
    ) -> None:
        """Block until ``predicate()`` says done; it may raise to fail fast.

        DeadlineExceeded names ``what`` and the predicate's last reason;
        a FORCEFUL cancel of the op ends the wait at once.
        """
        with deadlines.scope(None, f'Kubernetes: waiting for {what}'):
            deadlines.attach(self._wake)
            self._wait(predicate, deadline, what)

    def _wake(self) -> None:
        with self._cond:
            self._cond.notify_all()

    def _wait(
        self,
        predicate: Callable[[], tuple[bool, str]],
        deadline: float,
        what: str,
    ) -> None:
        with self._cond:
            while True:
                deadlines.check()
                if self._error is not None:
                    raise self._error
                done, why = predicate()
                if done:
                    return
                left = deadline - time.monotonic()
                if left <= 0:
                    raise exceptions.DeadlineExceeded(
                        f'Kubernetes: timed out waiting for {what}: {why}'
                    )
                self._cond.wait(left)
