"""POST /alert: Alertmanager's webhook raises, updates and clears alarms;
authenticated, bounded and idempotent on retries."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.unit.server.conftest import json_of
from tests.unit.server.fm_helpers import BEARER
from tests.unit.server.fm_helpers import TOKEN
from tests.unit.server.fm_helpers import alert
from tests.unit.server.fm_helpers import basic
from tests.unit.server.fm_helpers import instance_with_vnfcs
from tests.unit.server.fm_helpers import post
from vnfm.conf import CONF
from vnfm.db import alarms as alarm_db
from vnfm.db import outbox


@pytest.fixture
def fm(client) -> Iterator:
    """The client, with the receiver's token configured."""
    CONF.set_override('receiver_token', TOKEN, group='fault_management')
    yield client
    CONF.clear_override('receiver_token', group='fault_management')


def test_an_alert_raises_an_alarm_on_its_vnfc(fm):
    inst = instance_with_vnfcs()

    resp = post(fm, alert(inst['id']))

    assert resp.status_int == 200, resp.body
    assert json_of(resp)['raised'] == 1
    [row] = alarm_db.alarm_list()
    assert row['vnf_instance_id'] == inst['id']
    assert row['vnfc_instance_ids'] == ['info-a']
    assert row['root_cause_faulty_resource'] == {
        'faultyResource': {
            'resourceId': 'vdu1-a',
            'vimLevelResourceType': 'Pod',
        },
        'faultyResourceType': 'COMPUTE',
    }
    assert row['perceived_severity'] == 'CRITICAL'
    assert row['event_type'] == 'EQUIPMENT_ALARM'
    assert row['probable_cause'] == 'Pod is down'
    assert row['fault_details'] == ['the container exited']
    assert row['ack_state'] == 'UNACKNOWLEDGED'
    assert row['event_time'].isoformat() == '2026-11-27T10:00:00.123456'


def test_retries_of_one_alert_give_one_alarm(fm):
    inst = instance_with_vnfcs()

    answers = [json_of(post(fm, alert(inst['id']))) for _ in range(5)]

    assert [a['raised'] for a in answers] == [1, 0, 0, 0, 0]
    assert [a['unchanged'] for a in answers] == [0, 1, 1, 1, 1]
    assert len(alarm_db.alarm_list()) == 1


def test_a_new_firing_of_the_same_labels_is_a_new_alarm(fm):
    inst = instance_with_vnfcs()
    post(fm, alert(inst['id']))

    post(fm, alert(inst['id'], starts_at='2026-11-27T11:00:00Z'))

    assert len(alarm_db.alarm_list()) == 2


def test_a_changed_severity_updates_the_alarm(fm):
    inst = instance_with_vnfcs()
    post(fm, alert(inst['id'], severity='MINOR'))

    answer = json_of(post(fm, alert(inst['id'], severity='MAJOR')))

    assert answer['changed'] == 1
    [row] = alarm_db.alarm_list()
    assert row['perceived_severity'] == 'MAJOR'


def test_resolved_clears_the_alarm_once(fm):
    inst = instance_with_vnfcs()
    post(fm, alert(inst['id']))

    first = json_of(post(fm, alert(inst['id'], status='resolved')))
    again = json_of(post(fm, alert(inst['id'], status='resolved')))

    assert first['cleared'] == 1
    assert again['cleared'] == 0
    [row] = alarm_db.alarm_list()
    assert row['perceived_severity'] == 'CLEARED'
    assert row['alarm_cleared_time'].isoformat() == '2026-11-27T10:05:00'


def test_a_resolved_alert_never_raised_changes_nothing(fm):
    inst = instance_with_vnfcs()

    answer = json_of(post(fm, alert(inst['id'], status='resolved')))

    assert answer['cleared'] == 0
    assert alarm_db.alarm_list() == []


def test_alerts_for_others_and_unknown_instances_are_skipped(fm):
    inst = instance_with_vnfcs()
    other = alert(inst['id'], fingerprint='b')
    other['labels']['function_type'] = 'not-vnfm'

    answer = json_of(
        post(
            fm,
            alert('no-such-instance', fingerprint='a'),
            other,
            alert(inst['id'], fingerprint='c', severity='LOUD'),
            alert(inst['id'], fingerprint='d'),
        )
    )

    assert answer['raised'] == 1
    assert answer['ignored'] == 1
    assert answer['skipped'] == [
        'no VNF instance no-such-instance',
        f'an alert of VNF instance {inst["id"]}: label '
        "perceived_severity='LOUD' is not one of CRITICAL, MAJOR, MINOR, "
        'WARNING, INDETERMINATE, CLEARED',
    ]


def test_an_unknown_pod_raises_an_alarm_of_the_instance(fm):
    inst = instance_with_vnfcs()

    post(fm, alert(inst['id'], pod='elsewhere'))

    [row] = alarm_db.alarm_list()
    assert row['vnfc_instance_ids'] is None
    assert row['root_cause_faulty_resource'] is None


def test_vnfc_by_vnfc_info_id(fm):
    inst = instance_with_vnfcs()

    post(fm, alert(inst['id'], pod=None, vnfc_info_id='info-b'))

    [row] = alarm_db.alarm_list()
    assert row['vnfc_instance_ids'] == ['info-b']


@pytest.mark.parametrize(
    'headers',
    [
        {},
        {'Authorization': 'Bearer wrong'},
        {'Authorization': f'Basic {TOKEN}'},
        basic('am', TOKEN),
    ],
)
def test_without_the_token_nothing_is_recorded(fm, headers):
    inst = instance_with_vnfcs()

    resp = post(fm, alert(inst['id']), headers=headers)

    assert resp.status_int == 401
    assert resp.content_type == 'application/problem+json'
    assert TOKEN not in resp.text
    assert alarm_db.alarm_list() == []


def test_basic_authentication(client):
    CONF.set_override('receiver_username', 'am', group='fault_management')
    CONF.set_override('receiver_password', 'pw', group='fault_management')
    try:
        inst = instance_with_vnfcs()
        wrong = post(client, alert(inst['id']), headers=basic('am', 'no'))
        right = post(client, alert(inst['id']), headers=basic('am', 'pw'))
    finally:
        CONF.clear_override('receiver_username', group='fault_management')
        CONF.clear_override('receiver_password', group='fault_management')

    assert wrong.status_int == 401
    assert right.status_int == 200
    assert len(alarm_db.alarm_list()) == 1


def test_unconfigured_receiver_refuses_everything(client):
    inst = instance_with_vnfcs()

    resp = post(client, alert(inst['id']))

    assert resp.status_int == 401
    assert 'receiver_token' in json_of(resp)['detail']


def test_too_many_alerts_change_nothing(fm):
    CONF.set_override('max_alerts_per_post', 3, group='fault_management')
    try:
        inst = instance_with_vnfcs()
        resp = post(
            fm, *(alert(inst['id'], fingerprint=str(i)) for i in range(4))
        )
    finally:
        CONF.clear_override('max_alerts_per_post', group='fault_management')

    assert resp.status_int == 413
    assert alarm_db.alarm_list() == []


def test_a_body_over_the_limit_is_refused(fm):
    CONF.set_override('max_request_body_size', 2000, group='api')
    try:
        inst = instance_with_vnfcs()
        resp = post(
            fm, *(alert(inst['id'], fingerprint=str(i)) for i in range(10))
        )
    finally:
        CONF.clear_override('max_request_body_size', group='api')

    assert resp.status_int == 413
    assert alarm_db.alarm_list() == []


def test_a_malformed_payload_is_a_400(fm):
    resp = fm.request(
        'POST', '/alert', {'alerts': [{'status': 'on fire'}]}, headers=BEARER
    )

    assert resp.status_int == 400
    assert alarm_db.alarm_list() == []


def test_no_subscription_no_notification(fm):
    inst = instance_with_vnfcs()

    post(fm, alert(inst['id']))

    assert outbox.notification_list() == []


def test_one_post_raising_and_clearing_an_alert(fm):
    inst = instance_with_vnfcs()

    answer = json_of(
        post(
            fm,
            alert(inst['id']),
            alert(inst['id']),
            alert(inst['id'], status='resolved'),
        )
    )

    assert (answer['raised'], answer['unchanged'], answer['cleared']) == (
        1,
        1,
        1,
    )
    [row] = alarm_db.alarm_list()
    assert row['perceived_severity'] == 'CLEARED'
