"""SOL003 v3.3.1 VNF performance management: the PmJob (6.5.2.7), the
PerformanceReport (6.5.2.10), PerformanceInformationAvailableNotification
(6.5.2.5), and the measurement types vnfm collects: those Tacker's
Prometheus plugin supports (ETSI GS NFV-IFA 027 names), per object type.

ETSI publishes no OpenAPI document for PM in ../shared/etsi-openapi/;
names and shapes follow SOL003 v3.3.1 clause 6 as Tacker serves it.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from vnfm.common import exceptions
from vnfm.common import timeutils
from vnfm.db import api as db
from vnfm.objects import notifications

PREFIX = '/vnfpm/v2'
VERSION = '2.1.0'
AVAILABLE = 'PerformanceInformationAvailableNotification'

# performanceMetricGroup -> its measurement types.
GROUPS: dict[str, tuple[str, ...]] = {
    'VirtualisedComputeResource': (
        'VCpuUsageMeanVnf',
        'VCpuUsagePeakVnf',
        'VMemoryUsageMeanVnf',
        'VMemoryUsagePeakVnf',
        'VDiskUsageMeanVnf',
        'VDiskUsagePeakVnf',
    ),
    'InternalCP': tuple(
        f'{kind}{way}VnfIntCp'
        for kind in ('Byte', 'Packet')
        for way in ('Incoming', 'Outgoing')
    ),
    'ExternalCP': tuple(
        f'{kind}{way}VnfExtCp'
        for kind in ('Byte', 'Packet')
        for way in ('Incoming', 'Outgoing')
    ),
}
# objectType -> the groups whose measurements it has.
OBJECT_TYPES: dict[str, tuple[str, ...]] = {
    'Vnf': ('VirtualisedComputeResource',),
    'Vnfc': ('VirtualisedComputeResource',),
    'VnfIntCp': ('InternalCP',),
    'VnfExtCp': ('ExternalCP',),
}


def measurements(
    object_type: str, object_instance_ids: list[str], criteria: dict
) -> list[str]:
    """The measurement types a job's criteria name (each once, in order);
    BadRequest naming what is wrong."""
    allowed = {m for g in OBJECT_TYPES[object_type] for m in GROUPS[g]}
    out: list[str] = []
    for group in criteria.get('performanceMetricGroup') or []:
        if group not in OBJECT_TYPES[object_type]:
            raise exceptions.BadRequest(
                f'performanceMetricGroup {group!r} does not apply to '
                f'objectType {object_type}; use '
                f'{", ".join(OBJECT_TYPES[object_type])}.'
            )
        out += GROUPS[group]
    for metric in criteria.get('performanceMetric') or []:
        name, _, target = metric.partition('.')
        if name not in allowed:
            raise exceptions.BadRequest(
                f'performanceMetric {metric[:80]!r}: {name[:60]!r} is not a '
                f'measurement of objectType {object_type}; use one of '
                f'{", ".join(sorted(allowed))}.'
            )
        if target and target not in object_instance_ids:
            raise exceptions.BadRequest(
                f'performanceMetric {metric[:80]!r} names {target[:40]!r}, '
                'which is not one of objectInstanceIds.'
            )
        out.append(name)
    if not out:
        raise exceptions.BadRequest(
            'criteria names no measurement: give performanceMetric or '
            'performanceMetricGroup.'
        )
    return list(dict.fromkeys(out))


def check_periods(criteria: dict) -> None:
    """A reportingPeriod is a multiple of the collectionPeriod (SOL003
    6.5.3.3)."""
    collection = criteria['collectionPeriod']
    reporting = criteria['reportingPeriod']
    if reporting % collection:
        raise exceptions.BadRequest(
            f'reportingPeriod {reporting} is not a multiple of '
            f'collectionPeriod {collection}.'
        )


def href(base_url: str, job_id: str) -> str:
    """Absolute URL of a PM job."""
    return f'{base_url}{PREFIX}/pm_jobs/{job_id}'


def report_href(base_url: str, job_id: str, report_id: str) -> str:
    """Absolute URL of a performance report."""
    return f'{href(base_url, job_id)}/reports/{report_id}'


def to_sol(row: dict, base_url: str, reports: list[dict]) -> dict:
    """The PmJob of a row and its ``reports`` (db.pm.reports_of) with
    its callbackUri (never its authentication)."""
    out: dict[str, Any] = {
        'id': row['id'],
        'objectType': row['object_type'],
        'objectInstanceIds': row['object_instance_ids'],
    }
    if row.get('sub_object_instance_ids'):
        out['subObjectInstanceIds'] = row['sub_object_instance_ids']
    out['criteria'] = row['criteria']
    out['callbackUri'] = row['callback_uri']
    if reports:
        out['reports'] = [_report_ref(base_url, row['id'], r) for r in reports]
    out['_links'] = {
        'self': {'href': href(base_url, row['id'])},
        'objects': [
            {'href': f'{base_url}/vnflcm/v2/vnf_instances/{i}'}
            for i in row['object_instance_ids']
        ],
    }
    return out


def _report_ref(base_url: str, job_id: str, report: dict) -> dict:
    out = {
        'href': report_href(base_url, job_id, report['id']),
        'readyTime': timeutils.isotime(report['created_at']),
    }
    if report.get('expiry_time') is not None:
        out['expiryTime'] = timeutils.isotime(report['expiry_time'])
    return out


def report_to_sol(row: dict) -> dict:
    """The PerformanceReport of a row."""
    return {'entries': row['entries']}


def available(
    job: Mapping[str, Any],
    report: dict,
    object_instance_id: str,
    now: datetime.datetime | None = None,
) -> dict:
    """The outbox row of PerformanceInformationAvailableNotification
    about ``report`` of ``job`` (a row with subscription_id)."""
    base = notifications.endpoint()
    now = now or timeutils.utcnow()
    payload: dict[str, Any] = {
        'id': db.new_id(),
        'notificationType': AVAILABLE,
        'timeStamp': timeutils.isotime(now),
        'pmJobId': job['id'],
        'objectType': job['object_type'],
        'objectInstanceId': object_instance_id,
    }
    if job.get('sub_object_instance_ids'):
        payload['subObjectInstanceIds'] = job['sub_object_instance_ids']
    payload['_links'] = {
        'objectInstance': {
            'href': f'{base}/vnflcm/v2/vnf_instances/{object_instance_id}'
        },
        'pmJob': {'href': href(base, job['id'])},
        'performanceReport': {
            'href': report_href(base, job['id'], report['id'])
        },
    }
    return notifications.outbox_row(
        {'id': job['subscription_id']}, AVAILABLE, payload
    )
