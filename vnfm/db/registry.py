"""Queries of the registries next to the LCM data: VIMs and
subscriptions. Rows go in and out as plain dicts (see ``crud``).
"""

from __future__ import annotations

from collections.abc import Iterator

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from vnfm.common import exceptions
from vnfm.db import crud
from vnfm.db import models

VIMS = models.table(models.Vim)
SUBSCRIPTIONS = models.table(models.Subscription)
# The interfaces a subscription belongs to (its ``interface`` column).
VNFLCM, VNFPKGM = 'vnflcm', 'vnfpkgm'
VNFFM = 'vnffm'
# A PM job's or threshold's own callbackUri (no /subscriptions route).
VNFPM = 'vnfpm'


def _vim_project_key(values: dict) -> dict:
    if 'project_id' not in values:
        return values
    return dict(values, project_key=values['project_id'] or '')


def vim_create(values: dict) -> dict:
    """Insert a VIM; Conflict if its name is taken in the project."""
    try:
        return crud.create(
            VIMS, _vim_project_key(dict({'project_id': None}, **values))
        )
    except sa_exc.IntegrityError:
        raise exceptions.AlreadyExists(
            f'A VIM named {values.get("name")!r} already exists.'
        ) from None


def vim_get(vim_id: str) -> dict:
    """One VIM; NotFound if absent."""
    return crud.one(VIMS, vim_id)


def vim_list(where: dict | None = None) -> list[dict]:
    """VIMs matching ``where``."""
    return crud.select(VIMS, where)


def vim_update(
    vim_id: str, values: dict, expected: dict | None = None
) -> dict:
    """Compare-and-set update of a VIM; Conflict if the name is taken."""
    try:
        return crud.cas(VIMS, vim_id, _vim_project_key(values), expected)
    except sa_exc.IntegrityError:
        raise exceptions.AlreadyExists(
            f'A VIM named {values.get("name")!r} already exists.'
        ) from None


def vim_delete(vim_id: str) -> None:
    """Delete a VIM."""
    crud.remove(VIMS, vim_id)


def _foreign_vim(
    vim_id: str, project_id: str | None
) -> exceptions.OperationFailed:
    return exceptions.OperationFailed(
        f'VIM {vim_id} is not a VIM of project {project_id}: a hook '
        "registers, changes and deletes only VIMs of its VNF instance's "
        'project. Nothing was written.'
    )


def vims_apply(
    conn: sa.Connection,
    vims: dict[str, dict | None],
    project_id: str | None,
) -> None:
    """Write VIM rows of ``project_id`` by id within ``conn``'s
    transaction: insert or update a row, delete (if present) for None;
    OperationFailed when an id is another project's VIM or a name is taken
    in the project, so the caller's transaction rolls back."""
    key = project_id or ''
    for vim_id, row in vims.items():
        stmt = sa.select(VIMS.c.project_key).where(VIMS.c.id == vim_id)
        found = conn.execute(stmt).first()
        if found is not None and found.project_key != key:
            raise _foreign_vim(vim_id, project_id)
        if row is None:
            if found is not None:
                crud.delete(conn, VIMS, vim_id, None)
            continue
        values = _vim_project_key(dict(row, project_id=project_id))
        try:
            if found is not None:
                crud.update(conn, VIMS, vim_id, values, None)
            else:
                crud.insert(conn, VIMS, values)
        except sa_exc.IntegrityError:
            raise exceptions.OperationFailed(
                f'Cannot register VIM {vim_id}: a VIM named '
                f'{row["name"]!r} already exists in project '
                f'{project_id}; delete or rename it, then retry.'
            ) from None


def subscription_create(values: dict) -> dict:
    """Insert a subscription."""
    return crud.create(SUBSCRIPTIONS, values)


def subscription_get(subscription_id: str) -> dict:
    """One subscription; NotFound if absent."""
    return crud.one(SUBSCRIPTIONS, subscription_id)


def subscription_list(where: dict | None = None) -> list[dict]:
    """Subscriptions matching ``where``."""
    return crud.select(SUBSCRIPTIONS, where)


def subscription_scan(
    where: dict | None = None, after: str | None = None
) -> Iterator[dict]:
    """Subscriptions matching ``where``, oldest first, after the
    subscription ``after``, read in chunks (for lists)."""
    return crud.scan(SUBSCRIPTIONS, where, after=after)


def subscription_update(subscription_id: str, values: dict) -> dict:
    """Change a subscription (a PM job's callbackUri, authentication)."""
    return crud.cas(SUBSCRIPTIONS, subscription_id, values)


def subscription_delete(subscription_id: str) -> None:
    """Delete a subscription."""
    crud.remove(SUBSCRIPTIONS, subscription_id)
