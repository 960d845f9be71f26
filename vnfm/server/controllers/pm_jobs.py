"""/vnfpm/v2/pm_jobs (SOL003 v3.3.1 clauses 6.4.2, 6.4.3, 6.4.4): create,
list, show, modify (callbackUri, authentication) and delete the PM jobs
of the caller's VNF instances, and read their reports.

Every objectInstanceId is a VNF instance of the caller's project; the
callbackUri is tested as a subscription's is (``[notifications]
test_callback_uri``), from a conductor.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import webob

from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.conf import CONF
from vnfm.db import api as db
from vnfm.db import pm as pm_db
from vnfm.db import registry
from vnfm.objects import pm_job
from vnfm.objects import sol013
from vnfm.server import http
from vnfm.server.controllers import common
from vnfm.server.controllers import subscriptions
from vnfm.server.request import ApiRequest

API = subscriptions.VNFPM_V2
SOL013 = sol013.Resource(
    attributes=frozenset(
        {
            'id',
            'objectType',
            'objectInstanceIds',
            'subObjectInstanceIds',
            'criteria',
            'callbackUri',
            'reports',
            '_links',
        }
    ),
    mandatory=frozenset({'id', '_links'}),
    default_excluded=('reports',),
)


def _view(row: dict, base_url: str) -> dict:
    sub = registry.subscription_get(row['subscription_id'])
    return pm_job.to_sol(
        dict(row, callback_uri=sub['callback_uri']),
        base_url,
        pm_db.reports_of(row['id']),
    )


def _get(req: ApiRequest) -> dict:
    row = pm_db.job_get(req.path_args['id'])
    req.authorize(row['project_id'])
    return row


def _check_objects(req: ApiRequest, body: dict) -> None:
    ids = body['objectInstanceIds']
    if body.get('subObjectInstanceIds') and len(ids) != 1:
        raise exceptions.BadRequest(
            'subObjectInstanceIds needs exactly one objectInstanceId '
            f'(SOL003 6.5.2.6); {len(ids)} were given.'
        )
    for instance_id in ids:
        check_object(req, instance_id)


def check_object(req: ApiRequest, instance_id: str) -> Mapping[str, Any]:
    """The VNF instance an objectInstanceId names, if the caller's;
    UnprocessableEntity otherwise."""
    try:
        instance = db.instance_get(instance_id)
    except exceptions.NotFound:
        instance = None
    if instance is None or not req.allows(instance['project_id']):
        raise exceptions.UnprocessableEntity(
            f'objectInstanceId {instance_id[:60]} is not a VNF '
            'instance of this project.'
        )
    return instance


def callback_subscription(req: ApiRequest, body: dict) -> dict:
    """The subscription row of a new PM job or threshold: its
    callbackUri, tested, and its authentication, sealed."""
    sealed = subscriptions.sealed_callback(
        req, API, body['callbackUri'], body.get('authentication')
    )
    return {
        'callback_uri': body['callbackUri'],
        'authentication': sealed,
        'project_id': req.ctx.project_id,
        'api_version': API.api_versions[0],
        'interface': API.interface,
    }


def create(req: ApiRequest) -> webob.Response:
    """POST: a new PM job."""
    body = req.json
    criteria = body['criteria']
    pm_job.check_periods(criteria)
    measured = pm_job.measurements(
        body['objectType'], body['objectInstanceIds'], criteria
    )
    _check_objects(req, body)
    row = pm_db.job_create(
        {
            'project_id': req.ctx.project_id,
            'object_type': body['objectType'],
            'object_instance_ids': body['objectInstanceIds'],
            'sub_object_instance_ids': body.get('subObjectInstanceIds'),
            'criteria': criteria,
            'measurements': measured,
        },
        callback_subscription(req, body),
    )
    location = pm_job.href(req.base_url, row['id'])
    return http.json_response(
        _view(row, req.base_url), 201, headers={'Location': location}
    )


def index(req: ApiRequest) -> webob.Response:
    """GET: the PM jobs, SOL013 filtered and paged."""
    where = req.owner_filter()
    return common.list_response(
        req,
        lambda _cols, after: pm_db.job_scan(where, after),
        _view,
        SOL013,
        CONF.performance_management.pm_job_page_size,
    )


def show(req: ApiRequest) -> webob.Response:
    """GET one PM job."""
    return http.json_response(_view(_get(req), req.base_url))


def modify(req: ApiRequest) -> webob.Response:
    """PATCH: a new callbackUri and/or authentication (6.4.3.3.4)."""
    return patch_callback(req, _get(req))


def patch_callback(req: ApiRequest, row: dict) -> webob.Response:
    """Apply a PmJobModifications or ThresholdModifications to the
    subscription row of ``row`` (tested as on creation); the answer is
    the modifications applied, without credentials."""
    sub = registry.subscription_get(row['subscription_id'])
    body = req.json
    uri = body.get('callbackUri', sub['callback_uri'])
    if 'authentication' in body:
        auth = body['authentication']
    else:
        sealed = sub['authentication']
        auth = crypto.decrypt(sealed) if sealed else None
    sealed = subscriptions.sealed_callback(req, API, uri, auth)
    registry.subscription_update(
        sub['id'], {'callback_uri': uri, 'authentication': sealed}
    )
    answer = {'callbackUri': uri} if 'callbackUri' in body else {}
    return http.json_response(answer)


def delete(req: ApiRequest) -> webob.Response:
    """DELETE a PM job with its reports."""
    pm_db.job_delete(_get(req))
    return http.empty_response(204)


def report(req: ApiRequest) -> webob.Response:
    """GET one performance report of a PM job."""
    row = _get(req)
    found = pm_db.report_get(row['id'], req.path_args['report_id'])
    return http.json_response(pm_job.report_to_sol(found))
