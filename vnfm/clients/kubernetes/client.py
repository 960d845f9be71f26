"""KubeClient: discovery-based CRUD on any kind, every error translated.

Objects are plain dicts (API JSON). Kinds are found by API discovery, so any
kind the cluster serves works; when a manifest names an apiVersion the
cluster does not serve (``policy/v1`` on 1.20, ``batch/v1beta1`` CronJob on
1.25+), the group's served version of that kind is used instead.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import urllib3
from kubernetes.dynamic import DynamicClient
from kubernetes.dynamic import exceptions as dyn_exc
from kubernetes.dynamic.resource import Resource

from vnfm.clients import deadlines
from vnfm.clients import outbound
from vnfm.clients.kubernetes import errors
from vnfm.clients.kubernetes.connection import Connection
from vnfm.clients.kubernetes.connection import discovery_cache_file
from vnfm.conf import CONF
from vnfm.csar import bounded

LOG = logging.getLogger(__name__)
T = TypeVar('T')
STRATEGIC = 'application/strategic-merge-patch+json'
MERGE = 'application/merge-patch+json'
_pause = threading.Event()  # never set: wait() is an interruptible sleep


def ref(obj: dict[str, Any]) -> str:
    """``Kind namespace/name`` of an object, for messages."""
    meta = obj.get('metadata') or {}
    ns = f'{meta["namespace"]}/' if meta.get('namespace') else ''
    return f'{obj.get("kind")} {ns}{meta.get("name")}'


class KubeClient:
    """One VIM's Kubernetes API; use as a context manager. It connects
    only where ``policy`` permits: by default ``outbound.for_vims()``."""

    def __init__(
        self, vim: dict[str, Any], policy: outbound.Policy | None = None
    ) -> None:
        self.conn = Connection(vim, policy or outbound.for_vims())
        self._dyn: DynamicClient | None = None

    def __enter__(self) -> KubeClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release connections and private files."""
        self.conn.close()

    @property
    def requests(self) -> int:
        """HTTP requests made so far (discovery included)."""
        return self.conn.requests

    @property
    def endpoint(self) -> str:
        """The API server URL."""
        return self.conn.endpoint

    def call(self, what: str, fn: Callable[[], T]) -> T:
        """Run ``fn`` within ``[kubernetes] request_timeout`` in all
        (CallTimedOut after); API, TLS and connection errors name
        ``what``."""
        try:
            with deadlines.scope(
                CONF.kubernetes.request_timeout,
                f'Kubernetes API {self.endpoint}: {what}',
            ):
                return fn()
        except dyn_exc.ResourceNotFoundError as e:
            raise errors.KubernetesNotFound(
                f'Kubernetes API: {what}: the cluster does not serve it ({e}).'
            ) from None
        except dyn_exc.DynamicApiError as e:
            raise errors.from_status(e.status, e.body, what) from None
        except outbound.Refused as e:
            LOG.info('Kubernetes API %s: %s', self.endpoint, e)
            raise errors.KubernetesUnreachable(
                f'Kubernetes API {self.endpoint}: {what}: '
                f'{outbound.refused_vim(e)}.'
            ) from None
        except urllib3.exceptions.HTTPError as e:
            raise errors.KubernetesUnreachable(
                f'Kubernetes API {self.endpoint}: {what}: {_reason(e)}'
            ) from None
        except ValueError:
            # The client's own reading of an answer that is not the API's
            # (not JSON, not HTTP at all).
            raise errors.KubernetesUnreachable(
                f'Kubernetes API {self.endpoint}: {what}: the server did not '
                'answer as a Kubernetes API server does.'
            ) from None

    @property
    def dynamic(self) -> DynamicClient:
        """The discovery-backed dynamic client (created on first use)."""
        if self._dyn is None:
            self._dyn = self.call(
                'API discovery',
                lambda: DynamicClient(
                    self.conn.api_client,
                    cache_file=discovery_cache_file(self.endpoint),
                ),
            )
        return self._dyn

    def resource(self, api_version: str, kind: str) -> Resource:
        """The served resource for a kind, falling back to another version."""
        what = f'kind {kind} of {api_version}'
        try:
            return self.call(
                what,
                lambda: self.dynamic.resources.get(
                    api_version=api_version, kind=kind
                ),
            )
        except errors.KubernetesNotFound:
            group = api_version.rpartition('/')[0]
            found = self.call(
                what,
                lambda: self.dynamic.resources.search(group=group, kind=kind),
            )
            found = [r for r in found if r.kind == kind]
            if not found:
                raise
            chosen = found[0]
            LOG.info(
                'Using %s for %s (%s is not served)',
                chosen.group_version,
                kind,
                api_version,
            )
            return chosen

    def preferred_version(self, group: str) -> str:
        """``group/version`` the server prefers for an API group."""
        doc = self.call(
            f'discovery of API group {group}',
            lambda: self.dynamic.request(
                'get', f'/apis/{group}', serialize=False
            ),
        )
        found = bounded.load_json(f'/apis/{group}', doc.data, bounded.PEER)
        return found['preferredVersion']['groupVersion']

    def get(
        self,
        api_version: str,
        kind: str,
        name: str,
        namespace: str | None = None,
    ) -> dict[str, Any] | None:
        """The object, or None if it does not exist."""
        res = self.resource(api_version, kind)
        what = f'get {kind} {_name(namespace, name)}'
        try:
            return self.call(
                what, lambda: res.get(name=name, namespace=_ns(res, namespace))
            ).to_dict()
        except errors.KubernetesNotFound:
            return None

    def list(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        label_selector: str | None = None,
    ) -> tuple[list[dict[str, Any]], str]:
        """Objects of a kind and the list's resourceVersion."""
        res = self.resource(api_version, kind)
        what = f'list {kind} in {namespace or "all namespaces"}'
        out = self.call(
            what,
            lambda: res.get(
                namespace=_ns(res, namespace), label_selector=label_selector
            ),
        ).to_dict()
        items = out.get('items') or []
        for item in items:  # list items lack kind/apiVersion
            item.setdefault('kind', kind)
            item.setdefault('apiVersion', res.group_version)
        return items, out['metadata'].get('resourceVersion', '')

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        """Create an object."""
        res = self.resource(body['apiVersion'], body['kind'])
        body = {**body, 'apiVersion': res.group_version}
        ns = _ns(res, (body.get('metadata') or {}).get('namespace'))
        return self.call(
            f'create {ref(body)}',
            lambda: res.create(
                body=body,
                namespace=ns,
                field_manager=CONF.kubernetes.field_manager,
            ),
        ).to_dict()

    def patch(
        self,
        api_version: str,
        kind: str,
        name: str,
        namespace: str | None,
        body: dict[str, Any],
        strategic: bool = True,
    ) -> dict[str, Any]:
        """Patch an object (strategic merge for built-in kinds, else merge)."""
        res = self.resource(api_version, kind)
        builtin = '.' not in res.group or res.group.endswith('.k8s.io')
        ctype = STRATEGIC if strategic and builtin else MERGE
        if 'apiVersion' in body:
            body = {**body, 'apiVersion': res.group_version}
        return self.call(
            f'patch {kind} {_name(namespace, name)}',
            lambda: res.patch(
                body=body,
                name=name,
                namespace=_ns(res, namespace),
                content_type=ctype,
                field_manager=CONF.kubernetes.field_manager,
            ),
        ).to_dict()

    def delete(
        self,
        api_version: str,
        kind: str,
        name: str,
        namespace: str | None,
        propagation: str = 'Foreground',
        grace_period: int | None = None,
    ) -> bool:
        """Delete an object; False if it was already gone."""
        res = self.resource(api_version, kind)
        body: dict[str, Any] = {
            'kind': 'DeleteOptions',
            'apiVersion': 'v1',
            'propagationPolicy': propagation,
        }
        if grace_period is not None:
            body['gracePeriodSeconds'] = grace_period
        try:
            self.call(
                f'delete {kind} {_name(namespace, name)}',
                lambda: res.delete(
                    name=name, namespace=_ns(res, namespace), body=body
                ),
            )
        except errors.KubernetesNotFound:
            return False
        return True

    def evict(
        self, name: str, namespace: str, grace_period: int | None = None
    ) -> None:
        """Evict a Pod (a PodDisruptionBudget answers 429 while it holds)."""
        version = self.preferred_version('policy')
        body: dict[str, Any] = {
            'apiVersion': version,
            'kind': 'Eviction',
            'metadata': {'name': name, 'namespace': namespace},
        }
        if grace_period is not None:
            body['deleteOptions'] = {'gracePeriodSeconds': grace_period}
        pods = self.resource('v1', 'Pod')
        path = pods.path(name=name, namespace=namespace) + '/eviction'
        self.call(
            f'evict Pod {namespace}/{name}',
            lambda: self.dynamic.request(
                'post', path, body=body, serialize=False
            ),
        )

    def evict_until(
        self,
        name: str,
        namespace: str,
        grace_period: int,
        deadline: float,
        on_refused: Callable[[str], None] | None = None,
    ) -> None:
        """Evict a Pod, retrying a PodDisruptionBudget's 429 until
        ``deadline`` (monotonic) or ``[kubernetes] eviction_timeout``,
        whichever is sooner, then EvictionBlocked; ``on_refused`` gets what
        the eviction waits for after each refusal. A Pod already gone
        counts as evicted."""
        started = time.monotonic()
        deadline = min(deadline, started + CONF.kubernetes.eviction_timeout)
        while True:
            try:
                self.evict(name, namespace, grace_period)
                return
            except errors.KubernetesNotFound:
                return
            except errors.KubernetesError as e:
                if e.http_status != 429:
                    raise
                waiting = _blocked(namespace, name, e)
                if time.monotonic() >= deadline:
                    blocked = errors.EvictionBlocked(
                        f'{waiting[0].upper()}{waiting[1:]}: still refused '
                        f'after {time.monotonic() - started:.0f} s.'
                    )
                    blocked.http_status, blocked.causes = 429, e.causes
                    raise blocked from None
                if on_refused is not None:
                    on_refused(waiting)
                _pause.wait(min(1.0, max(deadline - time.monotonic(), 0)))

    def open_watch(
        self,
        api_version: str,
        kind: str,
        namespace: str | None,
        label_selector: str | None,
        resource_version: str,
        timeout_seconds: int,
    ) -> Any:
        """Start a watch; the raw response streams JSON lines."""
        res = self.resource(api_version, kind)
        path = res.path(namespace=_ns(res, namespace))
        return self.call(
            f'watch {kind} in {namespace or "all namespaces"}',
            lambda: self.dynamic.request(
                'get',
                path,
                watch=True,
                label_selector=label_selector,
                resource_version=resource_version,
                timeout_seconds=timeout_seconds,
                allow_watch_bookmarks=True,
                serialize=False,
                _request_timeout=(
                    CONF.kubernetes.connect_timeout,
                    timeout_seconds + 10,
                ),
            ),
        )


def events(resp: Any) -> Iterator[dict[str, Any]]:
    """Watch events from an ``open_watch`` response, one per JSON line."""
    buf = b''
    for chunk in resp.stream(8192):
        buf += chunk
        while b'\n' in buf:
            line, buf = buf.split(b'\n', 1)
            if line.strip():
                yield bounded.load_json('watch event', line, bounded.PEER)


def _blocked(namespace: str, name: str, err: errors.KubernetesError) -> str:
    """What a refused eviction waits for, naming the budget."""
    budget = errors.disruption_budget(err)
    by = (
        f'PodDisruptionBudget {namespace}/{budget}'
        if budget
        else 'a PodDisruptionBudget'
    )
    why = f' ({"; ".join(err.causes)})' if err.causes else ''
    pod = f'Pod {namespace}/{name}'
    return f'waiting for eviction of {pod}, blocked by {by}{why}'


def _ns(res: Resource, namespace: str | None) -> str | None:
    return namespace if res.namespaced else None


def _name(namespace: str | None, name: str) -> str:
    return f'{namespace}/{name}' if namespace else name


def _reason(e: urllib3.exceptions.HTTPError) -> str:
    """The root cause of a urllib3 error, with a hint for TLS failures."""
    cause: BaseException = getattr(e, 'reason', None) or e
    text = str(cause)
    if 'CERTIFICATE_VERIFY_FAILED' in text or isinstance(
        cause, urllib3.exceptions.SSLError
    ):
        return (
            f'TLS verification of the API server failed ({text}); check '
            'interfaceInfo.ssl_ca_cert of the VIM'
        )
    return f'cannot connect ({text})'
