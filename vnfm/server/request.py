"""What a controller receives: the WebOb request plus what the pipeline
established (context, parsed body, path arguments, base URL, RPC client)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import webob

from vnfm.common import context as vnfm_context
from vnfm.common import exceptions
from vnfm.server import policies

# Body kinds an action takes.
NO_BODY, JSON_BODY, ZIP_BODY = 'none', 'json', 'zip'
# API families: each has its own version rule.
VNFLCM_V2, VNFPKGM_V1, VERSIONS = 'vnflcm_v2', 'vnfpkgm_v1', 'versions'
VNFLCM_V1 = 'vnflcm_v1'
VNFFM_V1 = 'vnffm_v1'
VNFPM_V2 = 'vnfpm_v2'
# Alertmanager's webhook: its own credentials, not a Keystone token.
ALERTMANAGER = 'alertmanager'


@dataclasses.dataclass(frozen=True)
class Action:
    """One (method, route) of the API and how the pipeline treats it."""

    handler: Callable[[ApiRequest], webob.Response]
    policy: str
    api: str
    body: str = NO_BODY
    schema: dict | None = None
    body_required: bool = True
    consumes: tuple[str, ...] = ()
    # Offered response types; None: the handler negotiates (or ignores)
    # Accept itself.
    produces: tuple[str, ...] | None = ('application/json',)


class ApiRequest(webob.Request):
    """A request being handled."""

    ctx: vnfm_context.RequestContext
    action: Action
    path_args: dict[str, str]
    json: Any = None
    raw_body: bytes = b''
    base_url: str = ''
    rpc: Any = None

    def allows(self, project_id: str | None) -> bool:
        """Whether the action's policy allows it on a resource owned by
        ``project_id`` (None: made without authentication, anyone's)."""
        target = {'project_id': project_id or self.ctx.project_id}
        return bool(policies.check(self.action.policy, target, self.ctx))

    def authorize(self, project_id: str | None) -> None:
        """Enforce the action's policy on a resource owned by
        ``project_id``; a resource the caller may not see is NotFound."""
        if not self.allows(project_id):
            raise exceptions.NotFound(
                f'{self.path_args.get("id", "The resource")} does not exist.'
            )

    @property
    def lcm_api_version(self) -> str:
        """The VNF LCM API major version the request came through ('1' for
        /vnflcm/v1, else '2'), recorded on what it creates."""
        return '1' if self.action.api == VNFLCM_V1 else '2'

    def owner_filter(self) -> dict | None:
        """A ``where`` for list queries: the caller's project unless admin."""
        return (
            None if self.ctx.is_admin else {'project_id': self.ctx.project_id}
        )
