"""The notification outbox: rows written in the transaction of the change
they report, claimed and finished by the conductors that deliver them.

A row is due when it is PENDING, its ``next_attempt_at`` has come, nobody
holds a live claim on it, and no earlier PENDING row of the same
subscription exists: each subscription gets its notifications one at a
time, in ``seq`` (commit) order.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable

import sqlalchemy as sa

from vnfm.common import timeutils
from vnfm.db import crud
from vnfm.db import models
from vnfm.db import session

NOTIFICATIONS = models.table(models.Notification)
SUBSCRIPTIONS = models.table(models.Subscription)
PENDING, DELIVERED, FAILED = 'PENDING', 'DELIVERED', 'FAILED'
_N = NOTIFICATIONS


def insert(conn: sa.Connection, rows: Iterable[dict] | None) -> int:
    """Add ``rows`` (id, subscription_id, notification_type, payload) in
    the caller's transaction; rows of subscriptions deleted meanwhile are
    skipped. How many were added."""
    rows = list(rows or ())
    if not rows:
        return 0
    # Shared locks: a concurrent delete of a subscription either committed
    # before (its rows are skipped, no foreign-key error fails the state
    # change) or waits for this commit and cascades over the new rows.
    wanted = {r['subscription_id'] for r in rows}
    live = set(
        conn.execute(
            sa.select(SUBSCRIPTIONS.c.id)
            .where(SUBSCRIPTIONS.c.id.in_(wanted))
            .with_for_update(read=True)
        ).scalars()
    )
    now = timeutils.utcnow()
    values = [
        {
            'id': r['id'],
            'subscription_id': r['subscription_id'],
            'notification_type': r['notification_type'],
            'payload': r['payload'],
            'state': PENDING,
            'attempts': 0,
            'next_attempt_at': now,
            'created_at': now,
        }
        for r in rows
        if r['subscription_id'] in live
    ]
    for value in values:  # one by one: seq follows the list order
        conn.execute(_N.insert().values(value))
    return len(values)


def _unclaimed(now: datetime.datetime) -> sa.ColumnElement[bool]:
    return sa.or_(_N.c.owner.is_(None), _N.c.lease_expires_at < now)


def _due(now: datetime.datetime, limit: int) -> sa.Select:
    earlier = _N.alias('earlier')
    blocked = sa.exists().where(
        earlier.c.subscription_id == _N.c.subscription_id,
        earlier.c.state == PENDING,
        earlier.c.seq < _N.c.seq,
    )
    return (
        sa.select(_N.c.seq)
        .where(
            _N.c.state == PENDING,
            _N.c.next_attempt_at <= now,
            _unclaimed(now),
            ~blocked,
        )
        .order_by(_N.c.seq)
        .limit(limit)
    )


def claim_due(
    owner: str, now: datetime.datetime, until: datetime.datetime, limit: int
) -> list[dict]:
    """Claim up to ``limit`` due rows for ``owner`` until ``until``; each
    comes with its subscription's callback_uri, authentication (encrypted),
    api_version and interface."""
    with session.reader() as conn:
        seqs = list(conn.execute(_due(now, limit)).scalars())
    claimed = []
    for seq in seqs:
        stmt = (
            _N.update()
            .where(_N.c.seq == seq, _N.c.state == PENDING, _unclaimed(now))
            .values(owner=owner, lease_expires_at=until)
        )
        with session.transaction() as conn:
            if conn.execute(stmt).rowcount == 1:
                claimed.append(_with_subscription(conn, seq))
    return [row for row in claimed if row is not None]


def _with_subscription(conn: sa.Connection, seq: int) -> dict | None:
    stmt = (
        sa.select(
            _N,
            SUBSCRIPTIONS.c.callback_uri,
            SUBSCRIPTIONS.c.authentication,
            SUBSCRIPTIONS.c.api_version,
            SUBSCRIPTIONS.c.interface,
        )
        .join(SUBSCRIPTIONS, SUBSCRIPTIONS.c.id == _N.c.subscription_id)
        .where(_N.c.seq == seq)
    )
    row = conn.execute(stmt).first()
    return dict(row._mapping) if row is not None else None


def release_of_host(host: str, owner: str) -> int:
    """Release the rows that processes of conductor ``host`` other than
    ``owner`` claimed (a restart: the earlier process is gone); they are
    due again at once. How many."""
    stmt = (
        _N.update()
        .where(
            _N.c.state == PENDING,
            _N.c.owner != owner,
            crud.owned_by_host(_N.c.owner, host),
        )
        .values(owner=None, lease_expires_at=None)
    )
    with session.transaction() as conn:
        return conn.execute(stmt).rowcount


def finish(seq: int, owner: str, values: dict) -> bool:
    """Record an attempt's outcome (``values``) and release the claim, if
    ``owner`` still holds it; False if it lost the row (or the
    subscription was deleted)."""
    stmt = (
        _N.update()
        .where(_N.c.seq == seq, _N.c.owner == owner, _N.c.state == PENDING)
        .values(dict(values, owner=None, lease_expires_at=None))
    )
    with session.transaction() as conn:
        return conn.execute(stmt).rowcount == 1


def purge(finished_before: datetime.datetime) -> int:
    """Delete the rows delivered or given up before the given time."""
    stmt = _N.delete().where(
        _N.c.state.in_([DELIVERED, FAILED]), _N.c.finished_at < finished_before
    )
    with session.transaction() as conn:
        return conn.execute(stmt).rowcount


def notification_list(where: dict | None = None) -> list[dict]:
    """Outbox rows matching ``where`` (column → value), in seq order."""
    clauses = [_N.c[k] == v for k, v in (where or {}).items()]
    stmt = _N.select().where(*clauses).order_by(_N.c.seq)
    with session.reader() as conn:
        return [dict(r._mapping) for r in conn.execute(stmt)]
