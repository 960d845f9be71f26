"""Rows of any vnfm table as plain dicts: insert, get, compare-and-set
update and delete, select. ``api`` and ``registry`` build their queries on
these.

Every update is a compare-and-set: ``expected`` maps columns to the values
they must still have (a list means "one of", ``None`` means NULL). A lost race
raises ``Conflict``; a missing row raises ``NotFound``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator
from typing import Any

import sqlalchemy as sa

from vnfm.common import exceptions
from vnfm.common import timeutils
from vnfm.db import models
from vnfm.db import session

_WHAT = {
    models.table(models.VnfPackage): 'VNF package',
    models.table(models.VnfInstance): 'VNF instance',
    models.table(models.VnfLcmOpOcc): 'VNF LCM operation occurrence',
    models.table(models.Vim): 'VIM',
    models.table(models.Subscription): 'Subscription',
    models.table(models.Alarm): 'Alarm',
    models.table(models.PmJob): 'PM job',
    models.table(models.PmReport): 'Performance report',
    models.table(models.Threshold): 'Threshold',
}


def new_id() -> str:
    """A new resource identifier."""
    return str(uuid.uuid4())


def where(table: sa.Table, expected: dict | None) -> list:
    """WHERE clauses: each column of ``expected`` has its value (a list:
    one of them; None: NULL)."""
    clauses = []
    for column, value in (expected or {}).items():
        col = table.c[column]
        if value is None:
            clauses.append(col.is_(None))
        elif isinstance(value, (list, tuple, set, frozenset)):
            clauses.append(col.in_([getattr(v, 'value', v) for v in value]))
        else:
            clauses.append(col == getattr(value, 'value', value))
    return clauses


def plain(values: dict) -> dict:
    """``values`` with enum members replaced by their values."""
    return {
        k: getattr(v, 'value', v) if not isinstance(v, (dict, list)) else v
        for k, v in values.items()
    }


def insert(conn: sa.Connection, table: sa.Table, values: dict) -> dict:
    """Insert a row with a new id and created_at; the row."""
    now = timeutils.utcnow()
    row: dict[str, Any] = {'id': new_id(), 'created_at': now}
    row.update(plain(values))
    conn.execute(table.insert().values(row))
    return get(conn, table, row['id'])


def get(conn: sa.Connection, table: sa.Table, id_: str) -> dict:
    """One row; NotFound if absent."""
    row = conn.execute(table.select().where(table.c.id == id_)).first()
    if row is None:
        raise exceptions.NotFound(f'{_WHAT[table]} {id_} does not exist.')
    return dict(row._mapping)


def update(
    conn: sa.Connection,
    table: sa.Table,
    id_: str,
    values: dict,
    expected: dict | None,
) -> dict:
    """Compare-and-set update of one row; the row after it."""
    values = dict(plain(values), updated_at=timeutils.utcnow())
    stmt = (
        table.update()
        .where(table.c.id == id_, *where(table, expected))
        .values(values)
    )
    if conn.execute(stmt).rowcount != 1:
        current = get(conn, table, id_)  # NotFound if it is gone
        raise exceptions.ConcurrentUpdate(
            lost_race(table, id_, expected, current)
        )
    return get(conn, table, id_)


def lock(conn: sa.Connection, table: sa.Table, id_: str) -> None:
    """Lock one row for the rest of the transaction (SELECT ... FOR UPDATE);
    NotFound if it is gone."""
    stmt = sa.select(table.c.id).where(table.c.id == id_).with_for_update()
    if conn.execute(stmt).first() is None:
        get(conn, table, id_)  # raises NotFound


def lost_race(
    table: sa.Table, id_: str, expected: dict | None, current: dict
) -> str:
    """The Conflict message of a compare-and-set that lost a race."""
    expected = expected or {}
    diffs = [
        f'{k} is {current[k]!r}'
        for k in expected
        if not _matches(current[k], expected[k])
    ]
    return (
        f'{_WHAT[table]} {id_} changed meanwhile: '
        f'{", ".join(diffs) or "it was updated concurrently"}.'
    )


def _matches(value: object, expected: object) -> bool:
    if isinstance(expected, (list, tuple, set, frozenset)):
        return value in [getattr(v, 'value', v) for v in expected]
    return value == getattr(expected, 'value', expected)


def delete(
    conn: sa.Connection, table: sa.Table, id_: str, expected: dict | None
) -> None:
    """Compare-and-set delete of one row."""
    stmt = table.delete().where(table.c.id == id_, *where(table, expected))
    if conn.execute(stmt).rowcount != 1:
        current = get(conn, table, id_)
        raise exceptions.ConcurrentUpdate(
            lost_race(table, id_, expected, current)
        )


def select(
    table: sa.Table,
    match: dict | None = None,
    order_by: str = 'created_at',
    columns: Iterable[str] | None = None,
) -> list[dict]:
    """Rows matching ``match``, ordered by ``order_by`` (then id)."""
    # ``columns``: only these (lists that skip large JSON columns).
    selected = [table.c[c] for c in columns] if columns else [table]
    stmt = (
        sa.select(*selected)
        .where(*where(table, match))
        .order_by(table.c[order_by], table.c.id)
    )
    with session.reader() as conn:
        result = conn.execute(stmt)
        keys = list(result.keys())
        # One fetchall, not a fetch per row: lists are the hot read path.
        return [dict(zip(keys, r, strict=True)) for r in result.all()]


def scan(
    table: sa.Table,
    match: dict | None = None,
    order_by: str = 'created_at',
    columns: Iterable[str] | None = None,
    after: str | None = None,
    chunk: int = 128,
    max_chunk: int = 1024,
) -> Iterator[dict]:
    """Rows matching ``match`` in ``select``'s order, starting after the
    row ``after`` (an id), read a chunk per query so a long list is never
    held whole; BadRequest if ``after`` names no row.

    The first chunk holds a default page and one more row; each next one
    doubles, up to ``max_chunk``, for readers that skip rows (filters).
    """
    wanted = list(columns) if columns else None
    if wanted is not None:
        wanted += [c for c in (order_by, 'id') if c not in wanted]
    selected = [table.c[c] for c in wanted] if wanted else [table]
    key = _scan_start(table, order_by, after)
    while True:
        stmt = sa.select(*selected).where(*where(table, match))
        if key is not None:
            col = table.c[order_by]
            stmt = stmt.where(
                sa.or_(
                    col > key[0], sa.and_(col == key[0], table.c.id > key[1])
                )
            )
        stmt = stmt.order_by(table.c[order_by], table.c.id).limit(chunk)
        with session.reader() as conn:
            result = conn.execute(stmt)
            names = list(result.keys())
            rows = [dict(zip(names, r, strict=True)) for r in result.all()]
        yield from rows
        if len(rows) < chunk:
            return
        key = (rows[-1][order_by], rows[-1]['id'])
        chunk = min(chunk * 2, max_chunk)


def _scan_start(
    table: sa.Table, order_by: str, after: str | None
) -> tuple | None:
    if after is None:
        return None
    stmt = sa.select(table.c[order_by], table.c.id).where(table.c.id == after)
    with session.reader() as conn:
        row = conn.execute(stmt).first()
    if row is None:
        raise exceptions.BadRequest(
            f'Invalid nextpage_opaque_marker {after!r}: no such item; list '
            f'again from the first page.'
        )
    return tuple(row)


def one(table: sa.Table, id_: str) -> dict:
    """One row, in its own read; NotFound if absent."""
    with session.reader() as conn:
        return get(conn, table, id_)


def create(table: sa.Table, values: dict) -> dict:
    """Insert a row in its own transaction."""
    with session.transaction() as conn:
        return insert(conn, table, values)


def cas(
    table: sa.Table, id_: str, values: dict, expected: dict | None = None
) -> dict:
    """Compare-and-set update in its own transaction."""
    with session.transaction() as conn:
        return update(conn, table, id_, values, expected)


def remove(table: sa.Table, id_: str, expected: dict | None = None) -> None:
    """Compare-and-set delete in its own transaction."""
    with session.transaction() as conn:
        delete(conn, table, id_, expected)


def owned_by_host(owner: sa.Column, host: str) -> sa.ColumnElement[bool]:
    """``owner`` names a process of conductor ``host``: ``host`` itself
    (rows from before process ids) or ``host/<process>``."""
    return sa.or_(owner == host, owner.startswith(host + '/', autoescape=True))
