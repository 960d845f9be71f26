"""Alertmanager alerts of PM jobs (label ``function_type: vnfpm``, as
Tacker's Prometheus plugin) as performance reports.

labels       ``job_id`` (the PM job), ``metric`` (its measurement type),
             ``object_instance_id`` (a VNF instance of the job) and
             ``sub_object_instance_id`` (optional)
annotations  ``value``: the measured value (``{{ $value }}``)

The alerts of one post for one job make one report, announced with
PerformanceInformationAvailableNotification; a post retried by
Alertmanager makes none more. An alert vnfm cannot use is skipped, with
the reason.
"""

from __future__ import annotations

import datetime
import hashlib
import math
from typing import Any

from vnfm.common import exceptions
from vnfm.common import timeutils
from vnfm.conf import CONF
from vnfm.db import api as db
from vnfm.db import pm as pm_db
from vnfm.objects import alerts
from vnfm.objects import pm_job

FUNCTION_TYPE = 'vnfpm'


def is_vnfpm(alert: Any) -> bool:
    """Whether an alert reports a measurement of a PM job."""
    return alerts.is_for(alert, FUNCTION_TYPE)


def value_of(alert: dict) -> float:
    """The finite number in an alert's annotation ``value``; ValueError
    saying what is wrong."""
    given = (alert.get('annotations') or {}).get('value')
    try:
        value = float(given if isinstance(given, (str, int, float)) else '')
    except ValueError:
        raise ValueError('annotation value is not a number') from None
    if not math.isfinite(value):
        raise ValueError('annotation value is not a finite number')
    return value


def _entry(job: dict, alert: dict) -> dict:
    labels = alert['labels']
    metric = labels.get('metric')
    if metric not in job['measurements']:
        raise ValueError(f'metric {str(metric)[:60]!r} is not measured by it')
    target = labels.get('object_instance_id')
    if target not in job['object_instance_ids']:
        raise ValueError(
            f'object_instance_id {str(target)[:60]!r} is not one of its '
            'objects'
        )
    value = value_of(alert)
    when = alerts.parse_time(alert.get('startsAt'))
    if when is None:
        raise ValueError('startsAt is missing or not an RFC 3339 time')
    entry: dict[str, Any] = {
        'objectType': job['object_type'],
        'objectInstanceId': target,
    }
    sub = labels.get('sub_object_instance_id')
    if isinstance(sub, str) and sub:
        entry['subObjectInstanceId'] = sub[:255]
    entry['performanceMetric'] = f'{metric}.{target}'
    entry['performanceValues'] = [
        {'timeStamp': timeutils.isotime(when), 'value': value}
    ]
    return entry


def _fingerprint(group: list[dict]) -> str:
    # Alertmanager repeats a firing alert with its startsAt and a new
    # value: the annotations tell a new measurement from a retry.
    keys = sorted(
        f'{a.get("fingerprint")}|{a.get("startsAt")}|{a["labels"]}|'
        f'{a.get("annotations")}'
        for a in group
    )
    return hashlib.sha256('\n'.join(keys).encode()).hexdigest()[:32]


def record(posted: list[dict], skipped: list[str]) -> list[dict]:
    """Store the reports of a post's vnfpm alerts (``skipped`` gets the
    reasons of the alerts left out); the reports made."""
    by_job: dict[str, list[dict]] = {}
    for alert in posted:
        job_id = alert['labels'].get('job_id')
        if not isinstance(job_id, str) or not job_id:
            skipped.append('a vnfpm alert has no label job_id')
            continue
        by_job.setdefault(job_id, []).append(alert)
    made = []
    for job_id, group in by_job.items():
        report = _report(job_id, group, skipped)
        if report is not None:
            made.append(report)
    return made


def _report(job_id: str, group: list[dict], skipped: list[str]) -> dict | None:
    try:
        job = pm_db.job_get(job_id)
    except exceptions.NotFound:
        skipped.append(f'no PM job {job_id[:60]}')
        return None
    entries = []
    for alert in group:
        try:
            entries.append(_entry(job, alert))
        except ValueError as e:
            skipped.append(f'an alert of PM job {job_id}: {e}')
    if not entries:
        return None
    now = timeutils.utcnow()
    values = {
        'id': db.new_id(),
        'pm_job_id': job_id,
        'entries': entries,
        'fingerprint': _fingerprint(group),
        'created_at': now,
        'expiry_time': now
        + datetime.timedelta(
            seconds=job['criteria']['reportingPeriod']
            * CONF.performance_management.max_reports_per_job
        ),
    }
    note = pm_job.available(job, values, entries[0]['objectInstanceId'], now)
    return pm_db.report_add(
        values, [note], CONF.performance_management.max_reports_per_job
    )
