"""/vnfpm/v2/thresholds (SOL003 v3.3.1 clauses 6.4.5, 6.4.6): create,
list, show, modify (callbackUri, authentication) and delete the PM
thresholds of the caller's VNF instances.

``metadata.aspectId`` (vnfm) names the aspect auto-scale scales when the
threshold is crossed; when given it must be an aspect of the instance.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import webob

from vnfm.common import exceptions
from vnfm.conf import CONF
from vnfm.db import pm as pm_db
from vnfm.db import registry
from vnfm.objects import sol013
from vnfm.objects import threshold
from vnfm.server import http
from vnfm.server.controllers import common
from vnfm.server.controllers import pm_jobs
from vnfm.server.controllers import subscriptions
from vnfm.server.request import ApiRequest

API = subscriptions.VNFPM_V2
SOL013 = sol013.Resource(
    attributes=frozenset(
        {
            'id',
            'objectType',
            'objectInstanceId',
            'subObjectInstanceIds',
            'criteria',
            'callbackUri',
            'metadata',
            'autoScale',
            '_links',
        }
    ),
    mandatory=frozenset({'id', '_links'}),
    default_excluded=(),
)


def _view(row: dict, base_url: str) -> dict:
    sub = registry.subscription_get(row['subscription_id'])
    return threshold.to_sol(
        dict(row, callback_uri=sub['callback_uri']), base_url
    )


def _get(req: ApiRequest) -> dict:
    row = pm_db.threshold_get(req.path_args['id'])
    req.authorize(row['project_id'])
    return row


def _check_aspect(instance: Mapping[str, Any], metadata: dict) -> None:
    aspect = metadata.get('aspectId')
    if aspect is None:
        return
    info = instance.get('instantiated_vnf_info') or {}
    aspects = [s.get('aspectId') for s in info.get('scaleStatus') or []]
    if aspect not in aspects:
        raise exceptions.UnprocessableEntity(
            f'metadata.aspectId {aspect[:60]!r} is not an aspect of VNF '
            f'instance {instance["id"]}; its aspects: '
            f'{", ".join(map(str, aspects)) or "none"}.'
        )


def create(req: ApiRequest) -> webob.Response:
    """POST: a new threshold."""
    body = req.json
    threshold.check(body)
    instance = pm_jobs.check_object(req, body['objectInstanceId'])
    _check_aspect(instance, body.get('metadata') or {})
    row = pm_db.threshold_create(
        {
            'project_id': req.ctx.project_id,
            'object_type': body['objectType'],
            'object_instance_id': body['objectInstanceId'],
            'sub_object_instance_ids': body.get('subObjectInstanceIds'),
            'criteria': body['criteria'],
            'threshold_metadata': body.get('metadata'),
        },
        pm_jobs.callback_subscription(req, body),
    )
    return http.json_response(
        _view(row, req.base_url),
        201,
        headers={'Location': threshold.href(req.base_url, row['id'])},
    )


def index(req: ApiRequest) -> webob.Response:
    """GET: the thresholds, SOL013 filtered and paged."""
    where = req.owner_filter()
    return common.list_response(
        req,
        lambda _cols, after: pm_db.threshold_scan(where, after),
        _view,
        SOL013,
        CONF.performance_management.pm_job_page_size,
    )


def show(req: ApiRequest) -> webob.Response:
    """GET one threshold."""
    return http.json_response(_view(_get(req), req.base_url))


def modify(req: ApiRequest) -> webob.Response:
    """PATCH: a new callbackUri and/or authentication (6.4.6.3.4)."""
    return pm_jobs.patch_callback(req, _get(req))


def delete(req: ApiRequest) -> webob.Response:
    """DELETE a threshold (and its rules, at the next rule round)."""
    pm_db.threshold_delete(_get(req))
    return http.empty_response(204)
