"""VNF package notifications: filter matching, visibility, payloads checked
against ETSI's SOL005 document, and the outbox rows of onboarding,
operational state changes and deletion."""

from __future__ import annotations

import datetime
import functools

import jsonschema
import pytest

from tests.integration import etsi_documents
from vnfm.common import exceptions
from vnfm.db import api as db
from vnfm.db import outbox
from vnfm.db import registry
from vnfm.objects import package_notifications as pn

NOW = datetime.datetime(2030, 1, 2, 3, 4, 5)
PACKAGE = {
    'id': 'pkg-1',
    'vnfd_id': 'vnfd-a',
    'vnf_provider': 'Acme',
    'vnf_product_name': 'Router',
    'vnf_software_version': '1.0',
    'vnfd_version': '2.0',
    'operational_state': 'DISABLED',
    'usage_state': 'NOT_IN_USE',
    'project_id': 'p1',
}
SUB = {'id': 'sub-1', 'project_id': None}
_NOTIFY = '/URI_is_provided_by_the_client_when_creating_the_subscription-'


@functools.cache
def _document() -> dict:
    return etsi_documents.load(
        etsi_documents.PKG_DOC,
        [
            f
            for f in etsi_documents.PKG_FIXES
            if f[1] is not etsi_documents.notification_endpoints
        ],
    )


def notification_schema(notification_type: str) -> dict:
    """The body SOL005 (V2.4.1, TST010) gives a notification type."""
    op = _document()['paths'][_NOTIFY + notification_type]['post']
    [body] = [p for p in op['parameters'] if p['in'] == 'body']
    return body['schema']


def subscription_schema() -> dict:
    """PkgmSubscription, as GET /subscriptions/{id} answers it."""
    get = _document()['paths']['/subscriptions/{subscriptionId}']['get']
    return get['responses']['200']['schema']


def assert_sol(payload: dict) -> None:
    """``payload`` is valid against its SOL005 notification body."""
    validator = jsonschema.Draft4Validator(
        notification_schema(payload['notificationType'])
    )
    errors = [
        f'{list(e.absolute_path)}: {e.message}'
        for e in validator.iter_errors(payload)
    ]
    assert errors == []


# -- filters -----------------------------------------------------------------

PROVIDERS = [
    {'vnfProvider': 'Other'},
    {
        'vnfProvider': 'Acme',
        'vnfProducts': [
            {
                'vnfProductName': 'Router',
                'versions': [
                    {'vnfSoftwareVersion': '1.0', 'vnfdVersions': ['2.0']}
                ],
            }
        ],
    },
]


@pytest.mark.parametrize(
    'filter_,selected',
    [
        (None, True),
        ({}, True),
        ({'notificationTypes': [pn.CHANGE]}, True),
        ({'notificationTypes': [pn.ONBOARDING]}, False),
        ({'vnfdId': ['x', 'vnfd-a']}, True),
        ({'vnfdId': ['x']}, False),
        ({'vnfPkgId': ['pkg-1']}, True),
        ({'vnfPkgId': ['pkg-2']}, False),
        ({'operationalState': ['DISABLED']}, True),
        ({'operationalState': ['ENABLED']}, False),
        ({'usageState': ['NOT_IN_USE']}, True),
        ({'usageState': ['IN_USE']}, False),
        ({'vnfProductsFromProviders': PROVIDERS}, True),
        (
            {
                'vnfProductsFromProviders': [
                    {
                        'vnfProvider': 'Acme',
                        'vnfProducts': [{'vnfProductName': 'Switch'}],
                    }
                ]
            },
            False,
        ),
        # Every attribute must match (logical "and").
        ({'vnfdId': ['vnfd-a'], 'operationalState': ['ENABLED']}, False),
    ],
)
def test_filter_of_change_notification(filter_, selected):
    assert pn.matches(filter_, pn.CHANGE, PACKAGE) is selected


def test_subscription_sees_its_project_and_packages_of_none():
    assert pn.visible({'project_id': None}, PACKAGE)
    assert pn.visible({'project_id': 'p1'}, PACKAGE)
    assert not pn.visible({'project_id': 'p2'}, PACKAGE)
    assert pn.visible({'project_id': 'p2'}, dict(PACKAGE, project_id=None))


# -- payloads ----------------------------------------------------------------


def test_onboarding_notification(conf):
    conf('public_endpoint', 'https://vnfm.example.com/', 'api')
    payload = pn.payload(pn.ONBOARDING, SUB, PACKAGE, 'nid', NOW)

    assert_sol(payload)
    assert payload == {
        'id': 'nid',
        'notificationType': 'VnfPackageOnboardingNotification',
        'subscriptionId': 'sub-1',
        'timeStamp': '2030-01-02T03:04:05.000000Z',
        'vnfPkgId': 'pkg-1',
        'vnfdId': 'vnfd-a',
        '_links': {
            'vnfPackage': {
                'href': 'https://vnfm.example.com/vnfpkgm/v1/vnf_packages/'
                'pkg-1'
            },
            'subscription': {
                'href': 'https://vnfm.example.com/vnfpkgm/v1/subscriptions/'
                'sub-1'
            },
        },
    }


def test_change_notifications():
    state = pn.payload(pn.CHANGE, SUB, PACKAGE, 'nid', NOW, pn.OP_STATE_CHANGE)
    deleted = pn.payload(pn.CHANGE, SUB, PACKAGE, 'nid', NOW, pn.PKG_DELETE)

    for payload in (state, deleted):
        assert_sol(payload)
    assert (state['changeType'], state['operationalState']) == (
        'OP_STATE_CHANGE',
        'DISABLED',
    )
    assert deleted['changeType'] == 'PKG_DELETE'
    assert 'operationalState' not in deleted


def test_the_schema_check_can_fail():
    payload = pn.payload(pn.CHANGE, SUB, PACKAGE, 'nid', NOW, 'RENAMED')
    with pytest.raises(AssertionError):
        assert_sol(payload)


# -- outbox rows -------------------------------------------------------------


def _subscribe(interface: str = registry.VNFPKGM, **values: object) -> dict:
    return registry.subscription_create(
        dict(
            {
                'callback_uri': 'http://127.0.0.1:1/cb',
                'api_version': '1',
                'interface': interface,
            },
            **values,
        )
    )


def test_rows_go_to_matching_package_subscriptions_only(db_url):
    everything = _subscribe()
    other_vnfd = _subscribe(filter={'vnfdId': ['another']})
    onboarding_only = _subscribe(filter={'notificationTypes': [pn.ONBOARDING]})
    other_project = _subscribe(project_id='p2')
    lcm = _subscribe(registry.VNFLCM)

    rows = pn.for_change(PACKAGE, pn.OP_STATE_CHANGE)

    assert [r['subscription_id'] for r in rows] == [everything['id']]
    [row] = rows
    assert row['notification_type'] == pn.CHANGE
    assert row['payload']['subscriptionId'] == everything['id']
    assert_sol(row['payload'])
    assert (
        pn.for_onboarding(PACKAGE)[1]['subscription_id']
        == (onboarding_only['id'])
    )
    assert {other_vnfd['id'], other_project['id'], lcm['id']}.isdisjoint(
        r['subscription_id'] for r in pn.for_onboarding(PACKAGE)
    )


def test_one_id_per_event_whatever_the_subscriptions(db_url):
    _subscribe()
    _subscribe(project_id='p1')

    rows = pn.for_change(PACKAGE, pn.PKG_DELETE)

    assert len(rows) == 2 and rows[0]['id'] == rows[1]['id']


def test_rows_are_committed_with_the_change_or_not_at_all(db_url):
    sub = _subscribe()
    pkg = db.package_create(
        {
            'onboarding_state': 'ONBOARDED',
            'operational_state': 'ENABLED',
            'usage_state': 'NOT_IN_USE',
            'vnfd_id': 'vnfd-a',
        }
    )
    values = {'operational_state': 'DISABLED'}
    notes = pn.for_change({**pkg, **values}, pn.OP_STATE_CHANGE)

    with pytest.raises(exceptions.Conflict, match='changed meanwhile'):
        db.package_update(
            pkg['id'],
            values,
            {'operational_state': 'DISABLED'},
            notifications=notes,
        )
    assert outbox.notification_list() == []

    db.package_update(pkg['id'], values, notifications=notes)
    [row] = outbox.notification_list({'subscription_id': sub['id']})
    assert row['payload']['operationalState'] == 'DISABLED'
