"""Errors of the Kubernetes client, each naming the object and the reason."""

from __future__ import annotations

import re
from typing import Any

from vnfm.common import exceptions
from vnfm.csar import bounded


class KubernetesError(exceptions.OperationFailed):
    """A Kubernetes API call or a workload failed."""

    title = 'Kubernetes Error'
    http_status: int | None = (
        None  # the API server's answer, when there was one
    )
    # The messages of the Status body's details.causes, when there were any.
    causes: tuple[str, ...] = ()


class KubernetesUnreachable(KubernetesError):
    """The API server could not be reached or its TLS identity not verified."""

    title = 'Kubernetes Unreachable'


class KubernetesForbidden(KubernetesError):
    """The VIM credentials were refused (401) or lack the rights (403)."""

    title = 'Kubernetes Forbidden'


class KubernetesConflict(KubernetesError):
    """An object exists that this VNF instance does not own."""

    title = 'Kubernetes Conflict'


class KubernetesNotFound(KubernetesError):
    """An object, namespace or API kind does not exist on the cluster."""

    title = 'Kubernetes Not Found'


class WorkloadFailed(KubernetesError):
    """A workload cannot become ready (image pull, crash loop...)."""

    title = 'Workload Failed'


class EvictionBlocked(KubernetesError):
    """A PodDisruptionBudget kept refusing a Pod's eviction."""

    title = 'Eviction Blocked'


class BadVimConnection(exceptions.BadRequest):
    """The vimConnectionInfo lacks what is needed to reach the cluster."""


def _decoded(body: Any) -> Any:
    """A Status body parsed from JSON; text that is not JSON, as text."""
    if isinstance(body, bytes):
        body = body.decode('utf-8', 'replace')
    if isinstance(body, str):
        try:
            return bounded.load_json('Status', body, bounded.PEER)
        except bounded.BadDocument:
            return body
    return body


def api_message(body: Any) -> str:
    """The ``message`` of a Kubernetes Status body, else the body."""
    body = _decoded(body)
    if isinstance(body, str):
        return body.strip()[:300]
    if isinstance(body, dict):
        return str(body.get('message') or body.get('reason') or '')[:500]
    return ''


def api_causes(body: Any) -> tuple[str, ...]:
    """The messages of a Kubernetes Status body's ``details.causes``."""
    body = _decoded(body)
    details = body.get('details') if isinstance(body, dict) else None
    causes = (details or {}).get('causes') or []
    return tuple(
        str(c.get('message'))[:300]
        for c in causes
        if isinstance(c, dict) and c.get('message')
    )


def from_status(status: int, body: Any, what: str) -> KubernetesError:
    """The error for an HTTP error answer of the API server about ``what``
    (the causes the server gave in parentheses)."""
    message = api_message(body) or 'no message'
    causes = api_causes(body)
    if causes:
        message += f' ({"; ".join(causes)})'
    detail = f'Kubernetes API: {what}: HTTP {status}: {message}'
    err = _by_status(status, detail)
    err.http_status = status
    err.causes = causes
    return err


_BUDGET = re.compile(r'disruption budget (\S+?)[.,]?(\s|$)')


def disruption_budget(err: KubernetesError) -> str | None:
    """The PodDisruptionBudget an eviction's 429 names, if it names one."""
    for text in (*err.causes, err.detail):
        found = _BUDGET.search(text)
        if found:
            return found.group(1)
    return None


def _by_status(status: int, detail: str) -> KubernetesError:
    if status in (401, 403):
        hint = (
            ' (check accessInfo of the VIM: the token or user has no '
            'rights for this)'
            if status == 403
            else ' (check accessInfo of the VIM: the credentials were refused)'
        )
        return KubernetesForbidden(detail + hint)
    if status == 404:
        return KubernetesNotFound(detail)
    if status == 409:
        return KubernetesConflict(detail)
    return KubernetesError(detail)
