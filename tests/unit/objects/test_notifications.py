"""LCM notifications: filter matching, START/RESULT, payload shapes checked
against ETSI's SOL003 schema, and the outbox rows of each state change."""

from __future__ import annotations

import datetime
import functools
import pathlib

import jsonschema
import pytest
import yaml
from referencing import Registry
from referencing import Resource
from referencing.jsonschema import DRAFT7

from vnfm.db import api as db
from vnfm.db import outbox
from vnfm.db import registry
from vnfm.objects import notifications as n

from ..lcm.fixtures import instantiate_params
from ..lcm.fixtures import make_flaky_lcm
from ..lcm.fixtures import make_lcm
from ..lcm.fixtures import new_instance
from ..lcm.fixtures import new_op
from ..lcm.fixtures import onboarded_package
from ..lcm.fixtures import user_rolls_back

SOL003 = (
    pathlib.Path(__file__).resolve().parents[2]
    / 'etsi_openapi/etsi-forge-harvest-v3.7.1/nfv-sol002-sol003/SOL003'
)
NOTIFICATION_DEFS = (
    SOL003
    / 'VNFLifecycleManagementNotification'
    / 'definitions'
    / 'SOL003VNFLifecycleManagementNotification_def.yaml'
)
NOW = datetime.datetime(2030, 1, 2, 3, 4, 5)
INSTANCE = {
    'id': 'inst-1',
    'vnf_instance_name': 'vnf1',
    'vnfd_id': 'vnfd-a',
    'vnf_provider': 'Acme',
    'vnf_product_name': 'Router',
    'vnf_software_version': '1.0',
    'vnfd_version': '2.0',
    'project_id': 'p1',
}
OP = {
    'id': 'op-1',
    'vnf_instance_id': 'inst-1',
    'operation': 'INSTANTIATE',
    'operation_state': 'COMPLETED',
    'is_automatic_invocation': False,
    'error': {'status': 500, 'detail': 'earlier failure'},
    'resource_changes': {
        'affectedVnfcs': [
            {
                'id': 'vnfc-1',
                'vduId': 'VDU1',
                'changeType': 'ADDED',
                'computeResource': {'resourceId': 'pod-1'},
            }
        ]
    },
    'changed_info': {
        'vnfInstanceName': 'new',
        'vimConnectionInfo': {
            'vim1': {'vimType': 'X', 'accessInfo': {'password': 'pw'}}
        },
    },
}
SUB = {
    'id': 'sub-1',
    'verbosity': 'FULL',
    'api_version': '2',
    'project_id': None,
}


@functools.cache
def _validator(definition: str) -> jsonschema.Draft7Validator:
    def retrieve(uri: str) -> Resource:
        path = pathlib.Path(uri.removeprefix('file://'))
        return Resource.from_contents(
            yaml.safe_load(path.read_text()), default_specification=DRAFT7
        )

    ref = f'{NOTIFICATION_DEFS.as_uri()}#/definitions/{definition}'
    return jsonschema.Draft7Validator(
        {'$ref': ref}, registry=Registry(retrieve=retrieve)
    )


def assert_sol(payload: dict) -> None:
    """``payload`` is valid against its SOL003 notification definition."""
    errors = [
        f'{list(e.absolute_path)}: {e.message}'
        for e in _validator(payload['notificationType']).iter_errors(payload)
    ]
    assert errors == []


# -- START or RESULT ---------------------------------------------------------


@pytest.mark.parametrize(
    'state,status',
    [
        ('STARTING', 'START'),
        ('PROCESSING', 'START'),
        ('ROLLING_BACK', 'START'),
        ('COMPLETED', 'RESULT'),
        ('FAILED_TEMP', 'RESULT'),
        ('FAILED', 'RESULT'),
        ('ROLLED_BACK', 'RESULT'),
    ],
)
def test_status_of_each_state(state, status):
    assert n.status_of(state) == status


# -- filters -----------------------------------------------------------------


@pytest.mark.parametrize(
    'filter_,selected',
    [
        (None, True),
        ({}, True),
        (
            {'vnfInstanceSubscriptionFilter': {'vnfdIds': ['vnfd-a', 'x']}},
            True,
        ),
        ({'vnfInstanceSubscriptionFilter': {'vnfdIds': ['x']}}, False),
        (
            {'vnfInstanceSubscriptionFilter': {'vnfInstanceIds': ['inst-1']}},
            True,
        ),
        (
            {'vnfInstanceSubscriptionFilter': {'vnfInstanceNames': ['other']}},
            False,
        ),
        (
            {
                'vnfInstanceSubscriptionFilter': {
                    'vnfProductsFromProviders': [
                        {'vnfProvider': 'Other'},
                        {
                            'vnfProvider': 'Acme',
                            'vnfProducts': [
                                {
                                    'vnfProductName': 'Router',
                                    'versions': [
                                        {
                                            'vnfSoftwareVersion': '1.0',
                                            'vnfdVersions': ['1.0', '2.0'],
                                        }
                                    ],
                                }
                            ],
                        },
                    ]
                }
            },
            True,
        ),
        (
            {
                'vnfInstanceSubscriptionFilter': {
                    'vnfProductsFromProviders': [
                        {
                            'vnfProvider': 'Acme',
                            'vnfProducts': [
                                {
                                    'vnfProductName': 'Router',
                                    'versions': [
                                        {
                                            'vnfSoftwareVersion': '1.0',
                                            'vnfdVersions': ['1.0'],
                                        }
                                    ],
                                }
                            ],
                        }
                    ]
                }
            },
            False,
        ),
        (
            {
                'vnfInstanceSubscriptionFilter': {
                    'vnfProductsFromProviders': [
                        {
                            'vnfProvider': 'Acme',
                            'vnfProducts': [{'vnfProductName': 'Switch'}],
                        }
                    ]
                }
            },
            False,
        ),
        ({'notificationTypes': [n.CREATION]}, False),
        (
            {
                'notificationTypes': [n.OP_OCC],
                'operationTypes': ['INSTANTIATE'],
                'operationStates': ['COMPLETED', 'FAILED'],
            },
            True,
        ),
        ({'operationTypes': ['TERMINATE']}, False),
        ({'operationStates': ['STARTING']}, False),
        # Every attribute must match (logical "and").
        (
            {
                'vnfInstanceSubscriptionFilter': {
                    'vnfdIds': ['vnfd-a'],
                    'vnfInstanceNames': ['other'],
                }
            },
            False,
        ),
    ],
)
def test_filter_of_op_notification(filter_, selected):
    assert (
        n.matches(filter_, n.OP_OCC, INSTANCE, 'INSTANTIATE', 'COMPLETED')
        is selected
    )


def test_operation_filters_do_not_apply_to_identifier_notifications():
    filter_ = {'operationTypes': ['TERMINATE'], 'operationStates': ['FAILED']}
    assert n.matches(filter_, n.CREATION, INSTANCE)
    assert not n.matches(
        {'notificationTypes': [n.OP_OCC]}, n.DELETION, INSTANCE
    )


def test_subscription_sees_its_project_only():
    assert n.visible({'project_id': None}, INSTANCE)
    assert n.visible({'project_id': 'p1'}, INSTANCE)
    assert not n.visible({'project_id': 'p2'}, INSTANCE)


# -- payloads ----------------------------------------------------------------


def test_result_full_carries_changes_masked_and_error(conf):
    conf('public_endpoint', 'https://vnfm.example.com/', 'api')
    payload = n.op_notification(
        SUB, dict(OP, operation_state='ROLLED_BACK'), 'nid', NOW
    )
    assert_sol(payload)
    assert payload['notificationStatus'] == 'RESULT'
    assert payload['timeStamp'] == '2030-01-02T03:04:05.000000Z'
    assert payload['affectedVnfcs'][0]['id'] == 'vnfc-1'
    assert payload['changedInfo']['vimConnectionInfo']['vim1'][
        'accessInfo'
    ] == {'password': '********'}
    assert payload['error'] == OP['error']
    assert payload['_links'] == {
        'vnfInstance': {
            'href': 'https://vnfm.example.com/vnflcm/v2/vnf_instances/inst-1'
        },
        'subscription': {
            'href': 'https://vnfm.example.com/vnflcm/v2/subscriptions/sub-1'
        },
        'vnfLcmOpOcc': {
            'href': 'https://vnfm.example.com/vnflcm/v2/vnf_lcm_op_occs/op-1'
        },
    }


def test_result_short_and_start_carry_no_changes():
    short = n.op_notification(dict(SUB, verbosity='SHORT'), OP, 'nid', NOW)
    start = n.op_notification(
        SUB, dict(OP, operation_state='PROCESSING'), 'nid', NOW
    )
    for payload in (short, start):
        assert_sol(payload)
        assert not {'affectedVnfcs', 'changedInfo'} & set(payload)
    assert short['verbosity'] == 'SHORT'
    # The error is reported in FAILED_TEMP, FAILED, ROLLED_BACK only.
    assert 'error' not in start and 'error' not in short


def test_v1_subscription_gets_the_v1_form():
    payload = n.op_notification(dict(SUB, api_version='1'), OP, 'nid', NOW)
    assert 'verbosity' not in payload
    assert (
        '/vnflcm/v1/vnf_lcm_op_occs/op-1'
        in (payload['_links']['vnfLcmOpOcc']['href'])
    )
    [vim] = payload['changedInfo']['vimConnectionInfo']  # a list in v1
    assert vim['id'] == 'vim1' and vim['accessInfo'] == {
        'password': '********'
    }


@pytest.mark.parametrize('kind', [n.CREATION, n.DELETION])
def test_identifier_notifications(kind):
    payload = n.identifier_notification(kind, SUB, 'inst-1', 'nid', NOW)
    assert_sol(payload)
    assert payload['vnfInstanceId'] == 'inst-1'


# -- outbox rows of real state changes ---------------------------------------


def _subscribe(**values: object) -> dict:
    return registry.subscription_create(
        dict(
            {
                'callback_uri': 'http://127.0.0.1:1/cb',
                'verbosity': 'FULL',
                'api_version': '2',
            },
            **values,
        )
    )


def _sent(subscription: dict) -> list[tuple[str, str]]:
    return [
        (r['payload']['operationState'], r['payload']['notificationStatus'])
        for r in outbox.notification_list(
            {
                'subscription_id': subscription['id'],
                'notification_type': n.OP_OCC,
            }
        )
    ]


def test_no_subscription_no_rows(db_url, hook_record):
    inst = new_instance(onboarded_package())
    op = new_op(inst, 'INSTANTIATE', instantiate_params())
    assert n.for_op(op) == []


def test_instantiate_reports_processing_then_completed(db_url, hook_record):
    everything = _subscribe()
    results_only = _subscribe(filter={'operationStates': ['COMPLETED']})
    other_vnfd = _subscribe(
        filter={'vnfInstanceSubscriptionFilter': {'vnfdIds': ['another']}}
    )
    inst = new_instance(onboarded_package())
    op = new_op(inst, 'INSTANTIATE', instantiate_params())

    make_lcm()[0].start(op['id'])

    assert _sent(everything) == [
        ('PROCESSING', 'START'),
        ('COMPLETED', 'RESULT'),
    ]
    assert _sent(results_only) == [('COMPLETED', 'RESULT')]
    assert _sent(other_vnfd) == []
    result = outbox.notification_list({'subscription_id': everything['id']})[
        -1
    ]['payload']
    assert_sol(result)
    assert result['vnfLcmOpOccId'] == op['id']
    assert result['affectedVnfcs']
    # One id per event, whatever the number of subscriptions.
    assert (
        result['id']
        == outbox.notification_list({'subscription_id': results_only['id']})[
            0
        ]['id']
    )


def test_failure_and_rollback_are_reported(db_url, hook_record):
    sub = _subscribe()
    inst = new_instance(onboarded_package())
    op = new_op(inst, 'INSTANTIATE', instantiate_params())
    lcm = make_flaky_lcm('instantiate_end')[0]

    lcm.start(op['id'])
    user_rolls_back(op['id'])  # the API's own write is tested elsewhere
    lcm.start(op['id'])

    assert _sent(sub) == [
        ('PROCESSING', 'START'),
        ('FAILED_TEMP', 'RESULT'),
        ('ROLLED_BACK', 'RESULT'),
    ]
    failed = outbox.notification_list({'subscription_id': sub['id']})[1]
    assert failed['payload']['error']['detail'].startswith('instantiate_end')


def test_lost_claim_writes_nothing(db_url, hook_record):
    sub = _subscribe()
    inst = new_instance(onboarded_package())
    op = new_op(inst, 'INSTANTIATE', instantiate_params())
    db.op_update(op['id'], {'owner': 'c2'})  # another conductor has it

    assert make_lcm()[0].claim(op) is None
    assert _sent(sub) == []


def test_subscription_of_another_project_hears_nothing(db_url, hook_record):
    sub = _subscribe(project_id='p2')
    inst = new_instance(onboarded_package(), project_id='p1')
    op = new_op(inst, 'INSTANTIATE', instantiate_params(), project_id='p1')

    make_lcm()[0].start(op['id'])

    assert _sent(sub) == []


def test_reaped_op_is_reported(db_url):
    from vnfm.conductor import periodic

    sub = _subscribe()
    inst = new_instance(onboarded_package())
    op = new_op(inst, 'INSTANTIATE', instantiate_params())
    db.op_update(
        op['id'],
        {
            'operation_state': 'PROCESSING',
            'owner': 'gone',
            'lease_expires_at': NOW,
        },
    )

    assert periodic.reap(NOW + datetime.timedelta(seconds=1)) == [op['id']]

    assert _sent(sub) == [('FAILED_TEMP', 'RESULT')]
    payload = outbox.notification_list()[0]['payload']
    assert payload['error']['title'] == 'Conductor Lost'
    assert_sol(payload)


@pytest.mark.parametrize(
    'host_ip,expected',
    [
        ('127.0.0.1', 'http://127.0.0.1:9890'),
        ('0.0.0.0', 'http://vnfm1.example.com:9890'),
        ('::', 'http://vnfm1.example.com:9890'),
        ('fd00::1', 'http://[fd00::1]:9890'),
    ],
)
def test_links_name_the_api_when_no_public_endpoint(conf, host_ip, expected):
    conf('host', 'vnfm1.example.com')
    conf('host_ip', host_ip, 'api')
    conf('port', 9890, 'api')
    assert n.endpoint() == expected
