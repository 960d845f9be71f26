"""/vnflcm/v2/vnf_lcm_op_occs: list, show, retry, rollback, fail, cancel
(SOL003 v3.3.1 clauses 5.4.12 to 5.4.17)."""

from __future__ import annotations

import webob

from vnfm.common import exceptions
from vnfm.common import timeutils
from vnfm.conf import CONF
from vnfm.db import api as db
from vnfm.objects import notifications
from vnfm.objects import op_occ
from vnfm.objects import states
from vnfm.server import http
from vnfm.server.controllers import common
from vnfm.server.request import ApiRequest

_E = states.OpEvent


def _get(req: ApiRequest) -> dict:
    row = db.op_get(req.path_args['id'])
    req.authorize(row['project_id'])
    return row


def index(req: ApiRequest) -> webob.Response:
    """GET: the op occurrences, SOL013 filtered and selected."""
    return common.list_response(
        req, lambda cols, after: db.op_scan(req.owner_filter(), cols, after),
        op_occ.to_sol, op_occ.SOL013, CONF.api.lcm_op_occ_page_size,
        op_occ.LIST_COLUMNS)


def show(req: ApiRequest) -> webob.Response:
    """GET one op occurrence."""
    return http.json_response(op_occ.to_sol(_get(req), req.base_url))


def _transition(req: ApiRequest, event: states.OpEvent,
                extra: dict | None = None) -> dict:
    """Apply ``event`` to the op as a compare-and-set; 409 if the state
    does not allow it (or changed meanwhile)."""
    row = _get(req)
    new = states.next_state(row['operation_state'], event)
    values = {'operation_state': new.value,
              'state_entered_time': timeutils.utcnow(), **(extra or {})}
    return db.op_update(row['id'], values,
                        {'operation_state': row['operation_state']},
                        notifications=notifications.for_op({**row,
                                                            **values}))


def retry(req: ApiRequest) -> webob.Response:
    """POST retry: FAILED_TEMP → PROCESSING, run again by a conductor."""
    row = _transition(req, _E.RETRY, {'owner': None, 'error': None})
    common.cast(req, 'start_lcm_op', row['id'])
    return http.empty_response(202, {
        'Location': op_occ.op_href(req.base_url, row['id'])})


def rollback(req: ApiRequest) -> webob.Response:
    """POST rollback: FAILED_TEMP → ROLLING_BACK, run by a conductor."""
    row = _transition(req, _E.ROLLBACK, {'owner': None})
    common.cast(req, 'start_lcm_op', row['id'])
    return http.empty_response(202, {
        'Location': op_occ.op_href(req.base_url, row['id'])})


def fail(req: ApiRequest) -> webob.Response:
    """POST fail: FAILED_TEMP → FAILED now; the instance is free again."""
    row = _transition(req, _E.FAIL, {'active_instance_id': None,
                                     'owner': None})
    return http.json_response(op_occ.to_sol(row, req.base_url))


def cancel(req: ApiRequest) -> webob.Response:
    """POST cancel: not supported; a stuck op ends FAILED_TEMP (its lease
    runs out) and can then be rolled back or failed."""
    row = _get(req)
    raise exceptions.Conflict(
        f"Cancelling operation {row['id']} ({row['operation_state']}) is "
        f"not supported; once it is FAILED_TEMP, roll it back or fail it.")
