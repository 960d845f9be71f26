"""What auto-heal and auto-scale share: a decision and its reason, the
cool-down after an automatic op, and starting an automatic op as the API
does (an op occurrence STARTING with its notifications, marked
``isAutomaticInvocation``), never while another op runs."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from vnfm.common import exceptions
from vnfm.common import timeutils
from vnfm.db import api as db
from vnfm.objects import notifications
from vnfm.objects import states

WAITING = 'WAITING'
INSTANTIATED = 'INSTANTIATED'
# start(op_id): ring the conductors about a new op.
Start = Callable[[str], object]


class Decision(NamedTuple):
    """What was decided about an automatic op, and why."""

    state: str
    reason: str
    op_id: str | None = None

    def details(self, now: datetime.datetime) -> dict:
        """The decision as an alarm or a threshold records it."""
        out = {
            'decision': self.state,
            'reason': self.reason,
            'time': timeutils.isotime(now),
        }
        if self.op_id:
            out['vnfLcmOpOccId'] = self.op_id
        return out


class Decided(Exception):
    """A decision made before the end of a judgement."""

    def __init__(self, state: str, reason: str, op_id: str | None = None):
        super().__init__(reason)
        self.decision = Decision(state, reason, op_id)


def check_cooldown(
    ops: list, operation: str, seconds: float, now: datetime.datetime
) -> None:
    """Decided(WAITING) while the last automatic ``operation`` of the ops
    (oldest first) ended less than ``seconds`` ago."""
    for op in reversed(ops):
        if op['operation'] == operation and op.get('is_automatic_invocation'):
            until = op['state_entered_time'] + datetime.timedelta(
                seconds=seconds
            )
            if until > now:
                raise Decided(
                    WAITING,
                    f'cool-down after automatic {operation.lower()} '
                    f'{op["id"]} until {timeutils.isotime(until)}',
                )
            return


def start(instance: Mapping[str, Any], operation: str, params: dict) -> str:
    """Record an automatic op of ``instance``; its id. Decided(WAITING)
    if another op started meanwhile."""
    op_id = db.new_id()
    values = {
        'id': op_id,
        'vnf_instance_id': instance['id'],
        'operation': operation,
        'operation_state': states.OpState.STARTING.value,
        'operation_params': params,
        'is_automatic_invocation': True,
        'is_cancel_pending': False,
        'api_version': '2',
        'project_id': instance['project_id'],
    }
    try:
        db.op_create(
            values,
            instance_expected={'instantiation_state': INSTANTIATED},
            notifications=notifications.for_op(values, instance=instance),
        )
    except exceptions.Conflict as e:  # an op started meanwhile
        raise Decided(WAITING, e.detail) from None
    return op_id
