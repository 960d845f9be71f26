"""VNF performance management through the real services: PM jobs and
thresholds with the real client (``openstack vnfpm``), reports and
crossings from Alertmanager-format posts to vnfm's receiver, their
notifications to an HTTP receiver, the rule files the conductors write
(checked by Debian's promtool), and auto-scale of an instance on the noop
VIM."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.conductor import receiver as receivers

pytestmark = pytest.mark.timeout(240)

receiver = receivers.receiver  # the fixture
PM = '2'  # --os-tacker-api-version of `openstack vnfpm`
ASPECT = 'vdu1_aspect'


def _labels(function_type: str, **labels: str) -> dict:
    return {'receiver_type': 'vnfm', 'function_type': function_type, **labels}


def _alert(labels: dict, value: str, fingerprint: str) -> dict:
    return {
        'status': 'firing',
        'labels': labels,
        'annotations': {'value': value},
        'startsAt': '2026-11-27T10:00:00Z',
        'endsAt': '0001-01-01T00:00:00Z',
        'fingerprint': fingerprint,
    }


def _file(tmp_path: Path, name: str, body: dict) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(body))
    return str(path)


def _create_job(client, receiver, inst_id: str, tmp_path: Path) -> dict:
    body = {
        'objectType': 'Vnf',
        'objectInstanceIds': [inst_id],
        'criteria': {
            'performanceMetric': [f'VCpuUsageMeanVnf.{inst_id}'],
            'collectionPeriod': 15,
            'reportingPeriod': 30,
        },
        'callbackUri': receiver.url,
    }
    path = _file(tmp_path, 'job.json', body)
    job = client.json('vnfpm', 'job', 'create', path, api_version=PM)
    listed = client.json('vnfpm', 'job', 'list', api_version=PM)
    assert job['ID'] in {j['Id'] for j in listed}
    shown = client.json('vnfpm', 'job', 'show', job['ID'], api_version=PM)
    assert shown['Object Instance Ids'] == [inst_id]
    return shown


def _report_and_notify(client, api, receiver, job_id: str, inst_id: str):
    labels = _labels(
        'vnfpm',
        job_id=job_id,
        metric='VCpuUsageMeanVnf',
        object_instance_id=inst_id,
    )
    answers = [
        api.post_alerts(_alert(labels, '0.42', 'it-pm')) for _ in range(2)
    ]
    assert [a['reports'] for a in answers] == [1, 0]
    [note] = receiver.wait(1, timeout=30)
    body = note['body']
    assert body['notificationType'] == (
        'PerformanceInformationAvailableNotification'
    )
    assert note['headers']['Version'] == '2.1.0'
    report_id = body['_links']['performanceReport']['href'].rsplit('/', 1)[1]
    report = client.json(
        'vnfpm', 'report', 'show', job_id, report_id, api_version=PM
    )
    [entry] = report['Entries']
    assert entry['performanceValues'][0]['value'] == 0.42


def _update_and_delete_job(client, receiver, job_id: str, tmp_path: Path):
    path = _file(tmp_path, 'upd.json', {'callbackUri': receiver.url + '2'})
    updated = client.json(
        'vnfpm', 'job', 'update', job_id, path, api_version=PM
    )
    assert updated['Callback Uri'] == receiver.url + '2'
    client.run('vnfpm', 'job', 'delete', job_id, api_version=PM)
    assert job_id not in {
        j['Id'] for j in client.json('vnfpm', 'job', 'list', api_version=PM)
    }


def _rule_file(api, services, job_id: str, present: bool) -> None:
    conf = services.extra_conf['performance_management']
    path = Path(conf['rule_dir']) / f'vnfm-pm-{job_id}.yaml'
    api.wait_for(
        lambda: path.exists() == present or None,
        30,
        f'the rule file of PM job {job_id} {"written" if present else "gone"}',
    )
    if present:
        assert 'function_type: vnfpm' in path.read_text()


def test_pm_jobs_and_reports_with_the_real_client(
    client, api, services, noop_instance, receiver, tmp_path: Path
):
    inst_id = noop_instance
    job = _create_job(client, receiver, inst_id, tmp_path)
    _rule_file(api, services, job['ID'], present=True)
    _report_and_notify(client, api, receiver, job['ID'], inst_id)
    _update_and_delete_job(client, receiver, job['ID'], tmp_path)
    _rule_file(api, services, job['ID'], present=False)


def _create_threshold(client, receiver, inst_id: str, tmp_path: Path) -> str:
    body = {
        'objectType': 'Vnf',
        'objectInstanceId': inst_id,
        'criteria': {
            'performanceMetric': f'VCpuUsageMeanVnf.{inst_id}',
            'thresholdType': 'SIMPLE',
            'simpleThresholdDetails': {
                'thresholdValue': 0.5,
                'hysteresis': 0.1,
            },
        },
        'callbackUri': receiver.url,
        'metadata': {'aspectId': ASPECT},
    }
    path = _file(tmp_path, 'threshold.json', body)
    made = client.json('vnfpm', 'threshold', 'create', path, api_version=PM)
    listed = client.json('vnfpm', 'threshold', 'list', api_version=PM)
    assert made['ID'] in {t['ID'] for t in listed}
    return made['ID']


def _cross(
    api, receiver, threshold_id: str, direction: str, value: str, seen: int
) -> None:
    labels = _labels(
        'vnfpm_threshold',
        threshold_id=threshold_id,
        crossing_direction=direction,
        metric='VCpuUsageMeanVnf',
    )
    assert api.post_alerts(_alert(labels, value, f'it-{direction}'))[
        'crossings'
    ]
    note = receiver.wait(seen, timeout=30)[-1]
    assert note['body']['notificationType'] == 'ThresholdCrossedNotification'
    assert note['body']['crossingDirection'] == direction


def _scaled(api, inst_id: str, scale_type: str, level: int) -> None:
    scales = [
        api.op(o['id']) for o in api.ops(inst_id) if o['operation'] == 'SCALE'
    ]
    [op] = [o for o in scales if o['operationParams']['type'] == scale_type]
    assert op['isAutomaticInvocation'] is True
    api.wait_op(op['id'], 'COMPLETED')
    info = api.instance(inst_id)['instantiatedVnfInfo']
    levels = {s['aspectId']: s['scaleLevel'] for s in info['scaleStatus']}
    assert levels[ASPECT] == level


def test_thresholds_scale_out_and_in(
    client, api, noop_instance, receiver, tmp_path: Path
):
    instance = noop_instance
    api.configure(instance, isAutoscaleEnabled=True)
    threshold_id = _create_threshold(client, receiver, instance, tmp_path)
    _cross(api, receiver, threshold_id, 'UP', '0.9', seen=1)
    _scaled(api, instance, 'SCALE_OUT', 1)
    shown = client.json(
        'vnfpm', 'threshold', 'show', threshold_id, api_version=PM
    )
    assert shown['ID'] == threshold_id
    r = api.request(
        'GET', f'/vnfpm/v2/thresholds/{threshold_id}', version='2.1.0'
    )
    assert r.json()['autoScale']['decision'] == 'SCALE_STARTED'
    # The services run with [performance_management] autoscale_cooldown 0.
    _cross(api, receiver, threshold_id, 'DOWN', '0.1', seen=2)
    _scaled(api, instance, 'SCALE_IN', 0)
    _update_and_delete_threshold(client, receiver, threshold_id, tmp_path)


def _update_and_delete_threshold(
    client, receiver, threshold_id: str, tmp_path: Path
) -> None:
    path = _file(tmp_path, 'tupd.json', {'callbackUri': receiver.url + '3'})
    updated = client.json(
        'vnfpm', 'threshold', 'update', threshold_id, path, api_version=PM
    )
    assert updated['Callback Uri'] == receiver.url + '3'
    client.run('vnfpm', 'threshold', 'delete', threshold_id, api_version=PM)
    listed = client.json('vnfpm', 'threshold', 'list', api_version=PM)
    assert threshold_id not in {t['ID'] for t in listed}
