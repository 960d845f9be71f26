"""Alerts of PM rules as performance reports: which alerts are vnfpm's,
one report per job and post, entries checked against the job."""

from __future__ import annotations

from tests.unit.server.pm_helpers import pm_alert
from vnfm.db import outbox
from vnfm.db import pm as pm_db
from vnfm.db import registry
from vnfm.objects import pm_alerts


def _job(measurements: list[str]) -> dict:
    return pm_db.job_create(
        {
            'object_type': 'Vnf',
            'object_instance_ids': ['i1', 'i2'],
            'criteria': {'collectionPeriod': 30, 'reportingPeriod': 30},
            'measurements': measurements,
        },
        {'callback_uri': 'http://198.18.0.1/cb', 'interface': registry.VNFPM},
    )


def test_only_vnfpm_alerts_for_vnfm_are_taken():
    alert = pm_alert('j', 'i1')
    other = pm_alert('j', 'i1')
    other['labels']['receiver_type'] = 'someone-else'

    assert pm_alerts.is_vnfpm(alert)
    assert not pm_alerts.is_vnfpm(other)
    assert not pm_alerts.is_vnfpm({'labels': 'nope'})


def test_the_alerts_of_a_job_make_one_report(db_url):
    job = _job(['VCpuUsageMeanVnf', 'VMemoryUsageMeanVnf'])
    skipped: list[str] = []

    (report,) = pm_alerts.record(
        [
            pm_alert(job['id'], 'i1', '0.5'),
            pm_alert(job['id'], 'i2', '2', metric='VMemoryUsageMeanVnf'),
        ],
        skipped,
    )

    assert skipped == []
    assert [e['performanceMetric'] for e in report['entries']] == [
        'VCpuUsageMeanVnf.i1',
        'VMemoryUsageMeanVnf.i2',
    ]
    assert report['entries'][1]['performanceValues'][0]['value'] == 2.0
    (note,) = outbox.notification_list()
    assert note['subscription_id'] == job['subscription_id']


def test_alerts_the_job_does_not_measure_are_skipped(db_url):
    job = _job(['VCpuUsageMeanVnf'])
    no_job = pm_alert('', 'i1')
    skipped: list[str] = []

    made = pm_alerts.record(
        [pm_alert(job['id'], 'i9'), pm_alert(job['id'], 'i1', 'x'), no_job],
        skipped,
    )

    assert made == []
    assert skipped == [
        'a vnfpm alert has no label job_id',
        f"an alert of PM job {job['id']}: object_instance_id 'i9' is not "
        'one of its objects',
        f'an alert of PM job {job["id"]}: annotation value is not a number',
    ]
    assert outbox.notification_list() == []


def test_a_repeated_alert_with_a_new_value_is_a_new_report(db_url):
    job = _job(['VCpuUsageMeanVnf'])

    made = [
        pm_alerts.record([pm_alert(job['id'], 'i1', value)], [])
        for value in ('0.5', '0.5', '0.7')
    ]

    assert [len(m) for m in made] == [1, 0, 1]
