"""/vnflcm/v2/vnf_lcm_op_occs: list, show, retry, rollback, fail, cancel
(SOL003 v3.3.1 clauses 5.4.12 to 5.4.17)."""

from __future__ import annotations

import webob

from vnfm.common import exceptions
from vnfm.common import timeutils
from vnfm.conf import CONF
from vnfm.db import api as db
from vnfm.db import rows
from vnfm.objects import notifications
from vnfm.objects import op_occ
from vnfm.objects import states
from vnfm.server import http
from vnfm.server.controllers import common
from vnfm.server.request import ApiRequest

_E = states.OpEvent


def _get(req: ApiRequest) -> rows.OpRow:
    row = db.op_get(req.path_args['id'])
    req.authorize(row['project_id'])
    return row


def index(req: ApiRequest) -> webob.Response:
    """GET: the op occurrences, SOL013 filtered and selected."""
    return common.list_response(
        req,
        lambda cols, after: db.op_scan(req.owner_filter(), cols, after),
        op_occ.to_sol,
        op_occ.SOL013,
        CONF.api.lcm_op_occ_page_size,
        op_occ.LIST_COLUMNS,
    )


def show(req: ApiRequest) -> webob.Response:
    """GET one op occurrence."""
    return http.json_response(op_occ.to_sol(_get(req), req.base_url))


def _transition(
    req: ApiRequest, event: states.OpEvent, extra: dict | None = None
) -> rows.OpRow:
    """Apply ``event`` to the op as a compare-and-set; 409 if the state
    does not allow it (or changed meanwhile)."""
    row = _get(req)
    new = states.next_state(row['operation_state'], event)
    values = {
        'operation_state': new.value,
        'state_entered_time': timeutils.utcnow(),
        **(extra or {}),
    }
    return db.op_update(
        row['id'],
        values,
        {'operation_state': row['operation_state']},
        notifications=notifications.for_op({**row, **values}),
    )


def retry(req: ApiRequest) -> webob.Response:
    """POST retry: FAILED_TEMP → PROCESSING, run again by a conductor."""
    row = _transition(req, _E.RETRY, {'owner': None, 'error': None})
    common.cast(req, 'start_lcm_op', row['id'])
    return http.empty_response(
        202, {'Location': op_occ.op_href(req.base_url, row['id'])}
    )


def rollback(req: ApiRequest) -> webob.Response:
    """POST rollback: FAILED_TEMP → ROLLING_BACK, run by a conductor."""
    row = _transition(req, _E.ROLLBACK, {'owner': None})
    common.cast(req, 'start_lcm_op', row['id'])
    return http.empty_response(
        202, {'Location': op_occ.op_href(req.base_url, row['id'])}
    )


def fail(req: ApiRequest) -> webob.Response:
    """POST fail: FAILED_TEMP → FAILED now; the instance is free again."""
    row = _transition(
        req, _E.FAIL, {'active_instance_id': None, 'owner': None}
    )
    return http.json_response(op_occ.to_sol(row, req.base_url))


def cancel(req: ApiRequest) -> webob.Response:
    """POST cancel (SOL003 5.4.17): an op nobody has claimed yet ends
    ROLLED_BACK now; a running one is marked ``isCancelPending`` and the
    conductor holding it stops (GRACEFUL: at its next step; FORCEFUL: its
    running hook is killed) and leaves it FAILED_TEMP."""
    row = _get(req)
    mode = req.json['cancelMode']
    _check_cancellable(row)
    href = op_occ.op_href(req.base_url, row['id'])
    if row['operation_state'] == states.OpState.STARTING.value:
        try:
            _cancel_unclaimed(row, mode)
            return http.empty_response(202, {'Location': href})
        except exceptions.Conflict:
            row = _get(req)  # a conductor claimed it meanwhile
            _check_cancellable(row)
    try:
        db.op_update(
            row['id'],
            {'is_cancel_pending': True, 'cancel_mode': mode},
            {
                'operation_state': list(_CANCELLABLE),
                'is_cancel_pending': False,
            },
        )
    except exceptions.Conflict:
        _check_cancellable(_get(req))
        raise
    return http.empty_response(202, {'Location': href})


_CANCELLABLE = frozenset(s.value for s in states.ACTIVE_OP_STATES)


def _check_cancellable(row: rows.OpRow) -> None:
    if row['operation_state'] not in _CANCELLABLE:
        raise exceptions.OpStateConflict(
            f'Operation {row["id"]} is {row["operation_state"]}; only an '
            'operation in STARTING, PROCESSING or ROLLING_BACK can be '
            'cancelled.'
        )
    if row['is_cancel_pending']:
        raise exceptions.OpStateConflict(
            f'Operation {row["id"]} is being cancelled already '
            f'({row["cancel_mode"]}).'
        )


def _cancel_unclaimed(row: rows.OpRow, mode: str) -> rows.OpRow:
    """STARTING, not claimed: ROLLED_BACK at once, nothing was done."""
    values = {
        'operation_state': states.next_state(
            row['operation_state'], _E.ABORT
        ).value,
        'state_entered_time': timeutils.utcnow(),
        'active_instance_id': None,
        'error': {
            'status': 409,
            'title': 'Cancelled',
            'detail': f"Cancelled ({mode}) at the user's request before "
            'it started; nothing was changed.',
        },
    }
    return db.op_update(
        row['id'],
        values,
        {'operation_state': row['operation_state'], 'owner': None},
        notifications=notifications.for_op({**row, **values}),
    )
