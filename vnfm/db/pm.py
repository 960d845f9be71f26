"""Queries of VNF performance management: PM jobs and their reports
(rows as plain dicts, see ``crud``).

A PM job owns a subscription row (interface ``vnfpm``) holding its
callbackUri and authentication: the outbox delivers through it, and
deleting it deletes the job, its reports and its undelivered
notifications.
"""

from __future__ import annotations

from collections.abc import Iterator

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from vnfm.common import exceptions
from vnfm.db import crud
from vnfm.db import models
from vnfm.db import outbox
from vnfm.db import session

PM_JOBS = models.table(models.PmJob)
PM_REPORTS = models.table(models.PmReport)
SUBSCRIPTIONS = models.table(models.Subscription)
THRESHOLDS = models.table(models.Threshold)


def _create(table: sa.Table, values: dict, subscription: dict) -> dict:
    with session.transaction() as conn:
        sub = crud.insert(conn, SUBSCRIPTIONS, subscription)
        return crud.insert(
            conn, table, dict(values, subscription_id=sub['id'])
        )


def _delete(table: sa.Table, row: dict) -> None:
    with session.transaction() as conn:
        crud.delete(conn, table, row['id'], None)
        crud.delete(conn, SUBSCRIPTIONS, row['subscription_id'], None)


def job_create(values: dict, subscription: dict) -> dict:
    """Insert a PM job and its subscription row in one transaction."""
    return _create(PM_JOBS, values, subscription)


def job_get(job_id: str) -> dict:
    """One PM job; NotFound if absent."""
    return crud.one(PM_JOBS, job_id)


def job_list(where: dict | None = None) -> list[dict]:
    """PM jobs matching ``where``, oldest first."""
    return crud.select(PM_JOBS, where)


def job_scan(
    where: dict | None = None, after: str | None = None
) -> Iterator[dict]:
    """PM jobs matching ``where``, oldest first, after the job ``after``,
    read in chunks (for lists)."""
    return crud.scan(PM_JOBS, where, after=after)


def job_delete(job: dict) -> None:
    """Delete a PM job (with its subscription row, reports and pending
    notifications)."""
    _delete(PM_JOBS, job)


def threshold_create(values: dict, subscription: dict) -> dict:
    """Insert a threshold and its subscription row in one transaction."""
    return _create(THRESHOLDS, values, subscription)


def threshold_get(threshold_id: str) -> dict:
    """One threshold; NotFound if absent."""
    return crud.one(THRESHOLDS, threshold_id)


def threshold_list(where: dict | None = None) -> list[dict]:
    """Thresholds matching ``where``, oldest first."""
    return crud.select(THRESHOLDS, where)


def threshold_scan(
    where: dict | None = None, after: str | None = None
) -> Iterator[dict]:
    """Thresholds matching ``where``, oldest first, after ``after``, read
    in chunks (for lists)."""
    return crud.scan(THRESHOLDS, where, after=after)


def threshold_delete(threshold: dict) -> None:
    """Delete a threshold with its subscription row and pending
    notifications."""
    _delete(THRESHOLDS, threshold)


def threshold_cross(
    threshold: dict, values: dict, notifications: list[dict]
) -> dict:
    """Record a crossing (compare-and-set on the side it was on, so one
    crossing is reported once) with its notifications; Conflict if
    another post recorded it first."""
    with session.transaction() as conn:
        row = crud.update(
            conn,
            THRESHOLDS,
            threshold['id'],
            values,
            {'crossing_state': threshold['crossing_state']},
        )
        outbox.insert(conn, notifications)
        return row


def threshold_record(threshold_id: str, values: dict) -> None:
    """Change a threshold's bookkeeping (auto-scale's decision)."""
    crud.cas(THRESHOLDS, threshold_id, values)


def report_add(
    values: dict, notifications: list[dict], keep: int
) -> dict | None:
    """Insert a report with the ``notifications`` announcing it, and keep
    the job's ``keep`` newest reports; None if the job already has the
    report of that alert group (a retried post) or is gone."""
    try:
        with session.transaction() as conn:
            conn.execute(PM_REPORTS.insert().values(values))
            outbox.insert(conn, notifications)
            _trim(conn, values['pm_job_id'], keep)
    except sa_exc.IntegrityError:
        return None
    return values


def _trim(conn: sa.Connection, job_id: str, keep: int) -> None:
    newest = (
        sa.select(PM_REPORTS.c.id)
        .where(PM_REPORTS.c.pm_job_id == job_id)
        .order_by(PM_REPORTS.c.created_at.desc(), PM_REPORTS.c.id.desc())
        .limit(keep)
    )
    kept = [r.id for r in conn.execute(newest)]
    conn.execute(
        PM_REPORTS.delete().where(
            PM_REPORTS.c.pm_job_id == job_id, PM_REPORTS.c.id.not_in(kept)
        )
    )


def report_get(job_id: str, report_id: str) -> dict:
    """One report of a PM job; NotFound if absent."""
    row = crud.one(PM_REPORTS, report_id)
    if row['pm_job_id'] != job_id:
        raise exceptions.NotFound(
            f'PM job {job_id} has no performance report {report_id}.'
        )
    return row


def reports_of(job_id: str) -> list[dict]:
    """The reports of a PM job, oldest first (id, created_at,
    expiry_time)."""
    stmt = (
        sa.select(
            PM_REPORTS.c.id,
            PM_REPORTS.c.created_at,
            PM_REPORTS.c.expiry_time,
        )
        .where(PM_REPORTS.c.pm_job_id == job_id)
        .order_by(PM_REPORTS.c.created_at, PM_REPORTS.c.id)
    )
    with session.reader() as conn:
        return [dict(r._mapping) for r in conn.execute(stmt)]
