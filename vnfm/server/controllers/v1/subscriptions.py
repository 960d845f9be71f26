"""/vnflcm/v1/subscriptions (SOL003 v2.6.1 clauses 5.4.18, 5.4.19).

A subscription belongs to the API version it was made through: its
notifications take that version's shapes, so /vnflcm/v1 lists, shows and
deletes only v1 subscriptions.
"""

from __future__ import annotations

import orjson
import webob

from vnfm.conf import CONF
from vnfm.db import registry
from vnfm.objects import v1_views
from vnfm.server import http
from vnfm.server.controllers import common
from vnfm.server.controllers import subscriptions
from vnfm.server.request import ApiRequest


def create(req: ApiRequest) -> webob.Response:
    """POST: a new v1 subscription; 303 to an identical existing one."""
    resp = subscriptions.VNFLCM_V1.create(req)
    if resp.status_int != 201:
        return resp
    row = registry.subscription_get(orjson.loads(resp.body)['id'])
    return http.json_response(
        v1_views.subscription_to_sol(row, req.base_url),
        201,
        headers={
            'Location': v1_views.subscription_href(req.base_url, row['id'])
        },
    )


def index(req: ApiRequest) -> webob.Response:
    """GET: the v1 subscriptions, SOL013 filtered."""
    where = subscriptions.VNFLCM_V1.where(req)
    return common.list_response(
        req,
        lambda _cols, after: registry.subscription_scan(where, after),
        v1_views.subscription_to_sol,
        v1_views.SUBSCRIPTION_SOL013,
        CONF.api.subscription_page_size,
    )


def show(req: ApiRequest) -> webob.Response:
    """GET one v1 subscription."""
    return http.json_response(
        v1_views.subscription_to_sol(
            subscriptions.VNFLCM_V1.get(req), req.base_url
        )
    )


def delete(req: ApiRequest) -> webob.Response:
    """DELETE a v1 subscription."""
    registry.subscription_delete(subscriptions.VNFLCM_V1.get(req)['id'])
    return http.empty_response(204)
