"""Auto-heal: an alarm on a VNFC of an instance whose
``vnfConfigurableProperties.isAutohealEnabled`` is true starts a heal of
that VNFC, as ``POST .../heal`` does (an op occurrence STARTING, with its
notifications, then a cast), marked ``isAutomaticInvocation``.

Each alarm is judged once it is raised, by the receiver, and its decision
is recorded on the alarm (``heal_state``, ``heal_decision``; the Alarm
shows it as ``autoHeal``, and vnfm-api logs it):

HEAL_STARTED  the heal op it started.
WAITING       another op runs on the instance, or the instance is in its
              cool-down after an automatic heal; the conductors judge it
              again (``[fault_management] autoheal_interval``) against
              the state after that.
NOT_HEALED    why not: auto-heal off, cleared, no VNFC, VNFC gone, or a
              heal of its VNFC ended after the alarm was raised (a storm
              of alerts gives one heal; a heal that failed is not retried
              by the alarms it already answered).
"""

from __future__ import annotations

import contextlib
import datetime
import logging
from collections.abc import Mapping
from typing import Any

from vnfm.common import exceptions
from vnfm.common import timeutils
from vnfm.conf import CONF
from vnfm.db import alarms as alarm_db
from vnfm.db import api as db
from vnfm.objects import automatic
from vnfm.objects import states
from vnfm.objects import vnf_instance

LOG = logging.getLogger(__name__)

HEAL = states.LcmOperation.HEAL.value
INSTANTIATED = 'INSTANTIATED'
_FINAL = frozenset(s.value for s in states.FINAL_OP_STATES)
Start = automatic.Start


Decision = automatic.Decision
_Decided = automatic.Decided


#: The decision about an alarm of an instance without auto-heal, recorded
#: when the alarm is raised.
DISABLED = Decision(
    alarm_db.NOT_HEALED,
    'vnfConfigurableProperties.isAutohealEnabled is not true for the VNF '
    'instance',
)


def enabled(instance: Mapping[str, Any]) -> bool:
    """Whether auto-heal is on for an instance."""
    props = instance.get('vnf_configurable_properties') or {}
    return props.get('isAutohealEnabled') is True


def judge(
    alarm: dict, start: Start, now: datetime.datetime | None = None
) -> Decision:
    """Judge ``alarm`` (a row), start its heal if due and record the
    decision on it."""
    now = now or timeutils.utcnow()
    try:
        decision = _judge(alarm, start, now)
    except _Decided as d:
        decision = d.decision
    _record(alarm, decision, now)
    return decision


def _judge(alarm: dict, start: Start, now: datetime.datetime) -> Decision:
    try:
        instance = db.instance_get(alarm['vnf_instance_id'])
    except exceptions.NotFound:
        raise _Decided(
            alarm_db.NOT_HEALED, 'the VNF instance is gone'
        ) from None
    vnfc_id = _vnfc_to_heal(alarm, instance)
    ops = db.op_list({'vnf_instance_id': instance['id']})
    active = [o for o in ops if o['operation_state'] not in _FINAL]
    if active:
        op = active[0]
        raise _Decided(
            alarm_db.WAITING,
            f'operation {op["id"]} ({op["operation"]}) is '
            f'{op["operation_state"]}; judged again after it',
        )
    _check_not_healed_since(alarm, vnfc_id, ops)
    automatic.check_cooldown(
        ops, HEAL, CONF.fault_management.autoheal_cooldown, now
    )
    op_id = _start_heal(alarm, instance, vnfc_id)
    start(op_id)
    return Decision(
        alarm_db.HEAL_STARTED, f'heal of VNFC {vnfc_id} started', op_id
    )


def _vnfc_to_heal(alarm: dict, instance: Mapping[str, Any]) -> str:
    not_healed = alarm_db.NOT_HEALED
    if not enabled(instance):
        raise _Decided(*DISABLED)
    if alarm['alarm_cleared_time'] is not None:
        raise _Decided(not_healed, 'the alarm was cleared')
    if not alarm['vnfc_instance_ids']:
        raise _Decided(not_healed, 'the alarm names no VNFC')
    if instance['instantiation_state'] != INSTANTIATED:
        raise _Decided(not_healed, 'the VNF instance is not instantiated')
    vnfc_id = alarm['vnfc_instance_ids'][0]
    info = instance.get('instantiated_vnf_info') or {}
    if vnfc_id not in {v.get('id') for v in info.get('vnfcInfo') or []}:
        raise _Decided(not_healed, f'VNFC {vnfc_id} no longer exists')
    types = vnf_instance.vim_types(instance.get('vim_connection_info'))
    if HEAL not in vnf_instance.enabled_infra().operations(types):
        raise _Decided(not_healed, 'no enabled infra driver runs HEAL')
    return str(vnfc_id)


def _heals(op: dict, vnfc_id: str) -> bool:
    if op['operation'] != HEAL:
        return False
    named = (op.get('operation_params') or {}).get('vnfcInstanceId')
    return not named or vnfc_id in named


def _check_not_healed_since(alarm: dict, vnfc_id: str, ops: list) -> None:
    for op in reversed(ops):
        if (
            _heals(op, vnfc_id)
            and op['state_entered_time'] >= alarm['alarm_raised_time']
        ):
            raise _Decided(
                alarm_db.NOT_HEALED,
                f'heal {op["id"]} of VNFC {vnfc_id} ended '
                f'{op["operation_state"]} after the alarm was raised',
                op['id'],
            )


def _start_heal(alarm: dict, instance: Mapping[str, Any], vnfc_id: str) -> str:
    return automatic.start(
        instance,
        HEAL,
        {
            'vnfcInstanceId': [vnfc_id],
            'cause': f'Alarm {alarm["id"]}: {alarm["probable_cause"]}',
        },
    )


def _record(alarm: dict, decision: Decision, now: datetime.datetime) -> None:
    LOG.info(
        'Auto-heal, alarm %s of VNF instance %s: %s (%s)',
        alarm['id'],
        alarm['vnf_instance_id'],
        decision.state,
        decision.reason,
    )
    # Judged meanwhile elsewhere, or deleted with its instance: keep that.
    with contextlib.suppress(exceptions.Conflict, exceptions.NotFound):
        alarm_db.alarm_update(
            alarm['id'],
            {
                'heal_state': decision.state,
                'heal_decision': decision.details(now),
            },
            expected={'heal_state': alarm.get('heal_state')},
        )


def rejudge(start: Start, now: datetime.datetime, limit: int = 100) -> int:
    """Judge the alarms left WAITING, and those never judged (their
    receiver stopped first); how many were judged."""
    settle = now - datetime.timedelta(seconds=5)
    count = 0
    for alarm in alarm_db.alarms_to_judge(limit):
        if alarm['heal_state'] is None and alarm['alarm_raised_time'] > settle:
            continue  # the receiver is judging it now
        judge(alarm, start, now)
        count += 1
    return count
