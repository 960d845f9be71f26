"""LCM notifications end to end: a subscription made with the real client
(``openstack vnflcm subsc create``; vnfm-api has a conductor test the
callbackUri over RabbitMQ first), vnfm-api and two conductors on
RabbitMQ and PostgreSQL, and an HTTP receiver on 127.0.0.1.

Each test's subscription selects only its own instance (by a unique name)
and is deleted afterwards, so the other tests' operations send nothing to
a receiver that is gone.
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.conductor import receiver as receivers
from vnfm.db import outbox
from vnfm_testbed import db as testing_db
from vnfm_testbed.client import ClientError

pytestmark = pytest.mark.timeout(180)

USER, PASSWORD = 'nfvo', 'notif-pa55'

receiver = receivers.receiver  # the fixture


@pytest.fixture
def subscribe(client, receiver, tmp_path: Path) -> Iterator:
    """Subscribe ``receiver`` (BASIC auth) to the instance named ``name``
    with the real client; the subscriptions are deleted afterwards."""
    made: list[str] = []

    def make(name: str) -> dict:
        body = {
            'callbackUri': receiver.url,
            'filter': {
                'vnfInstanceSubscriptionFilter': {'vnfInstanceNames': [name]}
            },
            'authentication': {
                'authType': ['BASIC'],
                'paramsBasic': {'userName': USER, 'password': PASSWORD},
            },
        }
        path = tmp_path / f'subsc-{name}.json'
        path.write_text(json.dumps(body))
        sub = client.lcm_json('subsc', 'create', str(path))
        made.append(sub['ID'])
        return sub

    receiver.required_auth = (
        'Basic ' + base64.b64encode(f'{USER}:{PASSWORD}'.encode()).decode()
    )
    yield make
    for sub_id in made:
        client.lcm('subsc', 'delete', sub_id)
    assert PASSWORD not in client.printed()


def test_callback_tested_before_creation(
    api, client, receiver, subscribe, tmp_path: Path
) -> None:
    name = f'notif-{uuid.uuid4().hex[:8]}'
    sub = subscribe(name)

    # The conductor's GET carried the subscription's credentials.
    assert [t['headers']['Authorization'] for t in receiver.tests] == [
        receiver.required_auth
    ]
    assert api.ok('GET', f'/subscriptions/{sub["ID"]}', 200)

    receiver.test_statuses = [404]
    path = tmp_path / 'refused.json'
    path.write_text(
        json.dumps(
            {
                'callbackUri': receiver.url + '?token=hidden',
                'authentication': {
                    'authType': ['BASIC'],
                    'paramsBasic': {'userName': USER, 'password': PASSWORD},
                },
            }
        )
    )
    with pytest.raises(ClientError) as e:
        client.lcm('subsc', 'create', str(path))

    assert f'GET {receiver.url} did not answer 204' in e.value.output
    assert '404' not in e.value.output.replace(receiver.url, '')
    assert 'hidden' not in e.value.output
    listed = api.ok('GET', '/subscriptions', 200).json()
    assert not [s for s in listed if 'hidden' in s['callbackUri']]


def _summary(received: list[dict]) -> list[tuple]:
    return [
        (
            r['body']['notificationType'].removeprefix('Vnf'),
            r['body'].get('operationState'),
            r['body'].get('notificationStatus'),
        )
        for r in received
    ]


EXPECTED = [
    ('IdentifierCreationNotification', None, None),
    ('LcmOperationOccurrenceNotification', 'STARTING', 'START'),
    ('LcmOperationOccurrenceNotification', 'PROCESSING', 'START'),
    ('LcmOperationOccurrenceNotification', 'COMPLETED', 'RESULT'),
]


def _instantiate(api, name: str) -> tuple[str, str]:
    inst_id = api.create_instance(api.V1_VNFD_ID, name=name)
    op_id = api.start(inst_id, 'instantiate', api.instantiate_request())
    api.wait_op(op_id, 'COMPLETED')
    return inst_id, op_id


def test_instantiate_is_notified_in_order(
    api, services, pkg_v1, receiver, subscribe
) -> None:
    name = f'notif-{uuid.uuid4().hex[:8]}'
    sub = subscribe(name)

    inst_id, op_id = _instantiate(api, name)

    got = receiver.wait(4, timeout=30)
    assert _summary(got) == EXPECTED
    bodies = [r['body'] for r in got]
    assert {b['subscriptionId'] for b in bodies} == {sub['ID']}
    assert {b['vnfInstanceId'] for b in bodies} == {inst_id}
    assert {b['vnfLcmOpOccId'] for b in bodies[1:]} == {op_id}
    result = bodies[-1]
    assert result['verbosity'] == 'FULL' and result['affectedVnfcs']
    lcm = f'{services.api_url}/vnflcm/v2'
    assert result['_links'] == {
        'vnfInstance': {'href': f'{lcm}/vnf_instances/{inst_id}'},
        'subscription': {'href': f'{lcm}/subscriptions/{sub["ID"]}'},
        'vnfLcmOpOcc': {'href': f'{lcm}/vnf_lcm_op_occs/{op_id}'},
    }
    assert got[0]['headers']['Version'] == '2.0.0'
    # The instance's secret never travels in a notification.
    assert api.SECRET not in json.dumps(bodies)


def test_receiver_down_for_a_while(
    api, services, pkg_v1, receiver, subscribe
) -> None:
    name = f'notif-{uuid.uuid4().hex[:8]}'
    sub = subscribe(name)
    receiver.stop()

    _instantiate(api, name)

    def failed_attempts() -> list[dict]:
        rows = outbox.notification_list({'subscription_id': sub['ID']})
        return [r for r in rows if r['attempts'] >= 1] if rows else []

    with testing_db.use_database(services.db_url):
        first = api.wait_for(failed_attempts, 30, 'a failed delivery attempt')
    assert (
        'failed: connection refused (ConnectionError)'
        in first[0]['last_error']
    )
    assert receiver.received == []

    receiver.start()  # same port: the callbackUri works again

    got = receiver.wait(4, timeout=60)
    assert _summary(got) == EXPECTED
