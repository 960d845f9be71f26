"""Alarms on SQLite, PostgreSQL and MariaDB: one alarm per alert however
often and however concurrently it is recorded, with its notifications in
the same transaction."""

from __future__ import annotations

import datetime
import threading

from vnfm.db import alarms
from vnfm.db import api
from vnfm.db import outbox
from vnfm.db import registry

T0 = datetime.datetime(2030, 1, 1, 12, 0, 0)


def _instance() -> dict:
    return api.instance_create(
        {
            'vnfd_id': 'vnfd-1',
            'vnf_provider': 'p',
            'vnf_product_name': 'n',
            'vnf_software_version': '1.0',
            'vnfd_version': '1.0',
            'instantiation_state': 'INSTANTIATED',
            'api_version': '2',
        }
    )


def _change(instance_id: str, cleared: bool = False, **values) -> object:
    return alarms.AlertChange(
        fingerprint='fp',
        starts_at=T0,
        values={
            'id': api.new_id(),
            'vnf_instance_id': instance_id,
            'alarm_raised_time': T0,
            'alarm_changed_time': T0,
            'ack_state': 'UNACKNOWLEDGED',
            'perceived_severity': 'MAJOR',
            'event_time': T0,
            'event_type': 'EQUIPMENT_ALARM',
            'probable_cause': 'down',
            'is_root_cause': False,
            **values,
        },
        cleared_at=T0 if cleared else None,
    )


def _notify(subscription: dict):
    def notify(event: str, row: dict) -> list[dict]:
        return [
            {
                'id': api.new_id(),
                'subscription_id': subscription['id'],
                'notification_type': event,
                'payload': {'alarm': row['id']},
            }
        ]

    return notify


def test_concurrent_records_of_one_alert_raise_one_alarm(db_backend):
    instance = _instance()
    subscription = registry.subscription_create(
        {
            'callback_uri': 'http://127.0.0.1/cb',
            'api_version': '1',
            'interface': registry.VNFFM,
        }
    )
    start = threading.Barrier(4)
    events: list = []

    def record() -> None:
        start.wait()
        events.extend(
            alarms.record_alerts(
                [_change(instance['id'])], _notify(subscription)
            )
        )

    threads = [threading.Thread(target=record) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)

    assert sorted(e for e, _ in events if e) == ['RAISED']
    assert len(alarms.alarm_list()) == 1
    notes = outbox.notification_list()
    assert [n['notification_type'] for n in notes] == ['RAISED']


def test_clear_then_change_is_ignored(db_backend):
    instance = _instance()
    notify = _notify(
        registry.subscription_create(
            {
                'callback_uri': 'http://127.0.0.1/cb',
                'api_version': '1',
                'interface': registry.VNFFM,
            }
        )
    )
    alarms.record_alerts([_change(instance['id'])], notify)

    cleared = alarms.record_alerts(
        [_change(instance['id'], cleared=True)], notify
    )
    later = alarms.record_alerts(
        [_change(instance['id'], perceived_severity='CRITICAL')], notify
    )

    assert [e for e, _ in cleared] == ['CLEARED']
    assert [e for e, _ in later] == [None]
    [row] = alarms.alarm_list()
    assert row['perceived_severity'] == 'CLEARED'
    assert row['alarm_cleared_time'] == T0


def test_alarms_go_with_their_instance(db_backend):
    instance = _instance()
    alarms.record_alerts([_change(instance['id'])], lambda e, r: [])

    api.instance_update(
        instance['id'], {'instantiation_state': 'NOT_INSTANTIATED'}
    )
    api.instance_delete(instance['id'])

    assert alarms.alarm_list() == []
