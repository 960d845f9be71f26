"""Responses of vnfm-api: JSON, ProblemDetails, empty and file bodies."""

from __future__ import annotations

from typing import Any

import orjson
import webob

from vnfm.common import exceptions

JSON = 'application/json'
PROBLEM_JSON = 'application/problem+json'
MERGE_PATCH_JSON = 'application/merge-patch+json'
ZIP = 'application/zip'
TEXT = 'text/plain'
OCTET_STREAM = 'application/octet-stream'


def _response(
    status: int,
    body: bytes,
    content_type: str | None,
    headers: dict[str, str] | None,
) -> webob.Response:
    # charset=None: clients compare Content-Type exactly (tackerclient does
    # ``'text/plain' == resp.headers['Content-Type']``).
    # (webob takes None; its stubs only allow a str.)
    resp = webob.Response(status=status, body=body, charset=None)  # type: ignore[arg-type]
    if content_type is None:
        resp.headers.pop('Content-Type', None)  # absent on a 204
    else:
        resp.headers['Content-Type'] = content_type
    if headers:
        resp.headers.update(headers.items())
    return resp


def json_response(
    body: Any, status: int = 200, headers: dict[str, str] | None = None
) -> webob.Response:
    """A JSON response."""
    return _response(status, orjson.dumps(body), JSON, headers)


def empty_response(
    status: int = 204, headers: dict[str, str] | None = None
) -> webob.Response:
    """A response without body (204 No Content, 202 Accepted)."""
    return _response(status, b'', None, headers)


def file_response(
    data: bytes, content_type: str, headers: dict[str, str] | None = None
) -> webob.Response:
    """A download; a ``Range`` request gets 206 with the part asked for
    (webob applies it when the response is called as a WSGI app)."""
    resp = _response(200, data, content_type, headers)
    resp.accept_ranges = 'bytes'
    resp.conditional_response = True
    return resp


def problem_response(
    error: exceptions.VnfmError, headers: dict[str, str] | None = None
) -> webob.Response:
    """The ProblemDetails (SOL013 6.3) of a VnfmError."""
    problem = error.to_problem()
    return _response(
        error.status, orjson.dumps(problem), PROBLEM_JSON, headers
    )
