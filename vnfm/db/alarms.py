"""Queries of VNF fault management: alarms (rows as plain dicts, see
``crud``).

An alarm is keyed by the alert it came from (Alertmanager's fingerprint
and startsAt, unique): the alerts of one post are recorded in one
transaction with the notifications they cause, and a post retried, or
sent by two Alertmanagers of a cluster at once, changes nothing more.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Callable, Iterable, Iterator

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from vnfm.common import exceptions
from vnfm.db import crud
from vnfm.db import models
from vnfm.db import outbox
from vnfm.db import session

ALARMS = models.table(models.Alarm)
# Tries of a post's transaction that lost races to concurrent posts.
_ATTEMPTS = 3

# What recording an alert did to its alarm.
RAISED, CHANGED, CLEARED, UNCHANGED = 'RAISED', 'CHANGED', 'CLEARED', None
# What auto-heal decided (heal_state).
HEAL_STARTED, WAITING, NOT_HEALED = 'HEAL_STARTED', 'WAITING', 'NOT_HEALED'


@dataclasses.dataclass(frozen=True)
class AlertChange:
    """One alert as the alarm it raises (``values``: a new alarm row) or,
    resolved, clears at ``cleared_at``."""

    fingerprint: str
    starts_at: datetime.datetime
    values: dict
    cleared_at: datetime.datetime | None = None


# notify(event, alarm row as committed): the outbox rows reporting it.
Notify = Callable[[str, dict], list[dict]]
# The attributes a repeated firing alert may change (annotations, labels).
_MUTABLE = (
    'perceived_severity',
    'probable_cause',
    'fault_type',
    'fault_details',
    'event_type',
)


def alarm_get(alarm_id: str) -> dict:
    """One alarm; NotFound if absent."""
    return crud.one(ALARMS, alarm_id)


def alarm_scan(
    where: dict | None = None, after: str | None = None
) -> Iterator[dict]:
    """Alarms matching ``where``, oldest first, after the alarm ``after``,
    read in chunks (for lists)."""
    return crud.scan(ALARMS, where, after=after)


def alarm_list(where: dict | None = None) -> list[dict]:
    """Alarms matching ``where``, oldest first."""
    return crud.select(ALARMS, where)


def alarms_to_judge(limit: int) -> list[dict]:
    """Uncleared alarms auto-heal has not judged or left WAITING, oldest
    first."""
    stmt = (
        ALARMS.select()
        .where(
            ALARMS.c.alarm_cleared_time.is_(None),
            sa.or_(
                ALARMS.c.heal_state.is_(None),
                ALARMS.c.heal_state == WAITING,
            ),
        )
        .order_by(ALARMS.c.alarm_raised_time)
        .limit(limit)
    )
    with session.reader() as conn:
        return [dict(r._mapping) for r in conn.execute(stmt)]


def alarm_update(
    alarm_id: str,
    values: dict,
    expected: dict | None = None,
    notifications: list[dict] | None = None,
) -> dict:
    """Compare-and-set update of an alarm (and the ``notifications``
    reporting it, in the same transaction)."""
    with session.transaction() as conn:
        row = crud.update(conn, ALARMS, alarm_id, values, expected)
        outbox.insert(conn, notifications)
        return row


def record_alerts(
    changes: Iterable[AlertChange], notify: Notify
) -> list[tuple[str | None, dict | None]]:
    """Record alerts as alarms, in one transaction with their
    notifications; per change what happened (RAISED, CHANGED, CLEARED or
    UNCHANGED) and the alarm (None: a clear of an alarm never raised).
    A concurrent post of the same alerts makes this one start over, and
    then find their alarms (no row locks: MariaDB's gap locks would make
    two posts of a new alert deadlock)."""
    changes = list(changes)
    for _ in range(_ATTEMPTS - 1):
        try:
            return _record(changes, notify)
        except (sa_exc.IntegrityError, exceptions.Conflict):
            continue  # another post won a race: read its alarms again
    return _record(changes, notify)


def _record(
    changes: list[AlertChange], notify: Notify
) -> list[tuple[str | None, dict | None]]:
    """One transaction: one query finds the post's alarms, one statement
    inserts the new ones, updates go one by one (they are rare)."""
    out = []
    new_rows: dict[str, dict] = {}
    notes: list[dict] = []
    with session.transaction() as conn:
        known = _find(conn, changes)
        for change in changes:
            key = (change.fingerprint, change.starts_at)
            event, row = _apply(conn, change, known.get(key), new_rows)
            if row is not None:
                known[key] = row
            if event is not None and row is not None:
                notes += notify(event, row)
            out.append((event, row))
        if new_rows:
            conn.execute(ALARMS.insert(), list(new_rows.values()))
        outbox.insert(conn, notes)
    return out


def _find(
    conn: sa.Connection, changes: list[AlertChange]
) -> dict[tuple, dict]:
    """The alarms of ``changes``' alerts, by (fingerprint, starts_at)."""
    fingerprints = sorted({c.fingerprint for c in changes})
    found: dict[tuple, dict] = {}
    for i in range(0, len(fingerprints), 500):  # bounded IN lists
        stmt = ALARMS.select().where(
            ALARMS.c.fingerprint.in_(fingerprints[i : i + 500])
        )
        for r in conn.execute(stmt):
            row = dict(r._mapping)
            found[(row['fingerprint'], row['starts_at'])] = row
    return found


def _new_row(change: AlertChange) -> dict:
    row: dict = dict.fromkeys(ALARMS.c.keys())
    row.update(
        change.values,
        fingerprint=change.fingerprint,
        starts_at=change.starts_at,
        created_at=change.values.get('alarm_raised_time'),
    )
    return row


def _apply(
    conn: sa.Connection,
    change: AlertChange,
    current: dict | None,
    new_rows: dict[str, dict],
) -> tuple[str | None, dict | None]:
    now = change.values.get('alarm_changed_time')
    if change.cleared_at is not None:
        if current is None or current['alarm_cleared_time'] is not None:
            return UNCHANGED, current
        values = {
            'alarm_cleared_time': change.cleared_at,
            'alarm_changed_time': now,
            'perceived_severity': 'CLEARED',
        }
        return CLEARED, _update(conn, current, values, new_rows)
    if current is None:
        row = _new_row(change)
        new_rows[row['id']] = row
        return RAISED, row
    if current['alarm_cleared_time'] is not None:
        return UNCHANGED, current
    diff = {
        k: change.values[k]
        for k in _MUTABLE
        if k in change.values and change.values[k] != current[k]
    }
    if not diff:
        return UNCHANGED, current
    diff['alarm_changed_time'] = now
    return CHANGED, _update(conn, current, diff, new_rows)


def _update(
    conn: sa.Connection,
    current: dict,
    values: dict,
    new_rows: dict[str, dict],
) -> dict:
    """Change an alarm found in the database, or one this post raises
    (not inserted yet)."""
    if current['id'] in new_rows:
        current.update(values)
        return current
    return crud.update(
        conn, ALARMS, current['id'], values, _unchanged(current)
    )


def _unchanged(current: dict) -> dict:
    """What a compare-and-set of an alarm expects still holds."""
    return {
        'alarm_cleared_time': None,
        'alarm_changed_time': current['alarm_changed_time'],
    }
