"""Cancel of a running op occurrence (SOL003 5.4.17), on the conductor that
holds it.

vnfm-api records the request in the op (``is_cancel_pending``,
``cancel_mode``); no message has to reach the right conductor. The run
looks at the op before each step (and each rollback action): GRACEFUL
stops there. FORCEFUL also has the holder's cancel poller kill the hook
subprocess running now and shut the connection of the external call the op
waits for (Keystone, Heat, Kubernetes, SSH), so the op fails at once.
Either way the op ends FAILED_TEMP, with an error saying it was cancelled;
retry and rollback work as after any failure.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from vnfm.clients import deadlines
from vnfm.common import exceptions
from vnfm.db import api as db
from vnfm.drivers import processes
from vnfm.objects.states import OpState

LOG = logging.getLogger(__name__)
_RUNNING = [OpState.PROCESSING.value, OpState.ROLLING_BACK.value]


class Cancelled(exceptions.OperationFailed):
    """The user cancelled the op while it ran."""

    title = 'Cancelled'


def _cancelled(op: Mapping[str, Any], where: str) -> Cancelled:
    return Cancelled(
        f"Cancelled ({op['cancel_mode']}) at the user's request {where}. "
        'Retry, roll back or fail the operation.'
    )


def check(op_id: str, where: str) -> None:
    """Cancelled if a cancel of the op is pending (a step boundary)."""
    op = db.op_get(op_id)
    if op['is_cancel_pending']:
        raise _cancelled(op, where)


def as_cancelled(
    op_id: str, error: exceptions.VnfmError
) -> exceptions.VnfmError:
    """``error``, or the cancel that caused it (a FORCEFUL cancel kills
    the running hook, which then fails)."""
    if isinstance(error, Cancelled):
        return error
    try:
        op = db.op_get(op_id)
    except exceptions.NotFound:
        return error
    if not op['is_cancel_pending']:
        return error
    return _cancelled(op, f'(what was running then: {error.detail})')


def kill_forceful(owner: str) -> int:
    """Kill the running hooks and end the waiting external calls of the
    ops ``owner`` (this conductor process) holds that have a FORCEFUL
    cancel pending; how many were ended (the cancel poller)."""
    killed = 0
    for op in db.op_list(
        {
            'owner': owner,
            'is_cancel_pending': True,
            'cancel_mode': 'FORCEFUL',
            'operation_state': _RUNNING,
        },
        columns=['id'],
    ):
        n = processes.kill(op['id'])
        calls = deadlines.interrupt(op['id'])
        if n or calls:
            LOG.info(
                'Op %s: FORCEFUL cancel killed %d running hook(s) and ended '
                '%d waiting call(s)',
                op['id'],
                n,
                calls,
            )
        killed += n + calls
    return killed
