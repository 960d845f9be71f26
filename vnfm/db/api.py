"""Queries of vnfm's packages, instances and LCM operation occurrences.
Rows go in and out as plain dicts keyed by column name (VIMs and
subscriptions: ``registry``).

Every update is a compare-and-set: ``expected`` maps columns to the values
they must still have (a list means "one of", ``None`` means NULL). A lost race
raises ``Conflict``; a missing row raises ``NotFound``.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Iterator
from typing import cast

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from vnfm.common import exceptions
from vnfm.common import timeutils
from vnfm.db import crud
from vnfm.db import models
from vnfm.db import outbox
from vnfm.db import registry
from vnfm.db import session
from vnfm.db.rows import InstanceRow
from vnfm.db.rows import OpRow
from vnfm.db.rows import PackageRow

PACKAGES = models.table(models.VnfPackage)
CHUNKS = models.table(models.VnfPackageChunk)
INSTANCES = models.table(models.VnfInstance)
OPS = models.table(models.VnfLcmOpOcc)

CHUNK_SIZE = 1024 * 1024
new_id = crud.new_id  # callers take new ids from here


# -- VNF packages ------------------------------------------------------------


def package_create(values: dict) -> PackageRow:
    """Insert a package row."""
    return cast(PackageRow, crud.create(PACKAGES, values))


def package_get(package_id: str) -> PackageRow:
    """One package; NotFound if absent."""
    return cast(PackageRow, crud.one(PACKAGES, package_id))


def package_list(
    where: dict | None = None, columns: Iterable[str] | None = None
) -> list[dict]:
    """Packages matching ``where`` (column → value), oldest first."""
    return crud.select(PACKAGES, where, columns=columns)


def package_scan(
    where: dict | None = None,
    columns: Iterable[str] | None = None,
    after: str | None = None,
) -> Iterator[dict]:
    """Packages matching ``where``, oldest first, after the package
    ``after``, read in chunks (for lists)."""
    return crud.scan(PACKAGES, where, columns=columns, after=after)


def package_update(
    package_id: str,
    values: dict,
    expected: dict | None = None,
    notifications: list[dict] | None = None,
) -> PackageRow:
    """Compare-and-set update of a package (and the ``notifications``
    reporting it, in the same transaction)."""
    try:
        with session.transaction() as conn:
            row = crud.update(conn, PACKAGES, package_id, values, expected)
            outbox.insert(conn, notifications)
            return cast(PackageRow, row)
    except sa_exc.IntegrityError as e:
        if 'vnfd_id' in values:
            raise exceptions.AlreadyExists(
                f'A package with vnfdId {values["vnfd_id"]} is already '
                f'onboarded; delete it first or use a VNFD with another '
                f'descriptor_id.'
            ) from e
        raise


def package_delete(
    package_id: str,
    expected: dict | None = None,
    notifications: list[dict] | None = None,
) -> None:
    """Delete a package and its content, if ``expected`` still holds (and
    record the ``notifications`` reporting it, in the same transaction)."""
    with session.transaction() as conn:
        crud.delete(conn, PACKAGES, package_id, expected)
        outbox.insert(conn, notifications)


def package_get_by_vnfd_id(vnfd_id: str) -> PackageRow | None:
    """The package that onboarded ``vnfd_id``, if any."""
    rows = crud.select(PACKAGES, {'vnfd_id': vnfd_id})
    return cast(PackageRow, rows[0]) if rows else None


def package_content_put(package_id: str, data: bytes) -> None:
    """Store the package zip (replacing any earlier content)."""
    with session.transaction() as conn:
        conn.execute(CHUNKS.delete().where(CHUNKS.c.package_id == package_id))
        rows = [
            {
                'package_id': package_id,
                'seq': i // CHUNK_SIZE,
                'data': data[i : i + CHUNK_SIZE],
            }
            for i in range(0, len(data), CHUNK_SIZE)
        ]
        for row in rows:  # one by one: keep each packet small (MariaDB)
            conn.execute(CHUNKS.insert().values(row))


def package_content_get(package_id: str) -> bytes:
    """The stored package zip; NotFound if none was stored."""
    stmt = (
        sa.select(CHUNKS.c.data)
        .where(CHUNKS.c.package_id == package_id)
        .order_by(CHUNKS.c.seq)
    )
    with session.reader() as conn:
        parts = [r.data for r in conn.execute(stmt)]
    if not parts:
        raise exceptions.NotFound(
            f'VNF package {package_id} has no content uploaded.'
        )
    return b''.join(parts)


# -- VNF instances -----------------------------------------------------------


def instance_create(
    values: dict, notifications: list[dict] | None = None
) -> InstanceRow:
    """Insert an instance row (and the ``notifications`` reporting it, in
    the same transaction)."""
    with session.transaction() as conn:
        row = crud.insert(conn, INSTANCES, values)
        outbox.insert(conn, notifications)
        return cast(InstanceRow, row)


def instance_get(instance_id: str) -> InstanceRow:
    """One instance; NotFound if absent."""
    return cast(InstanceRow, crud.one(INSTANCES, instance_id))


def instance_list(
    where: dict | None = None, columns: Iterable[str] | None = None
) -> list[dict]:
    """Instances matching ``where``, oldest first."""
    return crud.select(INSTANCES, where, columns=columns)


def instance_scan(
    where: dict | None = None,
    columns: Iterable[str] | None = None,
    after: str | None = None,
) -> Iterator[dict]:
    """Instances matching ``where``, oldest first, after the instance
    ``after``, read in chunks (for lists)."""
    return crud.scan(INSTANCES, where, columns=columns, after=after)


def instance_update(
    instance_id: str, values: dict, expected: dict | None = None
) -> InstanceRow:
    """Compare-and-set update of an instance."""
    return cast(
        InstanceRow, crud.cas(INSTANCES, instance_id, values, expected)
    )


def instance_update_if_idle(
    instance_id: str, values: dict, expected: dict | None = None
) -> InstanceRow:
    """Compare-and-set update of an instance that has no unfinished op:
    Conflict if ``expected`` no longer holds or an op is in progress."""
    busy = sa.exists().where(OPS.c.active_instance_id == instance_id)
    stmt = (
        INSTANCES.update()
        .where(
            INSTANCES.c.id == instance_id,
            *crud.where(INSTANCES, expected),
            ~busy,
        )
        .values(dict(crud.plain(values), updated_at=timeutils.utcnow()))
    )
    with session.transaction() as conn:
        if conn.execute(stmt).rowcount == 1:
            return cast(InstanceRow, crud.get(conn, INSTANCES, instance_id))
        current = crud.get(conn, INSTANCES, instance_id)  # NotFound if gone
        op = _active_op(conn, instance_id)
        if op['id'] != '?':
            raise exceptions.OpInProgress(
                f'VNF instance {instance_id} has operation {op["id"]} '
                f'({op["operation"]}) in state {op["operation_state"]}.'
            )
        raise exceptions.ConcurrentUpdate(
            crud.lost_race(INSTANCES, instance_id, expected, current)
        )


def instance_delete(
    instance_id: str, notifications: list[dict] | None = None
) -> None:
    """Delete a NOT_INSTANTIATED instance that has no unfinished op (and
    record the ``notifications`` reporting it, in the same transaction)."""
    busy = sa.exists().where(OPS.c.active_instance_id == instance_id)
    stmt = INSTANCES.delete().where(
        INSTANCES.c.id == instance_id,
        INSTANCES.c.instantiation_state == 'NOT_INSTANTIATED',
        ~busy,
    )
    with session.transaction() as conn:
        # Lock the row first: an op being started holds it until its commit,
        # and only a statement begun after that sees the new op (READ
        # COMMITTED), so the delete cannot cascade over a just-started op.
        conn.execute(
            sa.select(INSTANCES.c.id)
            .where(INSTANCES.c.id == instance_id)
            .with_for_update()
        )
        if conn.execute(stmt).rowcount == 1:
            outbox.insert(conn, notifications)
            return
        current = crud.get(conn, INSTANCES, instance_id)
        if current['instantiation_state'] != 'NOT_INSTANTIATED':
            raise exceptions.InstanceStateConflict(
                f'VNF instance {instance_id} is '
                f'{current["instantiation_state"]}; terminate it before '
                f'deleting it.'
            )
        op = _active_op(conn, instance_id)
        raise exceptions.OpInProgress(
            f'VNF instance {instance_id} has operation {op["id"]} '
            f'({op["operation"]}) in state {op["operation_state"]}; finish, '
            f'roll back or fail it before deleting the instance.'
        )


def instance_count_by_package(package_id: str) -> int:
    """How many instances use ``package_id``."""
    stmt = (
        sa.select(sa.func.count())
        .select_from(INSTANCES)
        .where(INSTANCES.c.vnf_pkg_id == package_id)
    )
    with session.reader() as conn:
        return conn.execute(stmt).scalar_one()


# -- LCM operation occurrences ---------------------------------------------


def _active_op(conn: sa.Connection, instance_id: str) -> dict:
    row = conn.execute(
        OPS.select().where(OPS.c.active_instance_id == instance_id)
    ).first()
    return (
        dict(row._mapping)
        if row
        else {'id': '?', 'operation': '?', 'operation_state': '?'}
    )


def op_create(
    values: dict,
    instance_expected: dict | None = None,
    instance_values: dict | None = None,
    notifications: list[dict] | None = None,
) -> OpRow:
    """Start an op on an instance: at most one unfinished op per instance.

    In one transaction the instance is checked against ``instance_expected``
    (and updated with ``instance_values``), and the op row is inserted with
    ``active_instance_id`` set, so a concurrent op on the same instance gets
    Conflict whatever the operation. ``notifications`` (outbox rows) are
    recorded in the same transaction.
    """
    instance_id = values['vnf_instance_id']
    now = timeutils.utcnow()
    row = dict(
        values,
        active_instance_id=instance_id,
        state_entered_time=values.get('state_entered_time', now),
        start_time=values.get('start_time', now),
    )
    try:
        with session.transaction() as conn:
            crud.update(
                conn,
                INSTANCES,
                instance_id,
                instance_values or {},
                instance_expected,
            )
            op = crud.insert(conn, OPS, row)
            outbox.insert(conn, notifications)
            return cast(OpRow, op)
    except sa_exc.IntegrityError:
        with session.reader() as conn:
            op = _active_op(conn, instance_id)
        raise exceptions.OpInProgress(
            f'VNF instance {instance_id} already has operation {op["id"]} '
            f'({op["operation"]}) in state {op["operation_state"]}; only one '
            f'operation may run on an instance at a time.'
        ) from None


def op_get(op_id: str) -> OpRow:
    """One op occurrence; NotFound if absent."""
    return cast(OpRow, crud.one(OPS, op_id))


def op_list(
    where: dict | None = None, columns: Iterable[str] | None = None
) -> list[dict]:
    """Op occurrences matching ``where``, oldest first."""
    return crud.select(OPS, where, order_by='start_time', columns=columns)


def op_scan(
    where: dict | None = None,
    columns: Iterable[str] | None = None,
    after: str | None = None,
) -> Iterator[dict]:
    """Op occurrences matching ``where``, oldest first, after the op
    ``after``, read in chunks (for lists)."""
    return crud.scan(
        OPS, where, order_by='start_time', columns=columns, after=after
    )


def _op_instance(conn: sa.Connection, op_id: str) -> str:
    instance_id = conn.execute(
        sa.select(OPS.c.vnf_instance_id).where(OPS.c.id == op_id)
    ).scalar()
    if instance_id is None:
        crud.get(conn, OPS, op_id)  # raises NotFound
    return str(instance_id)


def _project_of(conn: sa.Connection, instance_id: str) -> str | None:
    """The project of a VNF instance (the VIMs its hooks may write)."""
    return conn.execute(
        sa.select(INSTANCES.c.project_id).where(INSTANCES.c.id == instance_id)
    ).scalar()


def op_update(
    op_id: str,
    values: dict,
    expected: dict | None = None,
    instance_id: str | None = None,
    instance_values: dict | None = None,
    instance_expected: dict | None = None,
    notifications: list[dict] | None = None,
    vims: dict[str, dict | None] | None = None,
) -> OpRow:
    """Compare-and-set update of an op, and of its instance in the same
    transaction when ``instance_values`` is given; ``notifications``
    (outbox rows) and ``vims`` (VIM rows to write, None: delete, by id)
    are recorded in that transaction too."""
    with session.transaction() as conn:
        if instance_values is not None:
            # Lock the instance before the op, the order op_create takes
            # (instance row, then the op's unique active_instance_id): the
            # other order deadlocks against a new op on the same instance.
            instance_id = instance_id or _op_instance(conn, op_id)
            crud.lock(conn, INSTANCES, instance_id)
        op = crud.update(conn, OPS, op_id, values, expected)
        instance_id = instance_id or op['vnf_instance_id']
        if vims:
            registry.vims_apply(conn, vims, _project_of(conn, instance_id))
        if instance_values is not None:
            crud.update(
                conn,
                INSTANCES,
                instance_id,
                instance_values,
                instance_expected,
            )
        outbox.insert(conn, notifications)
        return cast(OpRow, op)


def op_renew_leases(
    owner: str,
    op_ids: Iterable[str],
    until: datetime.datetime,
    states: Iterable[str],
) -> int:
    """Extend the lease of the ops among ``op_ids`` that ``owner`` holds in
    ``states``; how many."""
    op_ids = list(op_ids)
    if not op_ids:
        return 0
    stmt = (
        OPS.update()
        .where(
            OPS.c.owner == owner,
            OPS.c.id.in_(op_ids),
            OPS.c.operation_state.in_(list(states)),
        )
        .values(lease_expires_at=until)
    )
    with session.transaction() as conn:
        return conn.execute(stmt).rowcount


def op_find_of_host(host: str, states: Iterable[str]) -> list[OpRow]:
    """Ops in ``states`` owned by any process of conductor ``host`` (owner
    ``host`` or ``host/<process>``)."""
    stmt = OPS.select().where(
        crud.owned_by_host(OPS.c.owner, host),
        OPS.c.operation_state.in_(list(states)),
    )
    with session.reader() as conn:
        return [cast(OpRow, dict(r._mapping)) for r in conn.execute(stmt)]


def op_find_expired(
    now: datetime.datetime, states: Iterable[str]
) -> list[OpRow]:
    """Ops in ``states`` whose owner's lease ran out before ``now``."""
    stmt = OPS.select().where(
        OPS.c.owner.is_not(None),
        OPS.c.lease_expires_at < now,
        OPS.c.operation_state.in_(list(states)),
    )
    with session.reader() as conn:
        return [cast(OpRow, dict(r._mapping)) for r in conn.execute(stmt)]


def op_find_unclaimed(
    entered_before: datetime.datetime,
    states: Iterable[str],
    limit: int | None = None,
) -> list[OpRow]:
    """Ops in ``states`` nobody owns, waiting since before the given time;
    the ``limit`` longest waiting if given."""
    stmt = (
        OPS.select()
        .where(
            OPS.c.owner.is_(None),
            OPS.c.state_entered_time < entered_before,
            OPS.c.operation_state.in_(list(states)),
        )
        .order_by(OPS.c.state_entered_time)
        .limit(limit)
    )
    with session.reader() as conn:
        return [cast(OpRow, dict(r._mapping)) for r in conn.execute(stmt)]
