"""VNF fault management through the real services: Alertmanager-format
posts to vnfm's receiver (and the real Alertmanager, Debian's
``prometheus-alertmanager``, posting to it), alarms read and acknowledged
with the real client (``openstack vnffm``), FM notifications to an HTTP
receiver, and auto-heal of a VNFC on the noop VIM."""

from __future__ import annotations

import concurrent.futures
import datetime
import json
from pathlib import Path

import pytest

from tests.unit.conductor import receiver as receivers
from vnfm_testbed import alertmanager
from vnfm_testbed import prereqs

pytestmark = pytest.mark.timeout(240)

receiver = receivers.receiver  # the fixture
FM = '2'  # --os-tacker-api-version of `openstack vnffm`


def _iso(moment: datetime.datetime) -> str:
    return moment.strftime('%Y-%m-%dT%H:%M:%S.%fZ')


def _alert(inst_id: str, vnfc_id: str, **kw) -> dict:
    labels = {
        'alertname': kw.pop('alertname', 'VnfcDown'),
        'function_type': 'vnffm',
        'receiver_type': 'tacker',
        'vnf_instance_id': inst_id,
        'vnfc_info_id': vnfc_id,
        'perceived_severity': 'CRITICAL',
        'event_type': 'EQUIPMENT_ALARM',
    }
    return {
        'status': kw.pop('status', 'firing'),
        'labels': labels,
        'annotations': {'probable_cause': 'VNFC is down'},
        'startsAt': kw.pop('starts_at', '2026-11-27T10:00:00Z'),
        'endsAt': kw.pop('ends_at', '0001-01-01T00:00:00Z'),
        'fingerprint': kw.pop('fingerprint', 'it-fp'),
    }


def _alarms(api, inst_id: str) -> list[dict]:
    r = api.request(
        'GET',
        '/vnffm/v1/alarms',
        version='1.3.0',
        params={'filter': f'(eq,managedObjectId,{inst_id})'},
    )
    assert r.status_code == 200, r.text
    return r.json()


@pytest.fixture
def instance(api, noop_instance: str) -> tuple[str, str]:
    """An instantiated noop instance and the id of one of its VNFCs."""
    vnfcs = api.instance(noop_instance)['instantiatedVnfInfo']['vnfcInfo']
    return noop_instance, vnfcs[0]['id']


def _subscribe(client, receiver, inst_id: str, tmp_path: Path) -> str:
    body = {
        'callbackUri': receiver.url,
        'filter': {
            'vnfInstanceSubscriptionFilter': {'vnfInstanceIds': [inst_id]},
        },
    }
    path = tmp_path / 'fm-sub.json'
    path.write_text(json.dumps(body))
    sub = client.json('vnffm', 'sub', 'create', str(path), api_version=FM)
    listed = client.json('vnffm', 'sub', 'list', api_version=FM)
    assert sub['ID'] in {s['ID'] for s in listed}
    return sub['ID']


def test_alarms_with_the_real_client(
    client, api, instance, receiver, tmp_path: Path
):
    inst_id, vnfc_id = instance
    sub_id = _subscribe(client, receiver, inst_id, tmp_path)
    try:
        alarm_id = _raise_once_despite_retries(client, api, inst_id, vnfc_id)
        _acknowledge(client, api, alarm_id)
        _clear_and_notify(api, receiver, inst_id, vnfc_id, alarm_id)
    finally:
        client.run('vnffm', 'sub', 'delete', sub_id, api_version=FM)


def _raise_once_despite_retries(
    client, api, inst_id: str, vnfc_id: str
) -> str:
    # Alertmanager retries a post it got no answer to: one alarm.
    answers = [api.post_alerts(_alert(inst_id, vnfc_id)) for _ in range(3)]
    assert [a['raised'] for a in answers] == [1, 0, 0]

    [row] = [
        a
        for a in client.json('vnffm', 'alarm', 'list', api_version=FM)
        if a['Managed Object Id'] == inst_id
    ]
    assert row['Ack State'] == 'UNACKNOWLEDGED'
    assert row['Perceived Severity'] == 'CRITICAL'
    shown = client.json('vnffm', 'alarm', 'show', row['ID'], api_version=FM)
    assert shown['Vnfc Instance Ids'] == [vnfc_id]
    return row['ID']


def _acknowledge(client, api, alarm_id: str) -> None:
    updated = client.json(
        'vnffm',
        'alarm',
        'update',
        alarm_id,
        '--ack-state',
        'ACKNOWLEDGED',
        api_version=FM,
    )
    assert updated == {'Ack State': 'ACKNOWLEDGED'}
    again = api.request(
        'PATCH',
        f'/vnffm/v1/alarms/{alarm_id}',
        version='1.3.0',
        json={'ackState': 'ACKNOWLEDGED'},
    )
    assert again.status_code == 409


def _clear_and_notify(
    api, receiver, inst_id: str, vnfc_id: str, alarm_id: str
) -> None:
    api.post_alerts(
        _alert(
            inst_id, vnfc_id, status='resolved', ends_at='2026-11-27T10:05:00Z'
        ),
    )
    raised, cleared = receiver.wait(2, timeout=30)
    assert raised['body']['notificationType'] == 'AlarmNotification'
    assert raised['body']['alarm']['id'] == alarm_id
    assert raised['headers']['Version'] == '1.3.0'
    assert cleared['body']['notificationType'] == 'AlarmClearedNotification'
    assert cleared['body']['alarmId'] == alarm_id
    [alarm] = _alarms(api, inst_id)
    assert alarm['perceivedSeverity'] == 'CLEARED'
    assert alarm['alarmClearedTime'].startswith('2026-11-27T10:05:00')


def _heals(api, inst_id: str) -> list[dict]:
    return [o for o in api.ops(inst_id) if o['operation'] == 'HEAL']


def test_an_alert_storm_heals_the_vnfc_once(api, instance):
    inst_id, vnfc_id = instance
    api.configure(inst_id, isAutohealEnabled=True)

    # 100 alerts for one VNFC within a second: 10 posts of 10 at once.
    def post(i: int) -> dict:
        return api.post_alerts(
            *(
                _alert(inst_id, vnfc_id, fingerprint=f'storm-{i}-{j}')
                for j in range(10)
            ),
        )

    with concurrent.futures.ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(post, range(10)))

    assert sum(a['raised'] for a in answers) == 100
    [listed] = _heals(api, inst_id)
    heal = api.op(listed['id'])
    assert heal['isAutomaticInvocation'] is True
    assert heal['operationParams']['vnfcInstanceId'] == [vnfc_id]
    api.wait_op(heal['id'], 'COMPLETED')

    # The 99 that waited are judged again after it: healed already.
    def judged() -> list[dict] | None:
        alarms = _alarms(api, inst_id)
        states = [a.get('autoHeal', {}).get('decision') for a in alarms]
        return (
            alarms if 'WAITING' not in states and None not in states else None
        )

    alarms = api.wait_for(judged, 60, 'every alarm of the storm judged')
    decisions = sorted(a['autoHeal']['decision'] for a in alarms)
    assert decisions == ['HEAL_STARTED'] + ['NOT_HEALED'] * 99
    assert len(_heals(api, inst_id)) == 1


def test_alertmanager_raises_and_clears(api, instance, tmp_path: Path):
    if not alertmanager.available():
        prereqs.missing("Debian's prometheus-alertmanager is not installed")
    inst_id, vnfc_id = instance
    now = datetime.datetime.now(datetime.timezone.utc)
    labels = _alert(inst_id, vnfc_id)['labels']
    with alertmanager.running(
        tmp_path / 'am', api.base + '/alert', api.ALERT_TOKEN
    ) as am:
        alertmanager.post_alerts(
            am,
            [
                {
                    'labels': labels,
                    'annotations': {'probable_cause': 'VNFC is down'},
                    'startsAt': _iso(now),
                }
            ],
        )
        [alarm] = api.wait_for(
            lambda: _alarms(api, inst_id) or None, 60, 'the alarm raised'
        )
        assert alarm['vnfcInstanceIds'] == [vnfc_id]
        assert alarm['perceivedSeverity'] == 'CRITICAL'

        alertmanager.post_alerts(
            am,
            [
                {
                    'labels': labels,
                    'startsAt': _iso(now),
                    'endsAt': _iso(now + datetime.timedelta(seconds=1)),
                }
            ],
        )

        def cleared() -> dict | None:
            [found] = _alarms(api, inst_id)
            return found if 'alarmClearedTime' in found else None

        found = api.wait_for(cleared, 60, 'the alarm cleared')
    assert found['id'] == alarm['id']
    assert found['perceivedSeverity'] == 'CLEARED'
