"""/vnffm/v1/alarms (SOL003 v3.3.1 clauses 7.4.2, 7.4.3): list, show and
acknowledge the alarms of the caller's VNF instances.

GET one answers an ETag; a PATCH with If-Match applies only while the
alarm is unchanged (else 412), and a PATCH to the ackState the alarm
already has is a 409 (7.4.3.3.4).
"""

from __future__ import annotations

import webob

from vnfm.common import exceptions
from vnfm.common import timeutils
from vnfm.conf import CONF
from vnfm.db import alarms as alarm_db
from vnfm.objects import alarm
from vnfm.objects import sol013
from vnfm.server import http
from vnfm.server.controllers import common
from vnfm.server.request import ApiRequest

SOL013 = sol013.Resource(
    attributes=frozenset(
        {
            'id',
            'managedObjectId',
            'vnfcInstanceIds',
            'rootCauseFaultyResource',
            'alarmRaisedTime',
            'alarmChangedTime',
            'alarmClearedTime',
            'alarmAcknowledgedTime',
            'ackState',
            'perceivedSeverity',
            'eventTime',
            'eventType',
            'faultType',
            'probableCause',
            'isRootCause',
            'correlatedAlarmIds',
            'faultDetails',
            'autoHeal',
            '_links',
        }
    ),
    mandatory=frozenset({'id', '_links'}),
    default_excluded=(),
)


def _get(req: ApiRequest) -> dict:
    row = alarm_db.alarm_get(req.path_args['id'])
    req.authorize(row['project_id'])
    return row


def index(req: ApiRequest) -> webob.Response:
    """GET: the alarms, SOL013 filtered and paged."""
    where = req.owner_filter()
    return common.list_response(
        req,
        lambda _cols, after: alarm_db.alarm_scan(where, after),
        alarm.to_sol,
        SOL013,
        CONF.fault_management.alarm_page_size,
    )


def show(req: ApiRequest) -> webob.Response:
    """GET one alarm, with its ETag."""
    row = _get(req)
    return http.json_response(
        alarm.to_sol(row, req.base_url), headers={'ETag': alarm.etag(row)}
    )


def _check_if_match(req: ApiRequest, row: dict) -> None:
    wanted = req.headers.get('If-Match')
    if wanted is None:
        return
    tags = {t.strip() for t in wanted.split(',')}
    if '*' not in tags and alarm.etag(row) not in tags:
        raise exceptions.PreconditionFailed(
            f'Alarm {row["id"]} changed since it was read (If-Match does '
            'not match its ETag); read it again and resend the PATCH.'
        )


def modify(req: ApiRequest) -> webob.Response:
    """PATCH: acknowledge an alarm or take its acknowledgement back."""
    row = _get(req)
    _check_if_match(req, row)
    wanted = req.json['ackState']
    if row['ack_state'] == wanted:
        raise exceptions.Conflict(f'Alarm {row["id"]} is already {wanted}.')
    acknowledged = wanted == alarm.ACKNOWLEDGED
    row = alarm_db.alarm_update(
        row['id'],
        {
            'ack_state': wanted,
            'alarm_acknowledged_time': (
                timeutils.utcnow() if acknowledged else None
            ),
        },
        # Unchanged since read: a lost race is a 409, never an overwrite.
        expected={
            'ack_state': row['ack_state'],
            'alarm_changed_time': row['alarm_changed_time'],
            'alarm_cleared_time': row['alarm_cleared_time'],
        },
    )
    return http.json_response(
        {'ackState': wanted}, headers={'ETag': alarm.etag(row)}
    )
