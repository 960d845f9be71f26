"""PM jobs and reports on SQLite, PostgreSQL and MariaDB: a job goes with
its subscription row, a report of one alert group is stored once, a job
keeps its newest reports."""

from __future__ import annotations

import datetime

import pytest

from vnfm.common import exceptions
from vnfm.db import api
from vnfm.db import outbox
from vnfm.db import pm
from vnfm.db import registry

T0 = datetime.datetime(2030, 1, 1, 12, 0, 0)


def _job() -> dict:
    return pm.job_create(
        {
            'object_type': 'Vnf',
            'object_instance_ids': ['i1'],
            'criteria': {'collectionPeriod': 30, 'reportingPeriod': 30},
            'measurements': ['VCpuUsageMeanVnf'],
        },
        {
            'callback_uri': 'http://198.18.0.1/cb',
            'interface': registry.VNFPM,
            'api_version': '2',
        },
    )


def _report(job: dict, fingerprint: str, minute: int) -> dict:
    return {
        'id': api.new_id(),
        'pm_job_id': job['id'],
        'entries': [{'performanceMetric': 'VCpuUsageMeanVnf.i1'}],
        'fingerprint': fingerprint,
        'created_at': T0 + datetime.timedelta(minutes=minute),
    }


def _note(job: dict) -> dict:
    return {
        'id': api.new_id(),
        'subscription_id': job['subscription_id'],
        'notification_type': 'PerformanceInformationAvailableNotification',
        'payload': {},
    }


def test_a_report_of_one_alert_group_is_stored_once(db_backend):
    job = _job()

    first = pm.report_add(_report(job, 'g1', 0), [_note(job)], keep=10)
    again = pm.report_add(_report(job, 'g1', 1), [_note(job)], keep=10)

    assert first is not None
    assert again is None
    assert [r['id'] for r in pm.reports_of(job['id'])] == [first['id']]
    assert len(outbox.notification_list()) == 1


def test_a_job_keeps_its_newest_reports(db_backend):
    job = _job()

    added = [
        pm.report_add(_report(job, f'g{i}', i), [], keep=2) for i in range(4)
    ]

    kept = [r['id'] for r in pm.reports_of(job['id'])]
    assert kept == [added[2]['id'], added[3]['id']]


def test_a_report_of_another_job_is_not_found(db_backend):
    job, other = _job(), _job()
    report = pm.report_add(_report(job, 'g', 0), [], keep=2)

    with pytest.raises(exceptions.NotFound):
        pm.report_get(other['id'], report['id'])


def test_deleting_a_job_removes_its_subscription_reports_and_notes(
    db_backend,
):
    job = _job()
    pm.report_add(_report(job, 'g', 0), [_note(job)], keep=2)

    pm.job_delete(job)

    assert pm.job_list() == []
    assert registry.subscription_list() == []
    assert pm.reports_of(job['id']) == []
    assert outbox.notification_list() == []
