"""vnfm.objects.autoscale, driven as in production by the receiver: a
threshold crossed UP scales its aspect out, DOWN in; never while another
op runs, nor in the cool-down, nor past the level's bounds; every
decision recorded on the threshold."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.unit.server.conftest import json_of
from tests.unit.server.fm_helpers import TOKEN
from tests.unit.server.fm_helpers import instance_with_vnfcs
from tests.unit.server.fm_helpers import post
from tests.unit.server.pm_helpers import crossing_alert
from tests.unit.server.pm_helpers import pm
from tests.unit.server.pm_helpers import threshold_body
from vnfm.common import timeutils
from vnfm.conf import CONF
from vnfm.db import api as db
from vnfm.db import pm as pm_db
from vnfm.objects import autoscale

ON = {'isAutoscaleEnabled': True}


@pytest.fixture
def fm(client) -> Iterator:
    """The client, with the receiver's token configured."""
    CONF.set_override('receiver_token', TOKEN, group='fault_management')
    CONF.set_override('test_callback_uri', False, group='notifications')
    yield client
    CONF.clear_override('receiver_token', group='fault_management')
    CONF.clear_override('test_callback_uri', group='notifications')


def _scalable(level: int = 0, **values) -> dict:
    inst = instance_with_vnfcs(**values)
    info = dict(
        inst['instantiated_vnf_info'],
        scaleStatus=[{'aspectId': 'vdu1_aspect', 'scaleLevel': level}],
        maxScaleLevels=[{'aspectId': 'vdu1_aspect', 'scaleLevel': 2}],
    )
    db.instance_update(inst['id'], {'instantiated_vnf_info': info})
    return dict(db.instance_get(inst['id']))


def _set_level(inst: dict, level: int) -> None:
    info = db.instance_get(inst['id'])['instantiated_vnf_info']
    info['scaleStatus'][0]['scaleLevel'] = level
    db.instance_update(inst['id'], {'instantiated_vnf_info': info})


def _threshold(client, inst: dict) -> dict:
    body = threshold_body(
        inst['id'],
        'http://127.0.0.1:9/cb',
        metadata={'aspectId': 'vdu1_aspect'},
    )
    resp = pm(client, 'POST', '/thresholds', body)
    assert resp.status_int == 201, resp.body
    return json_of(resp)


def _scales(instance_id: str) -> list[dict]:
    return [
        o
        for o in db.op_list({'vnf_instance_id': instance_id})
        if o['operation'] == 'SCALE'
    ]


def _end(op: dict, when=None) -> None:
    db.op_update(
        op['id'],
        {
            'operation_state': 'COMPLETED',
            'state_entered_time': when or timeutils.utcnow(),
            'active_instance_id': None,
        },
    )


def _shown(client, threshold: dict) -> dict:
    path = f'/thresholds/{threshold["id"]}'
    return json_of(pm(client, 'GET', path))['autoScale']


def test_crossed_up_scales_out_and_is_shown(fm, rpc):
    inst = _scalable(vnf_configurable_properties=ON)
    threshold = _threshold(fm, inst)

    post(fm, crossing_alert(threshold['id'], 'UP'))

    [op] = _scales(inst['id'])
    assert op['operation_state'] == 'STARTING'
    assert op['is_automatic_invocation'] is True
    assert op['operation_params']['type'] == 'SCALE_OUT'
    assert op['operation_params']['aspectId'] == 'vdu1_aspect'
    assert ('start_lcm_op', (op['id'],)) in rpc.calls
    shown = _shown(fm, threshold)
    assert shown['decision'] == 'SCALE_STARTED'
    assert shown['vnfLcmOpOccId'] == op['id']


def test_an_op_in_progress_waits_then_the_repeat_scales(fm):
    inst = _scalable(vnf_configurable_properties=ON)
    threshold = _threshold(fm, inst)
    CONF.set_override('autoscale_cooldown', 0, 'performance_management')
    try:
        post(fm, crossing_alert(threshold['id'], 'UP'))
        [first] = _scales(inst['id'])
        post(fm, crossing_alert(threshold['id'], 'DOWN', '0.1'))
        waiting = _shown(fm, threshold)
        _end(first)
        _set_level(inst, 1)  # what the scale out did
        post(fm, crossing_alert(threshold['id'], 'DOWN', '0.1'))  # repeat
    finally:
        CONF.clear_override('autoscale_cooldown', 'performance_management')

    assert waiting['decision'] == 'WAITING'
    assert first['id'] in waiting['reason']
    assert [o['operation_params']['type'] for o in _scales(inst['id'])] == [
        'SCALE_OUT',
        'SCALE_IN',
    ]


def test_the_cool_down_holds_the_next_scale(fm):
    inst = _scalable(vnf_configurable_properties=ON)
    threshold = _threshold(fm, inst)

    post(fm, crossing_alert(threshold['id'], 'UP'))
    _end(_scales(inst['id'])[0])
    post(fm, crossing_alert(threshold['id'], 'DOWN', '0.1'))

    assert len(_scales(inst['id'])) == 1
    assert 'cool-down after automatic scale' in _shown(fm, threshold)['reason']


@pytest.mark.parametrize(
    ('level', 'direction', 'reason'),
    [
        (2, 'UP', 'at its maximum level 2'),
        (0, 'DOWN', 'at level 0'),
    ],
)
def test_no_scale_past_the_bounds(fm, level, direction, reason):
    inst = _scalable(level, vnf_configurable_properties=ON)
    threshold = _threshold(fm, inst)
    row = pm_db.threshold_get(threshold['id'])

    decision = autoscale.judge(row, direction, lambda op_id: None)

    assert decision.state == autoscale.NOT_SCALED
    assert reason in decision.reason
    assert _scales(inst['id']) == []


def test_auto_scale_off_starts_nothing(fm):
    inst = _scalable()
    threshold = _threshold(fm, inst)

    post(fm, crossing_alert(threshold['id'], 'UP'))

    assert _scales(inst['id']) == []
    row = pm_db.threshold_get(threshold['id'])
    decision = autoscale.judge(row, 'UP', lambda op_id: None)
    assert 'isAutoscaleEnabled is not true' in decision.reason
