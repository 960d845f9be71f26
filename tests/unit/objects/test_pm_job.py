"""PM jobs as SOL003 shows them: the measurements their criteria name,
the periods they take, the PmJob and the notification of a report."""

from __future__ import annotations

import datetime

import pytest

from vnfm.common import exceptions
from vnfm.objects import pm_job


def test_groups_and_metrics_resolve_to_measurements_once():
    found = pm_job.measurements(
        'VnfIntCp',
        ['i1'],
        {
            'performanceMetricGroup': ['InternalCP'],
            'performanceMetric': ['ByteIncomingVnfIntCp.i1'],
        },
    )

    assert found == [
        'ByteIncomingVnfIntCp',
        'ByteOutgoingVnfIntCp',
        'PacketIncomingVnfIntCp',
        'PacketOutgoingVnfIntCp',
    ]


def test_a_metric_without_an_object_suffix_is_taken():
    assert pm_job.measurements(
        'Vnfc', ['i1'], {'performanceMetric': ['VMemoryUsagePeakVnf']}
    ) == ['VMemoryUsagePeakVnf']


@pytest.mark.parametrize(
    ('object_type', 'criteria', 'detail'),
    [
        ('VnfExtCp', {'performanceMetric': ['VCpuUsageMeanVnf']}, 'VnfExtCp'),
        ('Vnf', {'performanceMetric': ['VCpuUsageMeanVnf.i2']}, "'i2'"),
        ('Vnf', {}, 'names no measurement'),
    ],
)
def test_a_measurement_the_object_lacks_is_refused(
    object_type, criteria, detail
):
    with pytest.raises(exceptions.BadRequest) as e:
        pm_job.measurements(object_type, ['i1'], criteria)

    assert detail in e.value.detail


def test_the_reporting_period_is_a_multiple_of_the_collection_period():
    pm_job.check_periods({'collectionPeriod': 15, 'reportingPeriod': 45})

    with pytest.raises(exceptions.BadRequest):
        pm_job.check_periods({'collectionPeriod': 20, 'reportingPeriod': 30})


def test_the_pm_job_lists_its_reports_and_objects():
    row = {
        'id': 'j1',
        'object_type': 'Vnf',
        'object_instance_ids': ['i1'],
        'sub_object_instance_ids': None,
        'criteria': {'collectionPeriod': 30, 'reportingPeriod': 30},
        'callback_uri': 'http://198.18.0.1/cb',
    }
    ready = datetime.datetime(2030, 1, 1)

    out = pm_job.to_sol(
        row, 'http://vnfm', [{'id': 'r1', 'created_at': ready}]
    )

    assert out['reports'] == [
        {
            'href': 'http://vnfm/vnfpm/v2/pm_jobs/j1/reports/r1',
            'readyTime': '2030-01-01T00:00:00.000000Z',
        }
    ]
    assert out['_links']['objects'] == [
        {'href': 'http://vnfm/vnflcm/v2/vnf_instances/i1'}
    ]
    assert 'subObjectInstanceIds' not in out


def test_the_notification_links_job_report_and_object():
    job = {
        'id': 'j1',
        'subscription_id': 's1',
        'object_type': 'Vnfc',
        'sub_object_instance_ids': ['c1'],
    }

    row = pm_job.available(job, {'id': 'r1'}, 'i1')

    payload = row['payload']
    assert row['subscription_id'] == 's1'
    assert payload['notificationType'] == pm_job.AVAILABLE
    assert payload['subObjectInstanceIds'] == ['c1']
    assert payload['_links']['performanceReport']['href'].endswith(
        '/vnfpm/v2/pm_jobs/j1/reports/r1'
    )
    assert payload['_links']['objectInstance']['href'].endswith(
        '/vnflcm/v2/vnf_instances/i1'
    )
