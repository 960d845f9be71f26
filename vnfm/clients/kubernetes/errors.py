"""Errors of the Kubernetes client, each naming the object and the reason."""

from __future__ import annotations

import json
from typing import Any

from vnfm.common import exceptions


class KubernetesError(exceptions.OperationFailed):
    """A Kubernetes API call or a workload failed."""

    title = 'Kubernetes Error'
    http_status: int | None = (
        None  # the API server's answer, when there was one
    )


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


class BadVimConnection(exceptions.BadRequest):
    """The vimConnectionInfo lacks what is needed to reach the cluster."""


def api_message(body: Any) -> str:
    """The ``message`` of a Kubernetes Status body, else the body."""
    if isinstance(body, bytes):
        body = body.decode('utf-8', 'replace')
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError:
            return body.strip()[:300]
    if isinstance(body, dict):
        return str(body.get('message') or body.get('reason') or '')[:500]
    return ''


def from_status(status: int, body: Any, what: str) -> KubernetesError:
    """The error for an HTTP error answer of the API server about ``what``."""
    message = api_message(body) or 'no message'
    detail = f'Kubernetes API: {what}: HTTP {status}: {message}'
    err = _by_status(status, detail)
    err.http_status = status
    return err


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
