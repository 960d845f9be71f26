"""The VIM and subscription registries on SQLite: names unique per
project (also without one), and hooks writing VIMs only of their own
project, all or nothing."""

from __future__ import annotations

import pytest

from vnfm.common import exceptions
from vnfm.db import registry
from vnfm.db import session

pytestmark = pytest.mark.usefixtures('db_url')

VIM_A = '0b7c2a55-6f0e-4b8e-9a55-0c1d2e3f4a5b'
VIM_B = '1c8d3b66-7a1f-4c9f-8b66-1d2e3f4a5b6c'


def vim(name: str = 'k8s', **values: object) -> dict:
    row = {
        'name': name,
        'type': 'kubernetes',
        'status': 'ACTIVE',
        'is_default': False,
        'auth_url': 'https://198.18.0.10:6443',
        'auth_cred': 'sealed',
    }
    return dict(row, **values)


def test_a_vim_is_stored_and_read_back():
    created = registry.vim_create(vim(project_id='p1', extra={'a': [1]}))

    got = registry.vim_get(created['id'])

    assert got['name'] == 'k8s' and got['project_id'] == 'p1'
    assert got['extra'] == {'a': [1]}
    assert registry.vim_list({'project_id': 'p1'}) == [got]
    assert registry.vim_list({'project_id': 'p2'}) == []


def test_vims_without_a_project_have_unique_names_too():
    registry.vim_create(vim())

    with pytest.raises(exceptions.Conflict, match="'k8s' already exists"):
        registry.vim_create(vim())
    registry.vim_create(vim(project_id='p1'))


def test_renaming_to_a_taken_name_is_a_conflict():
    registry.vim_create(vim('a', project_id='p1'))
    b = registry.vim_create(vim('b', project_id='p1'))

    with pytest.raises(exceptions.Conflict, match="'a' already exists"):
        registry.vim_update(b['id'], {'name': 'a'})

    assert registry.vim_get(b['id'])['name'] == 'b'


def test_a_deleted_vim_is_not_found():
    created = registry.vim_create(vim())

    registry.vim_delete(created['id'])

    with pytest.raises(exceptions.NotFound):
        registry.vim_get(created['id'])


def test_vims_apply_inserts_updates_and_deletes_in_the_project():
    with session.transaction() as conn:
        registry.vims_apply(
            conn,
            {VIM_A: vim('a', id=VIM_A), VIM_B: vim('b', id=VIM_B)},
            project_id='p1',
        )
    with session.transaction() as conn:
        registry.vims_apply(
            conn, {VIM_A: vim('a2', id=VIM_A), VIM_B: None}, project_id='p1'
        )

    assert [
        (v['id'], v['name'], v['project_id']) for v in registry.vim_list()
    ] == [(VIM_A, 'a2', 'p1')]


def test_vims_apply_refuses_another_projects_vim_and_writes_nothing():
    registry.vim_create(vim('theirs', id=VIM_A, project_id='p1'))

    with (
        pytest.raises(exceptions.OperationFailed, match='project p2'),
        session.transaction() as conn,
    ):
        registry.vims_apply(
            conn,
            {VIM_B: vim('mine', id=VIM_B), VIM_A: None},
            project_id='p2',
        )

    assert [v['id'] for v in registry.vim_list()] == [VIM_A]


def test_vims_apply_says_which_name_is_taken():
    registry.vim_create(vim('k8s', project_id='p1'))

    with (
        pytest.raises(exceptions.OperationFailed) as e,
        session.transaction() as conn,
    ):
        registry.vims_apply(
            conn, {VIM_A: vim('k8s', id=VIM_A)}, project_id='p1'
        )

    assert "'k8s' already exists in project p1" in str(e.value)
    assert registry.vim_list({'id': VIM_A}) == []


def test_subscriptions_are_listed_oldest_first_after_a_given_one():
    ids = [
        registry.subscription_create(
            {'callback_uri': f'https://198.18.0.1/{n}', 'api_version': '2'}
        )['id']
        for n in range(3)
    ]

    assert [s['id'] for s in registry.subscription_scan()] == ids
    assert [s['id'] for s in registry.subscription_scan(after=ids[0])] == (
        ids[1:]
    )
    registry.subscription_delete(ids[1])
    assert [s['id'] for s in registry.subscription_list()] == [
        ids[0],
        ids[2],
    ]
