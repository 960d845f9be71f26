"""Alertmanager's webhook payload (version 4) as alarm changes.

An alert concerns vnfm when its label ``function_type`` is ``vnffm`` (and
``receiver_type``, if set, is ``tacker`` or ``vnfm``): the labels Tacker's
Prometheus plugin reads, so rules written for Tacker work unchanged.

labels       ``vnf_instance_id`` (required), ``perceived_severity``,
             ``event_type``; the VNFC by ``vnfc_info_id`` (a vnfcInfo or
             vnfcResourceInfo id), ``pod`` (a Pod's name) or ``server_id``
             (a VM's id): compared with the VNFCs' computeResource.resourceId
annotations  ``probable_cause`` (default: the alert's name), ``fault_type``,
             ``fault_details``

An alert vnfm cannot use is skipped, with the reason, and the others of
the post are recorded.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import re
from collections.abc import Mapping
from typing import Any

from vnfm.common import exceptions
from vnfm.common import timeutils
from vnfm.db import alarms as alarm_db
from vnfm.db import api as db
from vnfm.objects import alarm
from vnfm.objects import autoheal

FUNCTION_TYPE = 'vnffm'
RECEIVER_TYPES = frozenset({'tacker', 'vnfm'})
_TIME_RE = re.compile(
    r'^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$'
)
_VNFC_LABELS = ('vnfc_info_id', 'pod', 'server_id')


@dataclasses.dataclass
class Outcome:
    """What became of each alert of a post."""

    changes: list[alarm_db.AlertChange] = dataclasses.field(
        default_factory=list
    )
    # The instance row of each change, in order.
    instances: list[Mapping[str, Any]] = dataclasses.field(
        default_factory=list
    )
    ignored: int = 0  # not a vnffm alert
    skipped: list[str] = dataclasses.field(default_factory=list)


def parse_time(text: object) -> datetime.datetime | None:
    """An RFC 3339 time (nanoseconds allowed) as naive UTC; None for
    Alertmanager's zero time or anything unparsable."""
    if not isinstance(text, str):
        return None
    found = _TIME_RE.match(text)
    if found is None or text.startswith('0001-'):
        return None
    whole, fraction, zone = found.groups()
    value = datetime.datetime.fromisoformat(
        f'{whole}.{(fraction or "0")[:6].ljust(6, "0")}'
        + ('+00:00' if zone == 'Z' else zone)
    )
    return value.astimezone(datetime.timezone.utc).replace(tzinfo=None)


def _text(mapping: dict, key: str, limit: int = 255) -> str | None:
    value = mapping.get(key)
    if not isinstance(value, str) or not value.strip():
        return None
    return value.strip().rstrip(',').strip()[:limit]


def _fingerprint(alert: dict, labels: dict) -> str:
    given = alert.get('fingerprint')
    if isinstance(given, str) and 0 < len(given) <= 64:
        return given
    canonical = repr(sorted((str(k), str(v)) for k, v in labels.items()))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _vnfcs(instance: Mapping[str, Any]) -> list[dict]:
    info = instance.get('instantiated_vnf_info') or {}
    return info.get('vnfcResourceInfo') or []


def vnfc_of(instance: Mapping[str, Any], labels: dict) -> dict | None:
    """The vnfcResourceInfo the labels name, if any."""
    infos = (instance.get('instantiated_vnf_info') or {}).get('vnfcInfo')
    by_info = {i.get('id'): i.get('vnfcResourceInfoId') for i in infos or []}
    for label in _VNFC_LABELS:
        value = _text(labels, label)
        if value is None:
            continue
        for vnfc in _vnfcs(instance):
            resource = vnfc.get('computeResource') or {}
            if value in (vnfc.get('id'), resource.get('resourceId')) or (
                by_info.get(value) == vnfc.get('id')
            ):
                return vnfc
    return None


def vnfc_info_id(instance: Mapping[str, Any], vnfc: dict) -> str:
    """The id of the vnfcInfo of a vnfcResourceInfo (what Alarm's
    vnfcInstanceIds and a heal's vnfcInstanceId name; SOL003 v3.3.1
    7.5.2.4), its own id if it has none."""
    infos = (instance.get('instantiated_vnf_info') or {}).get('vnfcInfo')
    for info in infos or []:
        if info.get('vnfcResourceInfoId') == vnfc.get('id'):
            return str(info['id'])
    return str(vnfc.get('id'))


def _faulty_resource(vnfc: dict) -> dict:
    resource = dict(vnfc.get('computeResource') or {})
    return {'faultyResource': resource, 'faultyResourceType': 'COMPUTE'}


def _enum(labels: dict, key: str, allowed: tuple, default: str) -> str:
    value = (_text(labels, key) or default).upper()
    if value not in allowed:
        raise ValueError(
            f'label {key}={value[:40]!r} is not one of {", ".join(allowed)}'
        )
    return value


def _change(
    alert: dict, instance: Mapping[str, Any], now: datetime.datetime
) -> alarm_db.AlertChange:
    labels = alert.get('labels') or {}
    annotations = alert.get('annotations') or {}
    starts_at = parse_time(alert.get('startsAt'))
    if starts_at is None:
        raise ValueError('startsAt is missing or not an RFC 3339 time')
    severity = _enum(
        labels, 'perceived_severity', alarm.SEVERITIES, 'INDETERMINATE'
    )
    vnfc = vnfc_of(instance, labels)
    vnfc_ids = [vnfc_info_id(instance, vnfc)] if vnfc else None
    details = _text(annotations, 'fault_details', 1024)
    values: dict[str, Any] = {
        'id': db.new_id(),
        'vnf_instance_id': instance['id'],
        'project_id': instance.get('project_id'),
        'vnfc_instance_ids': vnfc_ids,
        'root_cause_faulty_resource': _faulty_resource(vnfc) if vnfc else None,
        'alarm_raised_time': now,
        'alarm_changed_time': now,
        'ack_state': alarm.UNACKNOWLEDGED,
        'perceived_severity': 'INDETERMINATE'
        if severity == 'CLEARED'
        else severity,
        'event_time': starts_at,
        'event_type': _enum(
            labels, 'event_type', alarm.EVENT_TYPES, 'PROCESSING_ERROR_ALARM'
        ),
        'probable_cause': _text(annotations, 'probable_cause')
        or _text(labels, 'alertname')
        or 'unknown',
        'fault_type': _text(annotations, 'fault_type'),
        'is_root_cause': False,
        'fault_details': [details] if details else None,
    }
    if not autoheal.enabled(instance):  # decided now: no update later
        values['heal_state'] = autoheal.DISABLED.state
        values['heal_decision'] = autoheal.DISABLED.details(now)
    resolved = alert.get('status') == 'resolved'
    return alarm_db.AlertChange(
        fingerprint=_fingerprint(alert, labels),
        starts_at=starts_at,
        values=values,
        cleared_at=(parse_time(alert.get('endsAt')) or now)
        if resolved
        else None,
    )


def is_for(alert: Any, function_type: str) -> bool:
    """Whether an alert is meant for vnfm (``receiver_type`` unset,
    ``tacker`` or ``vnfm``) with label ``function_type``."""
    labels = alert.get('labels') if isinstance(alert, dict) else None
    if not isinstance(labels, dict):
        return False
    receiver = labels.get('receiver_type')
    return labels.get('function_type') == function_type and (
        receiver is None or receiver in RECEIVER_TYPES
    )


def is_vnffm(alert: Any) -> bool:
    """Whether an alert is meant for vnfm's fault management."""
    return is_for(alert, FUNCTION_TYPE)


def interpret(alerts: list[Any]) -> Outcome:
    """The alarm changes of a post's ``alerts``; instances are read once
    each."""
    out = Outcome()
    now = timeutils.utcnow()
    instances: dict[str, Mapping[str, Any] | None] = {}
    for alert in alerts:
        if not is_vnffm(alert):
            out.ignored += 1
            continue
        instance_id = _text(alert['labels'], 'vnf_instance_id')
        if instance_id is None:
            out.skipped.append('an alert has no label vnf_instance_id')
            continue
        if instance_id not in instances:
            instances[instance_id] = _instance(instance_id)
        instance = instances[instance_id]
        if instance is None:
            out.skipped.append(f'no VNF instance {instance_id}')
            continue
        try:
            out.changes.append(_change(alert, instance, now))
        except ValueError as e:
            out.skipped.append(f'an alert of VNF instance {instance_id}: {e}')
            continue
        out.instances.append(instance)
    return out


def _instance(instance_id: str) -> Mapping[str, Any] | None:
    try:
        return db.instance_get(instance_id)
    except exceptions.NotFound:
        return None
