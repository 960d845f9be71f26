"""What the conductor does on a timer: renew its leases, fail the ops of
conductors that vanished, and pick up work whose cast was lost; and, at
start-up, fail what an earlier process of the same conductor left running.

An op's owner is a conductor *process*: ``<host>/<random>`` (see
``process_owner``), so a process renews only its own ops and a restarted
conductor tells its predecessor's ops from its own. Two live processes
with one host name (a misconfiguration: they also share an RPC queue) each
keep only their own ops alive; the later one to start fails the earlier
one's running ops as if it had restarted (the earlier one then stops
them at its next write), and says so in its log.

Each function takes ``now`` so tests can fake time.
"""

from __future__ import annotations

import datetime
import logging
import uuid
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from vnfm.common import exceptions
from vnfm.common import timeutils
from vnfm.conductor import packages
from vnfm.conf import CONF
from vnfm.db import api as db
from vnfm.lcm import driver as lcm_driver
from vnfm.objects import notifications
from vnfm.objects.states import ACTIVE_OP_STATES
from vnfm.objects.states import OnboardingState
from vnfm.objects.states import OpEvent
from vnfm.objects.states import OpState
from vnfm.objects.states import next_state

LOG = logging.getLogger(__name__)
RUNNING = (OpState.PROCESSING.value, OpState.ROLLING_BACK.value)
ACTIVE = sorted(s.value for s in ACTIVE_OP_STATES)


def _seconds(value: float) -> datetime.timedelta:
    return datetime.timedelta(seconds=value)


def process_owner(host: str) -> str:
    """The owner id of a new conductor process of ``host``: the host name
    and a random part, new at each start."""
    # Not the pid: in a container every conductor is pid 1.
    return f'{host}/{uuid.uuid4().hex[:12]}'


def host_of(owner: str) -> str:
    """The conductor host name in an owner id."""
    return owner.split('/', 1)[0]


def heartbeat(
    owner: str, op_ids: Collection[str], now: datetime.datetime
) -> int:
    """Renew the leases of ``op_ids``, the ops this process's workers run
    (and only while ``owner`` holds them); how many."""
    return db.op_renew_leases(
        owner, op_ids, lcm_driver.lease_until(now), ACTIVE
    )


def _fail_owned(
    op: Mapping[str, Any], now: datetime.datetime, detail: str
) -> bool:
    """FAILED_TEMP an op still held as read (owner and lease unchanged)."""
    state = op['operation_state']
    values = {
        'operation_state': next_state(state, OpEvent.ERROR).value,
        'state_entered_time': now,
        'owner': None,
        'lease_expires_at': None,
        'error': {'status': 500, 'title': 'Conductor Lost', 'detail': detail},
    }
    try:
        db.op_update(
            op['id'],
            values,
            expected={
                'operation_state': state,
                'owner': op['owner'],
                'lease_expires_at': op['lease_expires_at'],
            },
            notifications=notifications.for_op(dict(op, **values)),
        )
    except exceptions.ConcurrentUpdate:
        return False  # renewed, finished or reaped by another conductor
    LOG.warning('Op %s: %s', op['id'], detail)
    return True


def _fail_each(
    ops: Iterable[Mapping[str, Any]],
    now: datetime.datetime,
    why: Callable[[Mapping[str, Any]], str],
) -> list[str]:
    """FAILED_TEMP each op still held as read, its detail ``why(op)``
    followed by what the user can do; the ids failed."""
    return [
        op['id']
        for op in ops
        if _fail_owned(op, now, f'{why(op)}; retry, rollback or fail it.')
    ]


def reap(now: datetime.datetime) -> list[str]:
    """FAILED_TEMP every op whose owner stopped renewing its lease."""
    return _fail_each(
        db.op_find_expired(now, RUNNING),
        now,
        lambda op: (
            f'Conductor {op["owner"]} stopped renewing its lease on this '
            f'operation at {timeutils.isotime(op["lease_expires_at"])} '
            f'while it was {op["operation_state"]}'
        ),
    )


def release(owner: str, now: datetime.datetime) -> list[str]:
    """FAILED_TEMP the ops this process (``owner``) still runs when it
    stops for good."""
    return _fail_each(
        db.op_list({'owner': owner, 'operation_state': list(RUNNING)}),
        now,
        lambda op: (
            f'Conductor {host_of(owner)} was stopped at '
            f'{timeutils.isotime(now)} while the operation was '
            f'{op["operation_state"]}'
        ),
    )


def recover(host: str, owner: str, now: datetime.datetime) -> list[str]:
    """At the start of process ``owner``: FAILED_TEMP the ops an earlier
    process of conductor ``host`` was running (it died; nobody renews them),
    at once rather than when their lease runs out."""
    left = [
        op for op in db.op_find_of_host(host, RUNNING) if op['owner'] != owner
    ]
    return _fail_each(
        left,
        now,
        lambda op: (
            f'Conductor {host} restarted at {timeutils.isotime(now)} '
            'while the '
            f'operation was {op["operation_state"]} (in its earlier process '
            f'{op["owner"]})'
        ),
    )


def sweep_unclaimed(
    now: datetime.datetime, submit: Callable[[str], bool], free: int
) -> list[str]:
    """Queue the ops nobody claimed within the grace period, at most
    ``free`` (the workers that would start them at once).

    Under a backlog an op waits unclaimed because every conductor is busy,
    its cast queued behind others in some conductor's pool; a conductor
    that queued every such op too would only queue them twice.
    """
    if free <= 0:
        return []
    before = now - _seconds(CONF.conductor.unclaimed_grace_seconds)
    queued = [
        op['id']
        for op in db.op_find_unclaimed(before, ACTIVE, limit=free)
        if submit(op['id'])
    ]
    if queued:
        LOG.info(
            'Picked up %d unclaimed ops (lost casts): %s',
            len(queued),
            ', '.join(queued),
        )
    return queued


def sweep_packages(
    now: datetime.datetime, submit: Callable[[str], bool]
) -> list[str]:
    """Re-run stalled onboardings; fail URI uploads that were cut off."""
    grace = _seconds(CONF.conductor.unclaimed_grace_seconds)
    queued = []
    for pkg in db.package_list(
        {'onboarding_state': OnboardingState.PROCESSING.value}
    ):
        if (pkg['updated_at'] or pkg['created_at']) < now - grace and (
            submit(pkg['id'])
        ):
            queued.append(pkg['id'])
    stale = now - 2 * _seconds(CONF.vnf_package.upload_from_uri_timeout)
    for pkg in db.package_list(
        {'onboarding_state': OnboardingState.UPLOADING.value}
    ):
        if (
            pkg.get('upload_source')
            and (pkg['updated_at'] or pkg['created_at']) < stale
        ):
            packages.mark_error(
                pkg['id'],
                OnboardingState.UPLOADING,
                500,
                packages.UPLOAD_INTERRUPTED,
                values={
                    'upload_source': packages.without_secrets(
                        pkg['upload_source']
                    )
                },
            )
    return queued
