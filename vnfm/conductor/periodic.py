"""What the conductor does on a timer: renew its leases, fail the ops of
conductors that vanished, and pick up work whose cast was lost.

Each function takes ``now`` so tests can fake time.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Callable

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


def heartbeat(host: str, now: datetime.datetime) -> int:
    """Renew the lease of every op ``host`` runs; how many."""
    return db.op_renew_leases(host, lcm_driver.lease_until(now), ACTIVE)


def _fail_owned(op: dict, now: datetime.datetime, detail: str) -> bool:
    """FAILED_TEMP an op still held as read (owner and lease unchanged)."""
    state = op['operation_state']
    values = {
        'operation_state': next_state(state, OpEvent.ERROR).value,
        'state_entered_time': now, 'owner': None, 'lease_expires_at': None,
        'error': {'status': 500, 'title': 'Conductor Lost',
                  'detail': detail}}
    try:
        db.op_update(op['id'], values, expected={
            'operation_state': state, 'owner': op['owner'],
            'lease_expires_at': op['lease_expires_at']},
            notifications=notifications.for_op(dict(op, **values)))
    except exceptions.Conflict:
        return False  # renewed, finished or reaped by another conductor
    LOG.warning('Op %s: %s', op['id'], detail)
    return True


def reap(now: datetime.datetime) -> list[str]:
    """FAILED_TEMP every op whose owner stopped renewing its lease."""
    reaped = []
    for op in db.op_find_expired(now, RUNNING):
        expired = timeutils.isotime(op['lease_expires_at'])
        detail = (f"Conductor {op['owner']} stopped renewing its lease on "
                  f'this operation at {expired} '
                  f"while it was {op['operation_state']}; retry, rollback or "
                  'fail it.')
        if _fail_owned(op, now, detail):
            reaped.append(op['id'])
    return reaped


def release(host: str, now: datetime.datetime) -> list[str]:
    """FAILED_TEMP the ops ``host`` still runs when it stops for good."""
    released = []
    for op in db.op_list({'owner': host, 'operation_state': list(RUNNING)}):
        detail = (f'Conductor {host} was stopped at {timeutils.isotime(now)} '
                  f"while the operation was {op['operation_state']}; retry, "
                  'rollback or fail it.')
        if _fail_owned(op, now, detail):
            released.append(op['id'])
    return released


def sweep_unclaimed(now: datetime.datetime,
                    submit: Callable[[str], bool]) -> list[str]:
    """Queue the ops nobody claimed within the grace period."""
    before = now - _seconds(CONF.conductor.unclaimed_grace_seconds)
    queued = [op['id'] for op in db.op_find_unclaimed(before, ACTIVE)
              if submit(op['id'])]
    if queued:
        LOG.info('Picked up %d unclaimed ops (lost casts): %s', len(queued),
                 ', '.join(queued))
    return queued


def sweep_packages(now: datetime.datetime,
                   submit: Callable[[str], bool]) -> list[str]:
    """Re-run stalled onboardings; fail URI uploads that were cut off."""
    grace = _seconds(CONF.conductor.unclaimed_grace_seconds)
    queued = []
    for pkg in db.package_list(
            {'onboarding_state': OnboardingState.PROCESSING.value}):
        if (pkg['updated_at'] or pkg['created_at']) < now - grace and (
                submit(pkg['id'])):
            queued.append(pkg['id'])
    stale = now - 2 * _seconds(CONF.vnf_package.upload_from_uri_timeout)
    for pkg in db.package_list(
            {'onboarding_state': OnboardingState.UPLOADING.value}):
        if pkg.get('upload_source') and (
                pkg['updated_at'] or pkg['created_at']) < stale:
            packages.mark_error(
                pkg['id'], OnboardingState.UPLOADING, 500,
                packages.UPLOAD_INTERRUPTED, values={
                    'upload_source': packages.without_secrets(
                        pkg['upload_source'])})
    return queued
