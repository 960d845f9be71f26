"""How a /vnflcm/v1 request passes the pipeline: its Action (Tacker's v1
policy rule names), the Version header, and v1 URLs in Location headers.

The Version header is optional, as in Tacker's v1 API (the client's
``op cancel`` sends none); when sent it must be a 1.x.y version. Every
answer, errors included, carries ``Version: 1.3.0``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

import webob

from vnfm.common import exceptions
from vnfm.server import http
from vnfm.server import policies
from vnfm.server.request import JSON_BODY
from vnfm.server.request import NO_BODY
from vnfm.server.request import VNFLCM_V1
from vnfm.server.request import Action
from vnfm.server.request import ApiRequest

VERSION = '1.3.0'
_VERSION_RE = re.compile(r'^(\d+)\.\d+\.\d+$')
Handler = Callable[[ApiRequest], webob.Response]


def check_version(value: str | None) -> None:
    """400 for a malformed Version header, 406 for one that is not 1.x.y;
    no header is fine."""
    if value is None:
        return
    match = _VERSION_RE.match(value.strip())
    if match is None:
        raise exceptions.BadRequest(
            f'Version header {value[:40]!r} is not a version like {VERSION}.'
        )
    if match.group(1) != '1':
        raise exceptions.NotAcceptable(
            f'API version {value.strip()} is not served by /vnflcm/v1; '
            f'it serves {VERSION}.'
        )


def v1_location(location: str) -> str:
    """The /vnflcm/v1 URL of a resource a v2 controller named."""
    return location.replace('/vnflcm/v2/', '/vnflcm/v1/', 1)


def versioned(handler: Handler) -> Handler:
    """``handler`` with the v1 Version rule and v1 Location headers."""

    @functools.wraps(handler)
    def run(req: ApiRequest) -> webob.Response:
        try:
            check_version(req.headers.get('Version'))
            resp = handler(req)
        except exceptions.VnfmError as e:
            e.headers = {**(e.headers or {}), 'Version': VERSION}
            raise
        resp.headers['Version'] = VERSION
        if 'Location' in resp.headers:
            resp.headers['Location'] = v1_location(resp.headers['Location'])
        return resp

    return run


def action(
    handler: Handler,
    rule: str,
    schema: dict | None = None,
    consumes: tuple[str, ...] = (http.JSON,),
) -> Action:
    """The Action of a /vnflcm/v1 route; ``rule`` is the name after
    ``os_nfv_orchestration_api:vnf_instances:``."""
    return Action(
        versioned(handler),
        policies.LCM_V1 + rule,
        VNFLCM_V1,
        body=JSON_BODY if schema else NO_BODY,
        schema=schema,
        consumes=consumes,
    )
