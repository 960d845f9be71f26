"""/vnffm/v1: alarms (list, show, acknowledge) and FM subscriptions with
their notifications, per project."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.unit.server.conftest import identity
from tests.unit.server.conftest import json_of
from tests.unit.server.fm_helpers import FM
from tests.unit.server.fm_helpers import TOKEN
from tests.unit.server.fm_helpers import alert
from tests.unit.server.fm_helpers import instance_with_vnfcs
from tests.unit.server.fm_helpers import post
from vnfm.clients import http
from vnfm.conductor.notifier import Notifier
from vnfm.conf import CONF
from vnfm.db import alarms as alarm_db
from vnfm.db import api as db
from vnfm.db import outbox
from vnfm.db import registry
from vnfm.objects import alarm


@pytest.fixture
def fm(client) -> Iterator:
    """The client, with the receiver's token configured."""
    CONF.set_override('receiver_token', TOKEN, group='fault_management')
    yield client
    CONF.clear_override('receiver_token', group='fault_management')


def _fm(client, method: str, path: str, body=None, **kw):
    kw['headers'] = {**FM, **(kw.get('headers') or {})}
    return client.request(method, '/vnffm/v1' + path, body, **kw)


def _raise(fm, inst: dict, **kw) -> dict:
    assert post(fm, alert(inst['id'], **kw)).status_int == 200
    return alarm_db.alarm_list()[-1]


def _deliver() -> int:
    sender = Notifier('c1', http.TokenCache())
    try:
        return sender.drain()
    finally:
        sender.stop()


def test_api_versions(client):
    resp = client.request('GET', '/vnffm/v1/api_versions')

    assert json_of(resp) == {
        'uriPrefix': '/vnffm/v1',
        'apiVersions': [{'version': '1.3.0', 'isDeprecated': False}],
    }


def test_the_version_header_is_required(client):
    resp = client.request('GET', '/vnffm/v1/alarms')

    assert resp.status_int == 400
    assert '1.3.0' in json_of(resp)['detail']


def test_show_an_alarm(fm):
    inst = instance_with_vnfcs()
    row = _raise(fm, inst)

    resp = _fm(fm, 'GET', f'/alarms/{row["id"]}')

    assert resp.status_int == 200
    assert resp.headers['Version'] == '1.3.0'
    assert resp.headers['ETag']
    body = json_of(resp)
    assert body['managedObjectId'] == inst['id']
    assert body['vnfcInstanceIds'] == ['info-a']
    assert body['ackState'] == 'UNACKNOWLEDGED'
    assert body['perceivedSeverity'] == 'CRITICAL'
    assert body['eventType'] == 'EQUIPMENT_ALARM'
    assert body['eventTime'] == '2026-11-27T10:00:00.123456Z'
    assert body['isRootCause'] is False
    assert body['_links'] == {
        'self': {'href': f'http://localhost/vnffm/v1/alarms/{row["id"]}'},
        'objectInstance': {
            'href': f'http://localhost/vnflcm/v2/vnf_instances/{inst["id"]}'
        },
    }


def test_list_filters_and_pages(fm):
    CONF.set_override('alarm_page_size', 2, group='fault_management')
    try:
        inst = instance_with_vnfcs()
        for i, severity in enumerate(['MINOR', 'MAJOR', 'MINOR', 'MINOR']):
            _raise(fm, inst, fingerprint=f'fp{i}', severity=severity)

        minor = _fm(fm, 'GET', '/alarms?filter=(eq,perceivedSeverity,MINOR)')
        page = _fm(fm, 'GET', '/alarms')
    finally:
        CONF.clear_override('alarm_page_size', group='fault_management')

    assert len(json_of(minor)) == 2
    assert 'rel="next"' in minor.headers['Link']
    assert {a['perceivedSeverity'] for a in json_of(minor)} == {'MINOR'}
    assert len(json_of(page)) == 2


def test_acknowledge_then_again_is_a_409(fm):
    row = _raise(fm, instance_with_vnfcs())
    path = f'/alarms/{row["id"]}'

    ack = _fm(fm, 'PATCH', path, {'ackState': 'ACKNOWLEDGED'})
    again = _fm(fm, 'PATCH', path, {'ackState': 'ACKNOWLEDGED'})
    shown = json_of(_fm(fm, 'GET', path))

    assert ack.status_int == 200, ack.body
    assert json_of(ack) == {'ackState': 'ACKNOWLEDGED'}
    assert again.status_int == 409
    assert 'already ACKNOWLEDGED' in json_of(again)['detail']
    assert shown['ackState'] == 'ACKNOWLEDGED'
    assert 'alarmAcknowledgedTime' in shown


def test_unacknowledge(fm):
    row = _raise(fm, instance_with_vnfcs())
    path = f'/alarms/{row["id"]}'
    _fm(fm, 'PATCH', path, {'ackState': 'ACKNOWLEDGED'})

    resp = _fm(
        fm,
        'PATCH',
        path,
        {'ackState': 'UNACKNOWLEDGED'},
        content_type='application/merge-patch+json',
    )

    assert resp.status_int == 200
    assert 'alarmAcknowledgedTime' not in json_of(_fm(fm, 'GET', path))


def test_if_match_of_a_changed_alarm_is_a_412(fm):
    inst = instance_with_vnfcs()
    row = _raise(fm, inst, severity='MINOR')
    path = f'/alarms/{row["id"]}'
    seen = _fm(fm, 'GET', path).headers['ETag']
    _raise(fm, inst, severity='MAJOR')  # Alertmanager changes it

    stale = _fm(
        fm,
        'PATCH',
        path,
        {'ackState': 'ACKNOWLEDGED'},
        headers={'If-Match': seen},
    )
    fresh = _fm(
        fm,
        'PATCH',
        path,
        {'ackState': 'ACKNOWLEDGED'},
        headers={'If-Match': _fm(fm, 'GET', path).headers['ETag']},
    )

    assert stale.status_int == 412
    assert alarm_db.alarm_get(row['id'])['ack_state'] == 'ACKNOWLEDGED'
    assert fresh.status_int == 200


def test_a_bad_ack_state_is_a_400(fm):
    row = _raise(fm, instance_with_vnfcs())

    resp = _fm(fm, 'PATCH', f'/alarms/{row["id"]}', {'ackState': 'YES'})

    assert resp.status_int == 400
    assert alarm_db.alarm_get(row['id'])['ack_state'] == 'UNACKNOWLEDGED'


def test_alarms_of_another_project_are_404(keystone_client):
    CONF.set_override('receiver_token', TOKEN, group='fault_management')
    try:
        mine = _raise(keystone_client, instance_with_vnfcs('p1'))
        theirs = _raise(
            keystone_client,
            instance_with_vnfcs('p2', vnfd_id='vnfd-2'),
            fingerprint='other',
        )
    finally:
        CONF.clear_override('receiver_token', group='fault_management')
    reader = identity('p1', 'reader')
    member = identity('p1', 'member', 'reader')

    listed = _fm(keystone_client, 'GET', '/alarms', headers=reader)
    show = _fm(
        keystone_client, 'GET', f'/alarms/{theirs["id"]}', headers=reader
    )
    patch = _fm(
        keystone_client,
        'PATCH',
        f'/alarms/{theirs["id"]}',
        {'ackState': 'ACKNOWLEDGED'},
        headers=member,
    )
    by_reader = _fm(
        keystone_client,
        'PATCH',
        f'/alarms/{mine["id"]}',
        {'ackState': 'ACKNOWLEDGED'},
        headers=reader,
    )

    assert [a['id'] for a in json_of(listed)] == [mine['id']]
    assert show.status_int == 404
    assert patch.status_int == 404
    assert by_reader.status_int == 403
    assert alarm_db.alarm_get(theirs['id'])['ack_state'] == 'UNACKNOWLEDGED'


def test_fm_subscription_crud(client, receiver):
    body = {
        'callbackUri': receiver.url,
        'filter': {'perceivedSeverities': ['CRITICAL']},
    }

    created = _fm(client, 'POST', '/subscriptions', body)
    sub = json_of(created)
    listed = json_of(_fm(client, 'GET', '/subscriptions'))
    lcm_listed = json_of(client.lcm('GET', '/subscriptions'))
    shown = _fm(client, 'GET', f'/subscriptions/{sub["id"]}')
    from_lcm = client.lcm('GET', f'/subscriptions/{sub["id"]}')
    again = _fm(client, 'POST', '/subscriptions', body)
    deleted = _fm(client, 'DELETE', f'/subscriptions/{sub["id"]}')

    assert created.status_int == 201, created.body
    assert created.headers['Location'] == (
        f'http://localhost/vnffm/v1/subscriptions/{sub["id"]}'
    )
    assert set(sub) == {'id', 'filter', 'callbackUri', '_links'}
    assert [s['id'] for s in listed] == [sub['id']]
    assert lcm_listed == []
    assert shown.status_int == 200
    assert from_lcm.status_int == 404
    assert again.status_int == 303
    assert deleted.status_int == 204
    assert registry.subscription_list() == []
    assert [t['headers'].get('Version') for t in receiver.tests] == ['1.3.0']


def test_a_bad_filter_is_a_400(client, receiver):
    resp = _fm(
        client,
        'POST',
        '/subscriptions',
        {'callbackUri': receiver.url, 'filter': {'eventTypes': ['LOUD']}},
    )

    assert resp.status_int == 400
    assert registry.subscription_list() == []


def test_subscribers_get_alarm_and_cleared_notifications(fm, receiver):
    inst = instance_with_vnfcs()
    everything = json_of(
        _fm(fm, 'POST', '/subscriptions', {'callbackUri': receiver.url})
    )
    _fm(
        fm,
        'POST',
        '/subscriptions',
        {
            'callbackUri': receiver.url + 'minor',
            'filter': {'perceivedSeverities': ['MINOR']},
        },
    )
    lcm = fm.lcm(
        'POST', '/subscriptions', {'callbackUri': receiver.url + 'lcm'}
    )
    assert lcm.status_int == 201, lcm.body

    row = _raise(fm, inst)
    post(fm, alert(inst['id']))  # a retry: nothing new
    post(fm, alert(inst['id'], status='resolved'))
    assert _deliver() == 2

    raised, cleared = receiver.wait(2)
    assert {raised['path'], cleared['path']} == {'/callback'}
    assert raised['headers']['Version'] == '1.3.0'
    assert raised['body']['notificationType'] == 'AlarmNotification'
    assert raised['body']['subscriptionId'] == everything['id']
    assert raised['body']['alarm']['id'] == row['id']
    assert raised['body']['alarm']['perceivedSeverity'] == 'CRITICAL'
    assert raised['body']['_links']['subscription']['href'].endswith(
        f'/vnffm/v1/subscriptions/{everything["id"]}'
    )
    assert cleared['body']['notificationType'] == 'AlarmClearedNotification'
    assert cleared['body']['alarmId'] == row['id']
    assert cleared['body']['alarmClearedTime'] == (
        '2026-11-27T10:05:00.000000Z'
    )
    assert cleared['body']['_links']['alarm']['href'].endswith(
        f'/vnffm/v1/alarms/{row["id"]}'
    )


def test_notifications_of_another_projects_alarms_are_not_sent(
    keystone_client, receiver
):
    CONF.set_override('receiver_token', TOKEN, group='fault_management')
    CONF.set_override('allowed_networks', ['127.0.0.0/8'], group='outbound')
    try:
        resp = _fm(
            keystone_client,
            'POST',
            '/subscriptions',
            {'callbackUri': receiver.url},
            headers=identity('p1', 'member', 'reader'),
        )
        assert resp.status_int == 201, resp.body
        _raise(keystone_client, instance_with_vnfcs('p2'))
    finally:
        CONF.clear_override('receiver_token', group='fault_management')
        CONF.clear_override('allowed_networks', group='outbound')

    assert outbox.notification_list() == []


def test_deleting_an_instance_with_alarms_rebuilds_the_list(fm, receiver):
    inst = instance_with_vnfcs()
    _raise(fm, inst)
    sub = json_of(
        _fm(
            fm,
            'POST',
            '/subscriptions',
            {
                'callbackUri': receiver.url,
                'filter': {
                    'notificationTypes': ['AlarmListRebuiltNotification']
                },
            },
        )
    )
    db.instance_update(inst['id'], {'instantiation_state': 'NOT_INSTANTIATED'})

    resp = fm.lcm('DELETE', f'/vnf_instances/{inst["id"]}')
    assert resp.status_int == 204, resp.body
    assert _deliver() == 1

    [got] = receiver.wait(1)
    assert got['body']['notificationType'] == 'AlarmListRebuiltNotification'
    assert got['body']['subscriptionId'] == sub['id']
    assert got['body']['_links']['alarms']['href'].endswith('/vnffm/v1/alarms')
    assert alarm_db.alarm_list() == []


def test_alarms_of_replaced_removed_and_terminated_vnfcs_clear(fm, receiver):
    inst = instance_with_vnfcs()
    _fm(fm, 'POST', '/subscriptions', {'callbackUri': receiver.url})
    healed = _raise(fm, inst, pod='vdu1-a', fingerprint='a')
    removed = _raise(fm, inst, pod='vdu1-b', fingerprint='b')
    whole = _raise(fm, inst, pod=None, fingerprint='c')
    info = dict(inst['instantiated_vnf_info'])
    info['vnfcResourceInfo'] = [
        dict(
            info['vnfcResourceInfo'][0],
            computeResource={'resourceId': 'vdu1-a-new'},
        )
    ]
    info['vnfcInfo'] = info['vnfcInfo'][:1]
    db.instance_update(inst['id'], {'instantiated_vnf_info': info})

    first = alarm.clear_stale(inst['id'])
    db.instance_update(inst['id'], {'instantiation_state': 'NOT_INSTANTIATED'})
    second = alarm.clear_stale(inst['id'])

    assert sorted(first) == sorted([healed['id'], removed['id']])
    assert second == [whole['id']]
    assert _deliver() == 6
    kinds = [r['body']['notificationType'] for r in receiver.wait(6)]
    assert (
        kinds == ['AlarmNotification'] * 3 + ['AlarmClearedNotification'] * 3
    )
    assert {a['perceived_severity'] for a in alarm_db.alarm_list()} == {
        'CLEARED'
    }
