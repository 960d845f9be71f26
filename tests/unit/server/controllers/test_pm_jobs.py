"""/vnfpm/v2/pm_jobs: create, list, show, modify, delete PM jobs, their
reports from Alertmanager's alerts and the notifications announcing
them, per project."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.unit.server.conftest import identity
from tests.unit.server.conftest import json_of
from tests.unit.server.fm_helpers import TOKEN
from tests.unit.server.fm_helpers import deliver as _deliver
from tests.unit.server.fm_helpers import instance_with_vnfcs
from tests.unit.server.fm_helpers import post
from tests.unit.server.pm_helpers import job_body
from tests.unit.server.pm_helpers import pm
from tests.unit.server.pm_helpers import pm_alert
from vnfm.conf import CONF
from vnfm.db import pm as pm_db
from vnfm.db import registry


@pytest.fixture
def fm(client) -> Iterator:
    """The client, with the receiver's token configured."""
    CONF.set_override('receiver_token', TOKEN, group='fault_management')
    yield client
    CONF.clear_override('receiver_token', group='fault_management')


def _create(client, inst: dict, callback: str, **criteria) -> dict:
    resp = pm(
        client, 'POST', '/pm_jobs', job_body(inst['id'], callback, **criteria)
    )
    assert resp.status_int == 201, resp.body
    return json_of(resp)


def test_create_show_list_delete(client, receiver):
    inst = instance_with_vnfcs()

    created = pm(
        client, 'POST', '/pm_jobs', job_body(inst['id'], receiver.url)
    )
    job = json_of(created)
    shown = json_of(pm(client, 'GET', f'/pm_jobs/{job["id"]}'))
    listed = json_of(pm(client, 'GET', '/pm_jobs'))
    lcm_subs = json_of(client.lcm('GET', '/subscriptions'))
    deleted = pm(client, 'DELETE', f'/pm_jobs/{job["id"]}')
    gone = pm(client, 'GET', f'/pm_jobs/{job["id"]}')

    assert created.status_int == 201, created.body
    assert created.headers['Version'] == '2.1.0'
    assert created.headers['Location'] == (
        f'http://localhost/vnfpm/v2/pm_jobs/{job["id"]}'
    )
    assert job['objectType'] == 'Vnf'
    assert job['objectInstanceIds'] == [inst['id']]
    assert job['criteria']['reportingPeriod'] == 60
    assert job['callbackUri'] == receiver.url
    assert 'authentication' not in job
    assert job['_links']['objects'] == [
        {'href': f'http://localhost/vnflcm/v2/vnf_instances/{inst["id"]}'}
    ]
    assert shown == job
    assert [j['id'] for j in listed] == [job['id']]
    assert lcm_subs == []  # the job's callback is no LCM subscription
    assert [t['headers'].get('Version') for t in receiver.tests] == ['2.1.0']
    assert deleted.status_int == 204
    assert gone.status_int == 404
    assert registry.subscription_list() == []


@pytest.mark.parametrize(
    ('change', 'detail'),
    [
        ({'reportingPeriod': 45}, 'not a multiple of collectionPeriod'),
        (
            {'performanceMetric': ['ByteIncomingVnfExtCp']},
            'is not a measurement of objectType Vnf',
        ),
        (
            {'performanceMetric': ['VCpuUsageMeanVnf.other']},
            'not one of objectInstanceIds',
        ),
        (
            {
                'performanceMetric': [],
                'performanceMetricGroup': ['InternalCP'],
            },
            'does not apply to objectType Vnf',
        ),
        ({'performanceMetric': []}, 'names no measurement'),
    ],
)
def test_bad_criteria_are_a_400_naming_the_mistake(
    client, receiver, change, detail
):
    inst = instance_with_vnfcs()

    resp = pm(
        client,
        'POST',
        '/pm_jobs',
        job_body(inst['id'], receiver.url, **change),
    )

    assert resp.status_int == 400, resp.body
    assert detail in json_of(resp)['detail']
    assert pm_db.job_list() == []


def test_an_unknown_instance_is_a_422(client, receiver):
    resp = pm(client, 'POST', '/pm_jobs', job_body('nope', receiver.url))

    assert resp.status_int == 422
    assert 'nope' in json_of(resp)['detail']


def test_the_version_header_is_required(client):
    resp = client.request('GET', '/vnfpm/v2/pm_jobs')

    assert resp.status_int == 400
    assert 'Version: 2.1.0' in json_of(resp)['detail']


def test_a_group_names_its_measurements(client, receiver):
    inst = instance_with_vnfcs()

    job = _create(
        client,
        inst,
        receiver.url,
        performanceMetric=[],
        performanceMetricGroup=['VirtualisedComputeResource'],
    )

    assert pm_db.job_get(job['id'])['measurements'] == [
        'VCpuUsageMeanVnf',
        'VCpuUsagePeakVnf',
        'VMemoryUsageMeanVnf',
        'VMemoryUsagePeakVnf',
        'VDiskUsageMeanVnf',
        'VDiskUsagePeakVnf',
    ]


def test_patch_changes_the_callback_and_keeps_secrets_unshown(
    client, receiver
):
    inst = instance_with_vnfcs()
    job = _create(client, inst, receiver.url)
    auth = {
        'authType': ['BASIC'],
        'paramsBasic': {'userName': 'nfvo', 'password': 's3cret'},
    }

    resp = pm(
        client,
        'PATCH',
        f'/pm_jobs/{job["id"]}',
        {'callbackUri': receiver.url + 'new', 'authentication': auth},
        content_type='application/merge-patch+json',
    )
    shown = json_of(pm(client, 'GET', f'/pm_jobs/{job["id"]}'))

    assert resp.status_int == 200, resp.body
    assert json_of(resp) == {'callbackUri': receiver.url + 'new'}
    assert shown['callbackUri'] == receiver.url + 'new'
    assert b's3cret' not in resp.body
    assert receiver.tests[-1]['path'] == '/callbacknew'


def test_a_failing_callback_is_a_422_and_changes_nothing(client, receiver):
    inst = instance_with_vnfcs()
    job = _create(client, inst, receiver.url)
    receiver.test_statuses.append(500)

    resp = pm(
        client,
        'PATCH',
        f'/pm_jobs/{job["id"]}',
        {'callbackUri': receiver.url + 'broken'},
        content_type='application/merge-patch+json',
    )

    assert resp.status_int == 422, resp.body
    shown = json_of(pm(client, 'GET', f'/pm_jobs/{job["id"]}'))
    assert shown['callbackUri'] == receiver.url


def test_alerts_make_a_report_once_and_notify(fm, receiver):
    inst = instance_with_vnfcs()
    job = _create(fm, inst, receiver.url)
    alert = pm_alert(job['id'], inst['id'], value='0.75')

    first = json_of(post(fm, alert))
    again = json_of(post(fm, alert))  # Alertmanager's retry
    assert _deliver() == 1
    (note,) = receiver.wait(1)
    shown = json_of(pm(fm, 'GET', f'/pm_jobs/{job["id"]}'))
    report_url = note['body']['_links']['performanceReport']['href']
    report_path = report_url.split('/vnfpm/v2', 1)[1]
    report = pm(fm, 'GET', report_path)

    assert (first['reports'], again['reports']) == (1, 0)
    assert first['ignored'] == 0
    assert note['headers']['Version'] == '2.1.0'
    assert note['body']['notificationType'] == (
        'PerformanceInformationAvailableNotification'
    )
    assert note['body']['pmJobId'] == job['id']
    assert note['body']['objectInstanceId'] == inst['id']
    assert [r['href'] for r in shown['reports']] == [
        'http://localhost/vnfpm/v2' + report_path
    ]
    assert report.status_int == 200, report.body
    assert json_of(report)['entries'] == [
        {
            'objectType': 'Vnf',
            'objectInstanceId': inst['id'],
            'performanceMetric': f'VCpuUsageMeanVnf.{inst["id"]}',
            'performanceValues': [
                {'timeStamp': '2026-11-27T10:00:00.000000Z', 'value': 0.75}
            ],
        }
    ]


def test_unusable_alerts_are_skipped_with_the_reason(fm, receiver):
    inst = instance_with_vnfcs()
    job = _create(fm, inst, receiver.url)

    out = json_of(
        post(
            fm,
            pm_alert(job['id'], inst['id'], metric='VDiskUsagePeakVnf'),
            pm_alert(job['id'], inst['id'], value='NaN'),
            pm_alert('no-such-job', inst['id']),
        )
    )

    assert out['reports'] == 0
    assert out['skipped'] == [
        f"an alert of PM job {job['id']}: metric 'VDiskUsagePeakVnf' is not "
        'measured by it',
        f'an alert of PM job {job["id"]}: annotation value is not a finite '
        'number',
        'no PM job no-such-job',
    ]


def test_jobs_of_another_project_are_404(keystone_client, receiver):
    CONF.set_override('test_callback_uri', False, group='notifications')
    ours = instance_with_vnfcs(project='p1')
    theirs_inst = instance_with_vnfcs(project='p2', vnfd_id='vnfd-2')
    member = identity('p1', 'member', 'reader')
    try:
        mine = pm(
            keystone_client,
            'POST',
            '/pm_jobs',
            job_body(ours['id'], receiver.url),
            headers=member,
        )
        foreign = pm(
            keystone_client,
            'POST',
            '/pm_jobs',
            job_body(theirs_inst['id'], receiver.url),
            headers=member,
        )
        other = identity('p2', 'member', 'reader', user='u2')
        job_id = json_of(mine)['id']
        show = pm(keystone_client, 'GET', f'/pm_jobs/{job_id}', headers=other)
        listed = json_of(pm(keystone_client, 'GET', '/pm_jobs', headers=other))
        delete = pm(
            keystone_client, 'DELETE', f'/pm_jobs/{job_id}', headers=other
        )
    finally:
        CONF.clear_override('test_callback_uri', group='notifications')

    assert mine.status_int == 201, mine.body
    assert foreign.status_int == 422
    assert show.status_int == 404
    assert listed == []
    assert delete.status_int == 404
    assert pm_db.job_get(job_id)['project_id'] == 'p1'
