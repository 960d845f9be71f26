"""/vnfpm/v2/thresholds: create, list, show, modify, delete PM thresholds
per project, and ThresholdCrossedNotification for crossings reported by
Alertmanager."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.unit.server.conftest import identity
from tests.unit.server.conftest import json_of
from tests.unit.server.fm_helpers import TOKEN
from tests.unit.server.fm_helpers import deliver
from tests.unit.server.fm_helpers import instance_with_vnfcs
from tests.unit.server.fm_helpers import post
from tests.unit.server.pm_helpers import crossing_alert
from tests.unit.server.pm_helpers import pm
from tests.unit.server.pm_helpers import threshold_body
from vnfm.conf import CONF
from vnfm.db import pm as pm_db
from vnfm.db import registry

_UNNAMED = {
    'performanceMetric': 'VCpuUsageMeanVnf',
    'thresholdType': 'SIMPLE',
    'simpleThresholdDetails': {'thresholdValue': 1, 'hysteresis': 0},
}


@pytest.fixture
def fm(client) -> Iterator:
    """The client, with the receiver's token configured."""
    CONF.set_override('receiver_token', TOKEN, group='fault_management')
    yield client
    CONF.clear_override('receiver_token', group='fault_management')


def _create(client, inst: dict, callback: str, **extra) -> dict:
    body = threshold_body(inst['id'], callback, **extra)
    resp = pm(client, 'POST', '/thresholds', body)
    assert resp.status_int == 201, resp.body
    return json_of(resp)


def test_create_show_list_patch_delete(client, receiver):
    inst = instance_with_vnfcs()

    created = _create(client, inst, receiver.url)
    path = f'/thresholds/{created["id"]}'
    shown = json_of(pm(client, 'GET', path))
    listed = json_of(pm(client, 'GET', '/thresholds'))
    patched = pm(
        client,
        'PATCH',
        path,
        {'callbackUri': receiver.url + '2'},
        content_type='application/merge-patch+json',
    )
    after = json_of(pm(client, 'GET', path))
    deleted = pm(client, 'DELETE', path)

    assert created['objectInstanceId'] == inst['id']
    assert created['criteria']['thresholdType'] == 'SIMPLE'
    assert created['_links']['object']['href'].endswith(inst['id'])
    assert shown == created
    assert [t['id'] for t in listed] == [created['id']]
    assert patched.status_int == 200, patched.body
    assert after['callbackUri'] == receiver.url + '2'
    assert deleted.status_int == 204
    assert pm(client, 'GET', path).status_int == 404
    assert registry.subscription_list() == []


@pytest.mark.parametrize(
    ('change', 'status', 'detail'),
    [
        (
            {'metadata': {'aspectId': 'nope'}},
            422,
            "metadata.aspectId 'nope' is not an aspect",
        ),
        ({'objectType': 'VnfIntCp'}, 400, 'not a measurement of objectType'),
        (
            {'objectInstanceId': 'other', 'criteria': _UNNAMED},
            422,
            'objectInstanceId other',
        ),
    ],
)
def test_bad_thresholds_are_refused_naming_why(
    client, receiver, change, status, detail
):
    inst = instance_with_vnfcs()
    body = {**threshold_body(inst['id'], receiver.url), **change}

    resp = pm(client, 'POST', '/thresholds', body)

    assert resp.status_int == status, resp.body
    assert detail in json_of(resp)['detail']
    assert pm_db.threshold_list() == []


def test_crossings_up_and_down_are_notified_once_each(fm, receiver):
    inst = instance_with_vnfcs()
    created = _create(fm, inst, receiver.url)
    up = crossing_alert(created['id'], 'UP', '0.9')
    down = crossing_alert(created['id'], 'DOWN', '0.2')

    answers = [json_of(post(fm, a))['crossings'] for a in (up, up, down, down)]
    assert deliver() == 2
    first, second = receiver.wait(2)

    assert answers == [1, 0, 1, 0]
    assert first['headers']['Version'] == '2.1.0'
    assert first['body']['notificationType'] == 'ThresholdCrossedNotification'
    assert first['body']['thresholdId'] == created['id']
    assert first['body']['crossingDirection'] == 'UP'
    assert first['body']['performanceValue'] == 0.9
    assert first['body']['performanceMetric'] == (
        f'VCpuUsageMeanVnf.{inst["id"]}'
    )
    assert second['body']['crossingDirection'] == 'DOWN'
    assert second['body']['_links']['threshold']['href'].endswith(
        f'/vnfpm/v2/thresholds/{created["id"]}'
    )


def test_a_first_value_below_is_no_crossing(fm, receiver):
    inst = instance_with_vnfcs()
    created = _create(fm, inst, receiver.url)

    out = json_of(post(fm, crossing_alert(created['id'], 'DOWN', '0.1')))

    assert out['crossings'] == 0
    assert pm_db.threshold_get(created['id'])['crossing_state'] == 'DOWN'
    assert deliver() == 0


def test_thresholds_of_another_project_are_404(keystone_client, receiver):
    CONF.set_override('test_callback_uri', False, group='notifications')
    inst = instance_with_vnfcs(project='p1')
    try:
        mine = pm(
            keystone_client,
            'POST',
            '/thresholds',
            threshold_body(inst['id'], receiver.url),
            headers=identity('p1', 'member', 'reader'),
        )
        other = identity('p2', 'member', 'reader', user='u2')
        path = f'/thresholds/{json_of(mine)["id"]}'
        show = pm(keystone_client, 'GET', path, headers=other)
        delete = pm(keystone_client, 'DELETE', path, headers=other)
        listed = pm(keystone_client, 'GET', '/thresholds', headers=other)
    finally:
        CONF.clear_override('test_callback_uri', group='notifications')

    assert mine.status_int == 201, mine.body
    assert (show.status_int, delete.status_int) == (404, 404)
    assert json_of(listed) == []
    assert len(pm_db.threshold_list()) == 1
