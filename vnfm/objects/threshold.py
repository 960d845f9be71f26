"""SOL003 v3.3.1 PM thresholds: the Threshold (6.5.2.9), its criteria
(6.5.3.4, SIMPLE only, as Tacker) and ThresholdCrossedNotification
(6.5.2.4).

A threshold is crossed UP when its value rises above ``thresholdValue +
hysteresis`` and DOWN when it falls below ``thresholdValue -
hysteresis``; the side last seen is kept (``crossing_state``), so each
crossing is reported once. A value first seen below the threshold is not
a crossing.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from vnfm.common import timeutils
from vnfm.db import api as db
from vnfm.objects import notifications
from vnfm.objects import pm_job

CROSSED = 'ThresholdCrossedNotification'
UP, DOWN = 'UP', 'DOWN'


def measurement(threshold: Mapping[str, Any]) -> str:
    """The measurement type a threshold watches."""
    return str(threshold['criteria']['performanceMetric']).partition('.')[0]


def check(body: dict) -> None:
    """Refuse criteria vnfm cannot watch (BadRequest naming why)."""
    pm_job.measurements(
        body['objectType'],
        [body['objectInstanceId']],
        {'performanceMetric': [body['criteria']['performanceMetric']]},
    )


def href(base_url: str, threshold_id: str) -> str:
    """Absolute URL of a threshold."""
    return f'{base_url}{pm_job.PREFIX}/thresholds/{threshold_id}'


def to_sol(row: dict, base_url: str) -> dict:
    """The Threshold of a row with its callbackUri (never its
    authentication); vnfm adds ``metadata`` and ``autoScale``, the last
    crossing and what auto-scale decided."""
    out: dict[str, Any] = {
        'id': row['id'],
        'objectType': row['object_type'],
        'objectInstanceId': row['object_instance_id'],
    }
    if row.get('sub_object_instance_ids'):
        out['subObjectInstanceIds'] = row['sub_object_instance_ids']
    out['criteria'] = row['criteria']
    out['callbackUri'] = row['callback_uri']
    if row.get('threshold_metadata'):
        out['metadata'] = row['threshold_metadata']
    if row.get('last_crossing'):
        out['autoScale'] = row['last_crossing']
    out['_links'] = {
        'self': {'href': href(base_url, row['id'])},
        'object': {
            'href': f'{base_url}/vnflcm/v2/vnf_instances/'
            f'{row["object_instance_id"]}'
        },
    }
    return out


def crossed(
    threshold: Mapping[str, Any],
    direction: str,
    value: float,
    sub_object_instance_id: str | None,
    now: datetime.datetime,
) -> dict:
    """The outbox row of ThresholdCrossedNotification."""
    base = notifications.endpoint()
    payload: dict[str, Any] = {
        'id': db.new_id(),
        'notificationType': CROSSED,
        'timeStamp': timeutils.isotime(now),
        'thresholdId': threshold['id'],
        'crossingDirection': direction,
        'objectType': threshold['object_type'],
        'objectInstanceId': threshold['object_instance_id'],
    }
    if sub_object_instance_id:
        payload['subObjectInstanceId'] = sub_object_instance_id
    payload['performanceMetric'] = threshold['criteria']['performanceMetric']
    payload['performanceValue'] = value
    payload['_links'] = {
        'objectInstance': {
            'href': f'{base}/vnflcm/v2/vnf_instances/'
            f'{threshold["object_instance_id"]}'
        },
        'threshold': {'href': href(base, threshold['id'])},
    }
    return notifications.outbox_row(
        {'id': threshold['subscription_id']}, CROSSED, payload
    )
