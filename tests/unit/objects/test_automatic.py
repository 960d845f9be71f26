"""What auto-heal and auto-scale share: the cool-down after the last
automatic op of a kind, and an automatic op that waits when another op
started first."""

from __future__ import annotations

import datetime

import pytest

from tests.unit.server.fm_helpers import instance_with_vnfcs
from vnfm.db import api as db
from vnfm.objects import automatic

T0 = datetime.datetime(2030, 1, 1, 12, 0, 0)


def _op(operation: str, automatic_op: bool, minute: int) -> dict:
    return {
        'id': f'{operation}-{minute}',
        'operation': operation,
        'is_automatic_invocation': automatic_op,
        'state_entered_time': T0 + datetime.timedelta(minutes=minute),
    }


def test_the_cool_down_counts_from_the_last_automatic_op_of_its_kind():
    ops = [_op('SCALE', True, 0), _op('SCALE', False, 9), _op('HEAL', True, 9)]
    now = T0 + datetime.timedelta(minutes=10)

    automatic.check_cooldown(ops, 'SCALE', 300, now)  # ended 10 min ago
    with pytest.raises(automatic.Decided) as e:
        automatic.check_cooldown(ops, 'HEAL', 300, now)

    assert e.value.decision.state == automatic.WAITING
    assert 'cool-down after automatic heal HEAL-9' in e.value.decision.reason


def test_an_automatic_op_waits_for_the_op_in_progress(client):
    inst = instance_with_vnfcs()

    first = automatic.start(inst, 'HEAL', {'vnfcInstanceId': ['info-a']})
    with pytest.raises(automatic.Decided) as e:
        automatic.start(inst, 'SCALE', {'type': 'SCALE_OUT'})

    [op] = db.op_list({'vnf_instance_id': inst['id']})
    assert op['id'] == first
    assert op['is_automatic_invocation'] is True
    assert op['operation_state'] == 'STARTING'
    assert e.value.decision.state == automatic.WAITING
