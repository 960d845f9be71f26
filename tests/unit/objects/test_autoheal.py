"""vnfm.objects.autoheal, driven as in production by the receiver (POST
/alert) and the conductors' round (``rejudge``): an alarm on a VNFC of an
instance with isAutohealEnabled starts one heal of that VNFC; the rest
waits, is judged again after it, and every decision is recorded on the
alarm."""

from __future__ import annotations

import datetime
from collections.abc import Iterator

import pytest

from tests.unit.server.conftest import json_of
from tests.unit.server.fm_helpers import FM
from tests.unit.server.fm_helpers import TOKEN
from tests.unit.server.fm_helpers import alert
from tests.unit.server.fm_helpers import instance_with_vnfcs
from tests.unit.server.fm_helpers import post
from vnfm.common import timeutils
from vnfm.conf import CONF
from vnfm.db import alarms as alarm_db
from vnfm.db import api as db
from vnfm.objects import autoheal

ON = {'isAutohealEnabled': True}


@pytest.fixture
def fm(client) -> Iterator:
    """The client, with the receiver's token configured."""
    CONF.set_override('receiver_token', TOKEN, group='fault_management')
    yield client
    CONF.clear_override('receiver_token', group='fault_management')


def _heals(instance_id: str) -> list[dict]:
    return [
        o
        for o in db.op_list({'vnf_instance_id': instance_id})
        if o['operation'] == 'HEAL'
    ]


def _states() -> list:
    return sorted(a['heal_state'] or '-' for a in alarm_db.alarm_list())


def _end(op: dict, state: str = 'COMPLETED') -> None:
    db.op_update(
        op['id'],
        {
            'operation_state': state,
            'state_entered_time': timeutils.utcnow(),
            'active_instance_id': None,
        },
    )


def _rejudge(later: float = 0.0) -> int:
    now = timeutils.utcnow() + datetime.timedelta(seconds=later)
    return autoheal.rejudge(lambda op_id: None, now)


def test_an_alarm_on_a_vnfc_starts_its_heal(fm, rpc):
    inst = instance_with_vnfcs(vnf_configurable_properties=ON)

    post(fm, alert(inst['id'], pod='vdu1-b'))

    [op] = _heals(inst['id'])
    assert op['operation_state'] == 'STARTING'
    assert op['is_automatic_invocation'] is True
    assert op['operation_params']['vnfcInstanceId'] == ['info-b']
    assert ('start_lcm_op', (op['id'],)) in rpc.calls
    [row] = alarm_db.alarm_list()
    assert row['heal_state'] == 'HEAL_STARTED'
    shown = json_of(
        fm.request('GET', f'/vnffm/v1/alarms/{row["id"]}', headers=FM)
    )
    assert shown['autoHeal']['decision'] == 'HEAL_STARTED'
    assert shown['autoHeal']['vnfLcmOpOccId'] == op['id']


def test_a_storm_for_one_vnfc_gives_one_heal(fm):
    inst = instance_with_vnfcs(vnf_configurable_properties=ON)

    for i in range(10):
        post(
            fm,
            *(alert(inst['id'], fingerprint=f'f{i}-{j}') for j in range(10)),
        )

    [op] = _heals(inst['id'])
    assert _states() == ['HEAL_STARTED'] + ['WAITING'] * 99

    _end(op)
    assert _rejudge() == 99

    assert len(_heals(inst['id'])) == 1
    assert _states() == ['HEAL_STARTED'] + ['NOT_HEALED'] * 99
    reasons = {a['heal_decision']['reason'] for a in alarm_db.alarm_list()}
    assert (
        f'heal {op["id"]} of VNFC info-a ended COMPLETED after the alarm '
        'was raised'
    ) in reasons


def test_auto_heal_off_starts_nothing(fm, rpc):
    inst = instance_with_vnfcs()

    post(fm, alert(inst['id']))
    judged = _rejudge(later=10)

    assert _heals(inst['id']) == []
    assert judged == 0  # decided when the alarm was raised
    [row] = alarm_db.alarm_list()
    assert row['heal_state'] == 'NOT_HEALED'
    assert 'isAutohealEnabled' in row['heal_decision']['reason']


def test_an_alarm_during_an_op_waits_then_heals(fm):
    inst = instance_with_vnfcs(vnf_configurable_properties=ON)
    scale = db.op_create(
        {
            'vnf_instance_id': inst['id'],
            'operation': 'SCALE',
            'operation_state': 'PROCESSING',
            'api_version': '2',
        }
    )

    post(fm, alert(inst['id']))
    assert _states() == ['WAITING']
    assert _rejudge() == 1
    assert _heals(inst['id']) == []

    _end(scale)
    _rejudge()

    assert len(_heals(inst['id'])) == 1
    assert _states() == ['HEAL_STARTED']


def test_a_failed_heal_is_not_retried_in_a_loop(fm):
    CONF.set_override('autoheal_cooldown', 60, group='fault_management')
    try:
        inst = instance_with_vnfcs(vnf_configurable_properties=ON)
        post(fm, alert(inst['id'], fingerprint='first'))
        [op] = _heals(inst['id'])
        _end(op, 'FAILED')
        # The fault persists: a new alert after the failed heal.
        post(fm, alert(inst['id'], fingerprint='second'))
        in_cooldown = [
            a['heal_decision']['reason']
            for a in alarm_db.alarm_list()
            if a['fingerprint'] == 'second'
        ]
        _rejudge(later=30)
        still = len(_heals(inst['id']))
        _rejudge(later=61)
    finally:
        CONF.clear_override('autoheal_cooldown', group='fault_management')

    assert in_cooldown[0].startswith(
        f'cool-down after automatic heal {op["id"]}'
    )
    assert still == 1
    assert len(_heals(inst['id'])) == 2


def test_a_cleared_alarm_is_not_healed(fm):
    inst = instance_with_vnfcs(vnf_configurable_properties=ON)
    db.op_create(
        {
            'vnf_instance_id': inst['id'],
            'operation': 'SCALE',
            'operation_state': 'PROCESSING',
            'api_version': '2',
        }
    )
    post(fm, alert(inst['id']))

    post(fm, alert(inst['id'], status='resolved'))
    _rejudge()

    assert _heals(inst['id']) == []
