"""Rows as dicts on SQLite: every update and delete is a compare-and-set
whose lost race says what changed; lists are read in chunks in a stable
order."""

from __future__ import annotations

import enum

import pytest
import sqlalchemy as sa

from vnfm.common import exceptions
from vnfm.db import crud
from vnfm.db import models
from vnfm.db import session

PACKAGES = models.table(models.VnfPackage)

pytestmark = pytest.mark.usefixtures('db_url')


class Onboarding(enum.Enum):
    CREATED = 'CREATED'
    ONBOARDED = 'ONBOARDED'


def package(**values: object) -> dict:
    row = {
        'onboarding_state': 'CREATED',
        'operational_state': 'DISABLED',
        'usage_state': 'NOT_IN_USE',
    }
    return crud.create(PACKAGES, dict(row, **values))


def test_a_created_row_has_an_id_and_a_creation_time():
    row = package(onboarding_state=Onboarding.CREATED)

    assert len(row['id']) == 36 and row['created_at'] is not None
    assert row['onboarding_state'] == 'CREATED'
    assert crud.one(PACKAGES, row['id']) == row


def test_a_missing_row_is_not_found_naming_what_it_is():
    with pytest.raises(exceptions.NotFound) as e:
        crud.one(PACKAGES, 'p-404')

    assert str(e.value) == 'VNF package p-404 does not exist.'


def test_an_update_whose_expectation_holds_is_made():
    row = package()

    updated = crud.cas(
        PACKAGES,
        row['id'],
        {'onboarding_state': Onboarding.ONBOARDED},
        expected={'onboarding_state': ['CREATED', 'UPLOADING']},
    )

    assert updated['onboarding_state'] == 'ONBOARDED'
    assert updated['updated_at'] is not None


def test_a_lost_race_is_a_conflict_saying_what_changed():
    row = package()
    crud.cas(PACKAGES, row['id'], {'onboarding_state': 'PROCESSING'})

    with pytest.raises(exceptions.Conflict) as e:
        crud.cas(
            PACKAGES,
            row['id'],
            {'onboarding_state': 'ONBOARDED'},
            expected={
                'onboarding_state': 'CREATED',
                'operational_state': 'DISABLED',
            },
        )

    assert str(e.value) == (
        f'VNF package {row["id"]} changed meanwhile: onboarding_state is '
        "'PROCESSING'."
    )
    assert crud.one(PACKAGES, row['id'])['onboarding_state'] == 'PROCESSING'


def test_none_expects_null():
    row = package()

    crud.cas(
        PACKAGES, row['id'], {'vnfd_id': 'v1'}, expected={'vnfd_id': None}
    )
    with pytest.raises(exceptions.Conflict, match="vnfd_id is 'v1'"):
        crud.cas(
            PACKAGES, row['id'], {'vnfd_id': 'v2'}, expected={'vnfd_id': None}
        )


def test_updating_a_deleted_row_is_not_found():
    row = package()
    crud.remove(PACKAGES, row['id'])

    with pytest.raises(exceptions.NotFound):
        crud.cas(PACKAGES, row['id'], {'vnfd_id': 'v1'})


def test_a_delete_is_a_compare_and_set_too():
    row = package()

    with pytest.raises(exceptions.Conflict, match='operational_state'):
        crud.remove(PACKAGES, row['id'], {'operational_state': 'ENABLED'})
    crud.remove(PACKAGES, row['id'], {'operational_state': 'DISABLED'})

    with pytest.raises(exceptions.NotFound):
        crud.one(PACKAGES, row['id'])


def test_select_matches_and_orders_by_creation():
    first = package(vnfd_id='a')
    package(vnfd_id='b', onboarding_state='ONBOARDED')
    third = package(vnfd_id='c')

    rows = crud.select(
        PACKAGES, {'onboarding_state': 'CREATED'}, columns=['id', 'vnfd_id']
    )

    assert rows == [
        {'id': first['id'], 'vnfd_id': 'a'},
        {'id': third['id'], 'vnfd_id': 'c'},
    ]


def test_scan_reads_everything_in_order_across_chunks():
    ids = [package()['id'] for _ in range(7)]

    assert [r['id'] for r in crud.scan(PACKAGES, chunk=2, max_chunk=3)] == (
        ids
    )
    assert [r['id'] for r in crud.scan(PACKAGES, after=ids[2], chunk=2)] == (
        ids[3:]
    )


def test_scan_with_columns_still_pages_by_creation_and_id():
    ids = [package()['id'] for _ in range(3)]

    rows = list(crud.scan(PACKAGES, columns=['vnfd_id'], chunk=1))

    assert [r['id'] for r in rows] == ids
    assert set(rows[0]) == {'vnfd_id', 'created_at', 'id'}


def test_scan_after_an_unknown_row_asks_to_list_again():
    with pytest.raises(exceptions.BadRequest, match='list again'):
        list(crud.scan(PACKAGES, after='gone'))


def test_a_row_is_owned_by_its_host_and_that_hosts_processes():
    with session.reader() as conn:
        rows = conn.execute(
            sa.select(
                crud.owned_by_host(sa.literal('c1'), 'c1'),
                crud.owned_by_host(sa.literal('c1/42'), 'c1'),
                crud.owned_by_host(sa.literal('c10/1'), 'c1'),
                crud.owned_by_host(sa.literal('c_/1'), 'c1'),
                crud.owned_by_host(sa.literal('c1/1'), 'c_'),
                crud.owned_by_host(sa.literal('c1x/1'), 'c1%'),
            )
        ).one()

    assert tuple(rows) == (True, True, False, False, False, False)
