"""/vnflcm/v2/subscriptions (SOL003 v3.3.1 clauses 5.4.18, 5.4.19).

The callback URI is not probed before the subscription is accepted (Tacker
sends a test GET): vnfm-api never talks to outside systems, and delivery
with retries belongs to the notification sender.
"""

from __future__ import annotations

import webob

from vnfm.common import crypto
from vnfm.conf import CONF
from vnfm.db import registry
from vnfm.objects import sol013
from vnfm.server import http
from vnfm.server.controllers import common
from vnfm.server.request import ApiRequest

# LccnSubscription (5.5.2.16): authentication is write-only.
SOL013 = sol013.Resource(
    attributes=frozenset({'id', 'filter', 'callbackUri', 'verbosity',
                          '_links'}),
    mandatory=frozenset({'id', 'callbackUri', 'verbosity', '_links'}),
    default_excluded=())


def href(base_url: str, subscription_id: str) -> str:
    """Absolute URL of a subscription."""
    return f'{base_url}/vnflcm/v2/subscriptions/{subscription_id}'


def to_sol(row: dict, base_url: str) -> dict:
    """The LccnSubscription of a row (never its authentication)."""
    out = {'id': row['id']}
    if row.get('filter') is not None:
        out['filter'] = row['filter']
    out['callbackUri'] = row['callback_uri']
    out['verbosity'] = row.get('verbosity') or 'FULL'
    out['_links'] = {'self': {'href': href(base_url, row['id'])}}
    return out


def _get(req: ApiRequest) -> dict:
    row = registry.subscription_get(req.path_args['id'])
    req.authorize(row['project_id'])
    return row


def create(req: ApiRequest) -> webob.Response:
    """POST: a new subscription; 303 to an identical existing one."""
    body = req.json
    verbosity = body.get('verbosity', 'FULL')
    for row in registry.subscription_list(req.owner_filter()):
        if (row['api_version'] == req.lcm_api_version and
                row['callback_uri'] == body['callbackUri'] and
                row['filter'] == body.get('filter') and
                (row['verbosity'] or 'FULL') == verbosity):
            return http.empty_response(303, {
                'Location': href(req.base_url, row['id'])})
    auth = body.get('authentication')
    row = registry.subscription_create({
        'callback_uri': body['callbackUri'],
        'filter': body.get('filter'),
        'verbosity': verbosity,
        'authentication': crypto.encrypt(auth) if auth else None,
        'project_id': req.ctx.project_id,
        'api_version': req.lcm_api_version,
    })
    return http.json_response(to_sol(row, req.base_url), 201, headers={
        'Location': href(req.base_url, row['id'])})


def index(req: ApiRequest) -> webob.Response:
    """GET: the subscriptions, SOL013 filtered."""
    return common.list_response(
        req, lambda _cols: registry.subscription_list(req.owner_filter()),
        to_sol, SOL013,
        CONF.api.subscription_page_size)


def show(req: ApiRequest) -> webob.Response:
    """GET one subscription."""
    return http.json_response(to_sol(_get(req), req.base_url))


def delete(req: ApiRequest) -> webob.Response:
    """DELETE a subscription."""
    registry.subscription_delete(_get(req)['id'])
    return http.empty_response(204)
