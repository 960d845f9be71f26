"""SOL003 v3.3.1 VNF fault management: the Alarm (7.5.2.4), the FM
notifications (7.5.2.5 AlarmNotification, 7.5.2.6
AlarmClearedNotification, 7.5.2.7 AlarmListRebuiltNotification), the
FmNotificationsFilter (7.5.3.2) and the outbox rows that carry them.

ETSI publishes no OpenAPI document for FM in ../shared/etsi-openapi/;
names and shapes follow SOL003 v3.3.1 clause 7 as Tacker serves it.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import logging
from collections.abc import Mapping
from typing import Any

import orjson

from vnfm.common import exceptions
from vnfm.common import timeutils
from vnfm.db import alarms as alarm_db
from vnfm.db import api as db
from vnfm.db import registry
from vnfm.objects import notifications

LOG = logging.getLogger(__name__)

ALARM = 'AlarmNotification'
ALARM_CLEARED = 'AlarmClearedNotification'
ALARM_LIST_REBUILT = 'AlarmListRebuiltNotification'
NOTIFICATION_TYPES = (ALARM, ALARM_CLEARED, ALARM_LIST_REBUILT)

# 7.5.4.3 PerceivedSeverityType, 7.5.4.5 EventType, 7.5.4.4 AckState.
SEVERITIES = (
    'CRITICAL',
    'MAJOR',
    'MINOR',
    'WARNING',
    'INDETERMINATE',
    'CLEARED',
)
EVENT_TYPES = (
    'COMMUNICATIONS_ALARM',
    'PROCESSING_ERROR_ALARM',
    'ENVIRONMENTAL_ALARM',
    'QOS_ALARM',
    'EQUIPMENT_ALARM',
)
ACKNOWLEDGED, UNACKNOWLEDGED = 'ACKNOWLEDGED', 'UNACKNOWLEDGED'
# 7.5.3.4 FaultyResourceType.
FAULTY_RESOURCE_TYPES = ('COMPUTE', 'STORAGE', 'NETWORK')

PREFIX = '/vnffm/v1'
_TIMES = (
    ('alarmRaisedTime', 'alarm_raised_time'),
    ('alarmChangedTime', 'alarm_changed_time'),
    ('alarmClearedTime', 'alarm_cleared_time'),
    ('alarmAcknowledgedTime', 'alarm_acknowledged_time'),
)


def href(base_url: str, alarm_id: str) -> str:
    """Absolute URL of an alarm."""
    return f'{base_url}{PREFIX}/alarms/{alarm_id}'


def to_sol(row: dict, base_url: str) -> dict:
    """The Alarm of a row."""
    out: dict[str, Any] = {
        'id': row['id'],
        'managedObjectId': row['vnf_instance_id'],
    }
    if row.get('vnfc_instance_ids'):
        out['vnfcInstanceIds'] = row['vnfc_instance_ids']
    if row.get('root_cause_faulty_resource'):
        out['rootCauseFaultyResource'] = row['root_cause_faulty_resource']
    for name, column in _TIMES:
        if row.get(column) is not None:
            out[name] = timeutils.isotime(row[column])
    out.update(
        {
            'ackState': row['ack_state'],
            'perceivedSeverity': row['perceived_severity'],
            'eventTime': timeutils.isotime(row['event_time']),
            'eventType': row['event_type'],
            'probableCause': row['probable_cause'],
            'isRootCause': bool(row['is_root_cause']),
        }
    )
    if row.get('fault_type'):
        out['faultType'] = row['fault_type']
    if row.get('fault_details'):
        out['faultDetails'] = row['fault_details']
    if row.get('heal_decision'):
        # vnfm's extension: what auto-heal decided, and why.
        out['autoHeal'] = row['heal_decision']
    out['_links'] = {
        'self': {'href': href(base_url, row['id'])},
        'objectInstance': {
            'href': f'{base_url}/vnflcm/v2/vnf_instances/'
            f'{row["vnf_instance_id"]}'
        },
    }
    return out


def etag(row: dict) -> str:
    """The entity tag of an alarm as it is now (SOL013 4.5: If-Match)."""
    state = orjson.dumps(to_sol(row, ''), option=orjson.OPT_SORT_KEYS)
    return '"' + hashlib.sha256(state).hexdigest()[:32] + '"'


# -- FmNotificationsFilter (7.5.3.2) -----------------------------------------


def _faulty_type(alarm: dict) -> str | None:
    resource = alarm.get('root_cause_faulty_resource') or {}
    return resource.get('faultyResourceType')


def matches(
    filter_: dict | None,
    notification_type: str,
    instance: Mapping[str, Any],
    alarm: dict | None,
) -> bool:
    """Whether an FmNotificationsFilter selects a notification of
    ``notification_type`` about ``instance`` (a row) and, for alarm
    notifications, ``alarm`` (a row)."""
    f = filter_ or {}
    if not notifications.selects(f, notification_type, instance):
        return False
    if alarm is None:
        return True
    checks = (
        ('faultyResourceTypes', _faulty_type(alarm)),
        ('perceivedSeverities', alarm['perceived_severity']),
        ('eventTypes', alarm['event_type']),
        ('probableCauses', alarm['probable_cause']),
    )
    return all(value in f[key] for key, value in checks if key in f)


# -- notifications -----------------------------------------------------------


def _subscription_link(subscription: dict) -> dict:
    url = f'{notifications.endpoint()}{PREFIX}/subscriptions/'
    return {'href': url + subscription['id']}


def payload(
    notification_type: str,
    subscription: dict,
    alarm: dict | None,
    notification_id: str,
    now: datetime.datetime,
) -> dict:
    """The FM notification of ``notification_type`` about ``alarm`` (a
    row; None for AlarmListRebuiltNotification)."""
    base = notifications.endpoint()
    out: dict[str, Any] = {
        'id': notification_id,
        'notificationType': notification_type,
        'subscriptionId': subscription['id'],
        'timeStamp': timeutils.isotime(now),
    }
    links = {'subscription': _subscription_link(subscription)}
    if notification_type == ALARM and alarm is not None:
        out['alarm'] = to_sol(alarm, base)
    elif notification_type == ALARM_CLEARED and alarm is not None:
        out['alarmId'] = alarm['id']
        out['alarmClearedTime'] = timeutils.isotime(
            alarm['alarm_cleared_time']
        )
        links['alarm'] = {'href': href(base, alarm['id'])}
    else:
        links['alarms'] = {'href': f'{base}{PREFIX}/alarms'}
    out['_links'] = links
    return out


def subscriptions() -> list[dict]:
    """The FM subscriptions (read once per batch of changes)."""
    return registry.subscription_list({'interface': registry.VNFFM})


def for_alarm(
    notification_type: str,
    alarm: dict,
    instance: Mapping[str, Any],
    subscribed: list[dict] | None = None,
) -> list[dict]:
    """Outbox rows reporting ``alarm`` (its row as committed), one per
    matching FM subscription that may see its instance."""
    subscribed = subscriptions() if subscribed is None else subscribed
    notification_id, now = db.new_id(), timeutils.utcnow()
    return [
        notifications.outbox_row(
            s,
            notification_type,
            payload(notification_type, s, alarm, notification_id, now),
        )
        for s in subscribed
        if notifications.visible(s, instance)
        and matches(s.get('filter'), notification_type, instance, alarm)
    ]


def for_deleted_instance(instance: Mapping[str, Any]) -> list[dict]:
    """Outbox rows of AlarmListRebuiltNotification when ``instance`` is
    deleted with alarms: they go with it, uncleared, so subscribers should
    read the alarm list again. None if it had no alarms."""
    if not alarm_db.alarm_list({'vnf_instance_id': instance['id']}):
        return []
    notification_id, now = db.new_id(), timeutils.utcnow()
    return [
        notifications.outbox_row(
            s,
            ALARM_LIST_REBUILT,
            payload(ALARM_LIST_REBUILT, s, None, notification_id, now),
        )
        for s in subscriptions()
        if notifications.visible(s, instance)
        and matches(s.get('filter'), ALARM_LIST_REBUILT, instance, None)
    ]


# -- clears correlated with the VNFCs ----------------------------------------


def _stale(row: dict, instance: Mapping[str, Any]) -> str | None:
    """Why an uncleared alarm no longer concerns anything, if so."""
    if instance['instantiation_state'] != 'INSTANTIATED':
        return 'the VNF instance was terminated'
    if not row.get('vnfc_instance_ids'):
        return None
    info = instance.get('instantiated_vnf_info') or {}
    vnfc_id = row['vnfc_instance_ids'][0]
    vnfc = next(
        (v for v in info.get('vnfcInfo') or [] if v.get('id') == vnfc_id),
        None,
    )
    if vnfc is None:
        return f'VNFC {vnfc_id} was removed'
    resources = {
        r.get('id'): (r.get('computeResource') or {}).get('resourceId')
        for r in info.get('vnfcResourceInfo') or []
    }
    faulty = (row.get('root_cause_faulty_resource') or {}).get(
        'faultyResource'
    ) or {}
    now_at = resources.get(vnfc.get('vnfcResourceInfoId'))
    if faulty.get('resourceId') and now_at != faulty['resourceId']:
        return f'VNFC {vnfc_id} was healed: its resource was replaced'
    return None


def clear_stale(instance_id: str) -> list[str]:
    """Clear the alarms of an instance whose VNFC was removed or replaced
    (healed), or of a terminated instance, with AlarmClearedNotification:
    Alertmanager may never resolve an alert about a Pod or VM that is
    gone. The ids cleared."""
    try:
        instance = db.instance_get(instance_id)
    except exceptions.NotFound:
        return []
    cleared = []
    for row in alarm_db.alarm_list(
        {'vnf_instance_id': instance_id, 'alarm_cleared_time': None}
    ):
        why = _stale(row, instance)
        if why is None:
            continue
        now = timeutils.utcnow()
        values = {
            'alarm_cleared_time': now,
            'alarm_changed_time': now,
            'perceived_severity': 'CLEARED',
        }
        after = dict(row, **values)
        with contextlib.suppress(exceptions.Conflict, exceptions.NotFound):
            alarm_db.alarm_update(
                row['id'],
                values,
                expected={
                    'alarm_cleared_time': None,
                    'alarm_changed_time': row['alarm_changed_time'],
                },
                notifications=for_alarm(ALARM_CLEARED, after, instance),
            )
            LOG.info('Alarm %s cleared: %s', row['id'], why)
            cleared.append(row['id'])
    return cleared
