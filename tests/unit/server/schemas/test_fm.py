"""FmSubscriptionRequest and AlarmModifications (SOL003 v3.3.1 7.5.2): what
an FM subscription may filter on, and the one change an alarm takes."""

from __future__ import annotations

import pytest

from vnfm.common import schemacheck
from vnfm.server.schemas import fm

URI = 'https://198.18.0.1/callback'


def subscription_error(body: dict) -> str | None:
    return schemacheck.first_error(fm.SUBSCRIPTION_CREATE, body)


def modify_error(body: dict) -> str | None:
    return schemacheck.first_error(fm.ALARM_MODIFY, body)


def test_a_callback_uri_is_all_a_subscription_needs():
    assert subscription_error({'callbackUri': URI}) is None
    assert subscription_error({}) == 'callbackUri: is a required property'


def test_a_full_fm_filter_is_taken():
    body = {
        'callbackUri': URI,
        'filter': {
            'vnfInstanceSubscriptionFilter': {'vnfdIds': ['vnfd-1']},
            'notificationTypes': [
                'AlarmNotification',
                'AlarmClearedNotification',
            ],
            'faultyResourceTypes': ['COMPUTE'],
            'perceivedSeverities': ['CRITICAL', 'MAJOR'],
            'eventTypes': ['EQUIPMENT_ALARM'],
            'probableCauses': ['Process Terminated'],
        },
        'authentication': {
            'authType': ['BASIC'],
            'paramsBasic': {'userName': 'u', 'password': 'p'},
        },
    }
    assert subscription_error(body) is None


@pytest.mark.parametrize(
    ('attribute', 'value'),
    [
        ('notificationTypes', ['VnfLcmOperationOccurrenceNotification']),
        ('perceivedSeverities', ['BAD']),
        ('faultyResourceTypes', ['GPU']),
        ('eventTypes', ['ALARM']),
    ],
)
def test_a_value_outside_the_enumeration_names_the_attribute(attribute, value):
    error = subscription_error(
        {'callbackUri': URI, 'filter': {attribute: value}}
    )
    assert error is not None
    assert error.startswith(f'filter/{attribute}/0: ')
    assert 'is not one of' in error


@pytest.mark.parametrize('state', ['ACKNOWLEDGED', 'UNACKNOWLEDGED'])
def test_an_alarm_takes_either_ack_state(state):
    assert modify_error({'ackState': state}) is None


def test_an_alarm_takes_nothing_else():
    assert modify_error({}) == 'ackState: is a required property'
    assert modify_error({'ackState': 'CLEARED'}) == (
        "ackState: 'CLEARED' is not one of ['ACKNOWLEDGED', 'UNACKNOWLEDGED']"
    )
