"""The vnfm-api WSGI application: one request pipeline for every endpoint.

route → version → auth context → policy → Content-Type/Accept → body size
→ JSON parse → JSON Schema → controller. Every error becomes a ProblemDetails
(``application/problem+json``); nothing a client sends yields a 500.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from typing import Any

import webob

from vnfm.common import context as vnfm_context
from vnfm.common import exceptions
from vnfm.conf import CONF
from vnfm.csar import bounded
from vnfm.objects import vnf_instance
from vnfm.server import http
from vnfm.server import policies
from vnfm.server import request as api_request
from vnfm.server import router as api_router
from vnfm.server import validation
from vnfm.server.controllers import alertmanager
from vnfm.server.controllers.v1 import api as v1_api

LOG = logging.getLogger(__name__)

V2_VERSION = '2.0.0'
SUPPORTED_V2_VERSIONS = frozenset({V2_VERSION})
# SOL003 v3.3.1 VNF fault management API version.
FM_VERSION = '1.3.0'
PM_VERSION = '2.1.0'
_VERSION_RE = re.compile(r'^\d+\.\d+\.\d+$')
_R = api_request


class LazyConductorAPI:
    """Creates the RPC client on first use, so a request that never casts
    (and a test) does not need a transport."""

    def __init__(self) -> None:
        self._api: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._api is None:
            from vnfm.conductor import rpcapi  # noqa: PLC0415 (lazy)

            self._api = rpcapi.ConductorAPI()
        return getattr(self._api, name)


class Application:
    """The WSGI callable."""

    def __init__(self, rpc: Any = None) -> None:
        self.rpc = rpc if rpc is not None else LazyConductorAPI()
        self.router = api_router.build()
        # What the enabled infra drivers support decides what the API
        # accepts: a driver that publishes nothing stops the start.
        vnf_instance.enabled_infra()

    def __call__(
        self, environ: dict, start_response: Callable
    ) -> Iterable[bytes]:
        req = api_request.ApiRequest(environ)
        extra_headers: dict[str, str] = {}
        try:
            resp = self._handle(req, extra_headers)
        except exceptions.VnfmError as e:
            if e.status >= 500:
                LOG.warning('%s %s: %s', req.method, req.path, e.detail)
            resp = http.problem_response(e, getattr(e, 'headers', None))
        except Exception:  # noqa: BLE001 - the request's boundary
            LOG.exception(
                'Unexpected error handling %s %s', req.method, req.path
            )
            resp = http.problem_response(
                exceptions.VnfmError(
                    'The server could not complete the request because of an '
                    'internal error; it has been logged.'
                )
            )
        resp.headers.update(extra_headers.items())
        return resp(environ, start_response)

    def _handle(
        self, req: api_request.ApiRequest, extra_headers: dict[str, str]
    ) -> webob.Response:
        try:
            path = req.path_info
        except UnicodeDecodeError:
            raise exceptions.NotFound('The URL is not valid UTF-8.') from None
        action, path_args = self.router.match(req.method, path)
        if action.api == _R.VNFLCM_V2:
            extra_headers['Version'] = V2_VERSION
            _check_version(req.headers.get('Version'))
        elif action.api == _R.VNFFM_V1:
            extra_headers['Version'] = FM_VERSION
            _check_version(
                req.headers.get('Version'), '/vnffm/v1', {FM_VERSION}
            )
        elif action.api == _R.VNFPM_V2:
            extra_headers['Version'] = PM_VERSION
            _check_version(
                req.headers.get('Version'), '/vnfpm/v2', {PM_VERSION}
            )
        elif action.api == _R.VNFLCM_V1:
            # Every v1 answer, errors of the pipeline included, names it.
            extra_headers['Version'] = v1_api.VERSION
        req.action, req.path_args, req.rpc = action, path_args, self.rpc
        if action.api == _R.ALERTMANAGER:
            # Alertmanager authenticates with what [fault_management]
            # configures; the receiver acts for no project.
            alertmanager.authenticate(req)
            req.ctx = vnfm_context.get_admin_context()
        else:
            req.ctx = _context(req)
        if not policies.check(
            action.policy, {'project_id': req.ctx.project_id}, req.ctx
        ):
            raise exceptions.Forbidden(
                f'Policy does not allow {action.policy} to be performed.'
            )
        _negotiate(req, action)
        _read_body(req, action)
        req.base_url = (
            CONF.api.public_endpoint or req.application_url
        ).rstrip('/')
        return action.handler(req)


def _check_version(
    value: str | None,
    prefix: str = '/vnflcm/v2',
    supported: frozenset[str] | set[str] = SUPPORTED_V2_VERSIONS,
) -> None:
    example = min(supported)
    if value is None:
        raise exceptions.BadRequest(
            f'The Version header is required by {prefix}; send '
            f'"Version: {example}".'
        )
    value = value.strip()
    if not _VERSION_RE.match(value):
        raise exceptions.BadRequest(
            f'Version header {value[:40]!r} is not a version like {example}.'
        )
    if value not in supported:
        raise exceptions.NotAcceptable(
            f'API version {value} is not supported; supported: '
            f'{", ".join(sorted(supported))}.'
        )


def _context(req: webob.Request) -> vnfm_context.RequestContext:
    if CONF.api.auth_strategy == 'noauth':
        ctx = vnfm_context.get_admin_context()
    else:
        # keystonemiddleware (wrapping this app) validated the token and
        # set the X-* headers from it.
        if req.environ.get('HTTP_X_IDENTITY_STATUS') != 'Confirmed':
            raise exceptions.Unauthorized(
                'Authentication required: send a valid Keystone token in '
                'X-Auth-Token (the token is missing, expired or invalid).'
            )
        ctx = vnfm_context.RequestContext.from_environ(req.environ)
        ctx.is_admin = 'admin' in (r.lower() for r in ctx.roles)
        if not ctx.project_id and not ctx.is_admin:
            # What it made would belong to no project, hence to everyone;
            # and policies compare project ids.
            raise exceptions.Forbidden(
                'vnfm needs a project-scoped token: authenticate with a '
                'project (--os-project-name); this token is scoped to a '
                'domain or the system, or to nothing.'
            )
    return ctx


def _has_body(req: webob.Request) -> bool:
    if req.content_length is not None:
        return req.content_length > 0
    return 'chunked' in req.headers.get('Transfer-Encoding', '').lower()


def _negotiate(req: webob.Request, action: _R.Action) -> None:
    if action.body != _R.NO_BODY and _has_body(req):
        ctype = (req.content_type or '').lower()
        if ctype not in action.consumes:
            raise exceptions.UnsupportedMediaType(
                f'Content-Type {ctype or "(none)"} is not supported here; '
                f'use {" or ".join(action.consumes)}.'
            )
    if action.produces is not None and 'Accept' in req.headers:
        offers = [*action.produces, http.PROBLEM_JSON]
        if not req.accept.acceptable_offers(offers):
            raise exceptions.NotAcceptable(
                f'This resource is only available as '
                f'{" or ".join(action.produces)}; the Accept header '
                f'does not allow it.'
            )


def _read_body(req: api_request.ApiRequest, action: _R.Action) -> None:
    if action.body == _R.NO_BODY:
        return
    limit = (
        CONF.vnf_package.max_size
        if action.body == _R.ZIP_BODY
        else CONF.api.max_request_body_size
    )
    if req.content_length is not None and req.content_length > limit:
        raise exceptions.PayloadTooLarge(
            f'The request body is {req.content_length} bytes; the limit is '
            f'{limit}.'
        )
    data = req.body_file.read(limit + 1) if _has_body(req) else b''
    if len(data) > limit:
        raise exceptions.PayloadTooLarge(
            f'The request body is larger than the limit of {limit} bytes.'
        )
    req.raw_body = data
    if action.body == _R.JSON_BODY:
        req.json = _parse_json(data, action)


def _parse_json(data: bytes, action: _R.Action) -> Any:
    if not data.strip():
        if action.body_required:
            raise exceptions.BadRequest(
                'The request body is empty; a JSON object is required.'
            )
        body = {}
    else:
        try:
            body = bounded.load_json('The request body', data)
        except bounded.BadDocument as e:
            raise exceptions.BadRequest(f'{e.detail}.') from None
    validation.reject_unstorable(body)
    if action.schema is not None:
        validation.validate(action.schema, body)
    return body


def build_app(rpc: Any = None) -> Callable:
    """The API as a WSGI app; wrapped in keystonemiddleware's auth_token
    when ``[api] auth_strategy = keystone``. ``rpc`` replaces the conductor
    RPC client (tests)."""
    app: Callable = Application(rpc)
    if CONF.api.auth_strategy == 'keystone':
        from keystonemiddleware import auth_token  # noqa: PLC0415

        # The middleware passes every request on, marked Confirmed or
        # not: _context refuses the rest with a ProblemDetails 401, and
        # the middleware adds WWW-Authenticate to every 401.
        app = auth_token.AuthProtocol(
            app, {'oslo_config_config': CONF, 'delay_auth_decision': True}
        )
    return app
