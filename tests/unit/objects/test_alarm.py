"""The FmNotificationsFilter (SOL003 v3.3.1 7.5.3.2) and the ETag of an
alarm."""

from __future__ import annotations

import datetime

import pytest

from vnfm.objects import alarm

T0 = datetime.datetime(2030, 1, 1)
INSTANCE = {'id': 'i1', 'vnfd_id': 'vnfd-1'}
ALARM = {
    'id': 'a1',
    'vnf_instance_id': 'i1',
    'root_cause_faulty_resource': {'faultyResourceType': 'COMPUTE'},
    'alarm_raised_time': T0,
    'ack_state': 'UNACKNOWLEDGED',
    'perceived_severity': 'MAJOR',
    'event_time': T0,
    'event_type': 'EQUIPMENT_ALARM',
    'probable_cause': 'down',
    'is_root_cause': False,
}


@pytest.mark.parametrize(
    ('flt', 'selected'),
    [
        (None, True),
        ({'perceivedSeverities': ['MAJOR', 'CRITICAL']}, True),
        ({'perceivedSeverities': ['MINOR']}, False),
        ({'eventTypes': ['QOS_ALARM']}, False),
        ({'faultyResourceTypes': ['COMPUTE']}, True),
        ({'faultyResourceTypes': ['STORAGE']}, False),
        ({'probableCauses': ['down']}, True),
        ({'notificationTypes': ['AlarmClearedNotification']}, False),
        ({'vnfInstanceSubscriptionFilter': {'vnfdIds': ['vnfd-2']}}, False),
        ({'vnfInstanceSubscriptionFilter': {'vnfInstanceIds': ['i1']}}, True),
    ],
)
def test_filter(flt, selected):
    assert alarm.matches(flt, alarm.ALARM, INSTANCE, ALARM) is selected


def test_list_rebuilt_ignores_alarm_attributes():
    flt = {'perceivedSeverities': ['MINOR']}

    assert alarm.matches(flt, alarm.ALARM_LIST_REBUILT, INSTANCE, None)


def test_etag_follows_the_alarm():
    acked = dict(ALARM, ack_state='ACKNOWLEDGED')

    assert alarm.etag(ALARM) == alarm.etag(dict(ALARM))
    assert alarm.etag(ALARM) != alarm.etag(acked)
