"""The final writes of an op: each one transaction, each a compare-and-set
on (owner, state) through the state machine in ``vnfm.objects.states``."""

from __future__ import annotations

import logging

from vnfm.common import exceptions
from vnfm.common import timeutils
from vnfm.db import api as db
from vnfm.db import rows
from vnfm.lcm.operation import Outcome
from vnfm.lcm.run import LeaseLost
from vnfm.lcm.run import OpRun
from vnfm.objects import alarm
from vnfm.objects import notifications
from vnfm.objects.states import OpEvent
from vnfm.objects.states import next_state

LOG = logging.getLogger(__name__)


def problem(error: exceptions.VnfmError) -> dict:
    """The ProblemDetails recorded as the op's error."""
    return {
        'status': error.status,
        'title': error.title,
        'detail': error.detail,
    }


def _leave(
    op: rows.OpRow,
    event: OpEvent,
    values: dict,
    owner: str | None,
    instance_values: dict | None = None,
    vims: dict[str, dict | None] | None = None,
) -> rows.OpRow:
    """Move ``op`` by ``event``, releasing it, if ``owner`` still has it."""
    state = next_state(op['operation_state'], event)
    # Leaving a running state ends any cancel pending (SOL003 5.4.17).
    values = dict(
        values,
        operation_state=state.value,
        state_entered_time=timeutils.utcnow(),
        owner=None,
        lease_expires_at=None,
        is_cancel_pending=False,
        cancel_mode=None,
    )
    try:
        return db.op_update(
            op['id'],
            values,
            expected={
                'owner': owner,
                'operation_state': op['operation_state'],
            },
            instance_id=op['vnf_instance_id'],
            instance_values=instance_values,
            vims=vims,
            notifications=notifications.for_op(
                dict(op, **values), instance_values=instance_values
            ),
        )
    except exceptions.ConcurrentUpdate as e:
        raise LeaseLost(str(e)) from None


def complete(run: OpRun, outcome: Outcome) -> rows.OpRow:
    """COMPLETED, with the instance changes in the same transaction."""
    values = {
        'active_instance_id': None,
        'error': None,
        'work': run.work,
        'resource_changes': outcome.resource_changes,
        'changed_info': outcome.changed_info,
        'changed_ext_connectivity': outcome.changed_ext_connectivity,
    }
    op = _leave(
        run.op,
        OpEvent.COMPLETE,
        values,
        run.host,
        outcome.instance_values or {},
        outcome.vims,
    )
    LOG.info(
        'Op %s (%s) of VNF instance %s COMPLETED',
        op['id'],
        op['operation'],
        op['vnf_instance_id'],
    )
    _clear_stale_alarms(op)
    return op


def _clear_stale_alarms(op: rows.OpRow) -> None:
    """Clear the alarms of the VNFCs the op removed or replaced. After the
    op's commit, so a failure here never undoes it: the alarms then wait
    for Alertmanager to resolve their alerts."""
    try:
        alarm.clear_stale(op['vnf_instance_id'])
    except Exception:  # noqa: BLE001 - the op is committed; log, go on
        LOG.exception(
            'Op %s: the alarms of its VNFCs were not cleared', op['id']
        )


def rolled_back(run: OpRun, outcome: Outcome) -> rows.OpRow:
    """ROLLED_BACK, with the instance restored in the same transaction
    (and what rollback hooks reported, when they did)."""
    values = {'active_instance_id': None, 'work': run.work}
    if outcome.resource_changes is not None:
        values['resource_changes'] = outcome.resource_changes
    if outcome.changed_info is not None:
        values['changed_info'] = outcome.changed_info
    op = _leave(
        run.op,
        OpEvent.ROLLED_BACK,
        values,
        run.host,
        outcome.instance_values,
        outcome.vims,
    )
    LOG.info('Op %s (%s) ROLLED_BACK', op['id'], op['operation'])
    return op


def fail(
    op: rows.OpRow,
    owner: str,
    error: exceptions.VnfmError,
    work: dict | None = None,
) -> rows.OpRow:
    """FAILED_TEMP with ``error``: retry, rollback or fail are next."""
    values = {'error': problem(error)}
    if work is not None:
        values['work'] = work
    op = _leave(op, OpEvent.ERROR, values, owner)
    LOG.warning(
        'Op %s (%s) FAILED_TEMP: %s', op['id'], op['operation'], error.detail
    )
    return op


def abort(op: rows.OpRow, error: exceptions.VnfmError) -> rows.OpRow:
    """ROLLED_BACK before anything ran (an op nobody claimed yet)."""
    values = {'error': problem(error), 'active_instance_id': None}
    op = _leave(op, OpEvent.ABORT, values, None)
    LOG.warning(
        'Op %s (%s) aborted: %s', op['id'], op['operation'], error.detail
    )
    return op
