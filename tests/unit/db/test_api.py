"""vnfm.db.api on SQLite, PostgreSQL and MariaDB (``db_backend`` fixture)."""

import datetime
import threading
import time

import pytest
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from vnfm.common import exceptions
from vnfm.db import api
from vnfm.db import crud
from vnfm.db import registry
from vnfm.db import session

UNICODE = 'vnf-ü-日本語-😀'


def _package(**values) -> dict:
    row = {
        'onboarding_state': 'CREATED',
        'operational_state': 'DISABLED',
        'usage_state': 'NOT_IN_USE',
    }
    return api.package_create(dict(row, **values))


def _instance(**values) -> dict:
    row = {
        'vnfd_id': 'vnfd-1',
        'vnf_provider': 'p',
        'vnf_product_name': 'n',
        'vnf_software_version': '1.0',
        'vnfd_version': '1.0',
        'instantiation_state': 'NOT_INSTANTIATED',
        'api_version': '2',
    }
    return api.instance_create(dict(row, **values))


def _op(instance_id: str, **values) -> dict:
    row = {
        'vnf_instance_id': instance_id,
        'operation': 'INSTANTIATE',
        'operation_state': 'STARTING',
        'api_version': '2',
        'is_automatic_invocation': False,
        'is_cancel_pending': False,
    }
    return api.op_create(dict(row, **values))


def test_cas_update_lost_race_is_conflict(db_backend):
    inst = _instance()
    api.instance_update(
        inst['id'],
        {'instantiation_state': 'INSTANTIATED'},
        expected={'instantiation_state': 'NOT_INSTANTIATED'},
    )

    with pytest.raises(exceptions.ConcurrentUpdate) as e:
        api.instance_update(
            inst['id'],
            {'vnf_instance_name': 'late'},
            expected={'instantiation_state': 'NOT_INSTANTIATED'},
        )

    assert "instantiation_state is 'INSTANTIATED'" in e.value.detail
    assert api.instance_get(inst['id'])['vnf_instance_name'] is None


def test_cas_update_of_missing_row_is_not_found(db_backend):
    with pytest.raises(exceptions.NotFound):
        api.instance_update('no-such-id', {'vnf_instance_name': 'x'})


def test_cas_accepts_one_of_several_states_and_null(db_backend):
    op = _op(_instance()['id'])

    updated = api.op_update(
        op['id'],
        {'operation_state': 'PROCESSING', 'owner': 'c1'},
        expected={
            'operation_state': ['STARTING', 'FAILED_TEMP'],
            'owner': None,
        },
    )

    assert (updated['operation_state'], updated['owner']) == (
        'PROCESSING',
        'c1',
    )
    with pytest.raises(exceptions.ConcurrentUpdate):
        api.op_update(op['id'], {'owner': 'c2'}, expected={'owner': None})


def test_second_unfinished_op_on_an_instance_is_conflict(db_backend):
    inst = _instance()
    first = _op(inst['id'])

    with pytest.raises(exceptions.OpInProgress) as e:
        _op(inst['id'], operation='SCALE')

    assert first['id'] in e.value.detail


def test_two_threads_starting_ops_at_once_exactly_one_wins(db_backend):
    inst = _instance()
    barrier = threading.Barrier(2)
    results: list = []

    def start(operation: str) -> None:
        barrier.wait(timeout=10)
        try:
            results.append(_op(inst['id'], operation=operation))
        except exceptions.OpInProgress as e:
            results.append(e)

    threads = [
        threading.Thread(target=start, args=(o,)) for o in ('SCALE', 'HEAL')
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)

    wins = [r for r in results if isinstance(r, dict)]
    assert len(wins) == 1 and len(results) == 2
    assert [o['id'] for o in api.op_list({'vnf_instance_id': inst['id']})] == [
        wins[0]['id']
    ]


def test_finished_op_allows_the_next_one(db_backend):
    inst = _instance()
    op = _op(inst['id'])
    api.op_update(
        op['id'], {'operation_state': 'COMPLETED', 'active_instance_id': None}
    )

    second = _op(inst['id'], operation='TERMINATE')

    assert second['active_instance_id'] == inst['id']


def test_op_create_checks_the_instance_in_the_same_transaction(db_backend):
    inst = _instance()

    with pytest.raises(exceptions.ConcurrentUpdate):
        api.op_create(
            {
                'vnf_instance_id': inst['id'],
                'operation': 'TERMINATE',
                'operation_state': 'STARTING',
                'api_version': '2',
                'is_automatic_invocation': False,
                'is_cancel_pending': False,
            },
            instance_expected={'instantiation_state': 'INSTANTIATED'},
        )

    assert api.op_list({'vnf_instance_id': inst['id']}) == []


def test_instance_delete_is_guarded(db_backend):
    inst = _instance(instantiation_state='INSTANTIATED')
    with pytest.raises(exceptions.InstanceStateConflict):
        api.instance_delete(inst['id'])

    api.instance_update(
        inst['id'], {'instantiation_state': 'NOT_INSTANTIATED'}
    )
    op = _op(inst['id'], operation='MODIFY_INFO')
    with pytest.raises(exceptions.OpInProgress, match=op['id']):
        api.instance_delete(inst['id'])

    api.op_update(
        op['id'], {'operation_state': 'COMPLETED', 'active_instance_id': None}
    )
    api.instance_delete(inst['id'])

    with pytest.raises(exceptions.NotFound):
        api.instance_get(inst['id'])
    assert api.op_list({'vnf_instance_id': inst['id']}) == []


def test_delete_of_missing_instance_is_not_found(db_backend):
    with pytest.raises(exceptions.NotFound):
        api.instance_delete('no-such-id')


def test_package_content_round_trips_in_chunks(db_backend):
    pkg = _package()
    data = bytes(range(256)) * (3 * 4096 + 7)  # 3 MiB and a bit

    api.package_content_put(pkg['id'], data)
    assert api.package_content_get(pkg['id']) == data

    api.package_content_put(pkg['id'], b'smaller')
    assert api.package_content_get(pkg['id']) == b'smaller'


def test_package_delete_removes_its_content(db_backend):
    pkg = _package()
    api.package_content_put(pkg['id'], b'zip')

    api.package_delete(pkg['id'], expected={'usage_state': 'NOT_IN_USE'})

    with pytest.raises(exceptions.NotFound):
        api.package_content_get(pkg['id'])


def test_vnfd_id_is_unique(db_backend):
    first, second = _package(), _package()
    api.package_update(first['id'], {'vnfd_id': 'vnfd-a'})

    with pytest.raises(exceptions.AlreadyExists, match='vnfd-a'):
        api.package_update(second['id'], {'vnfd_id': 'vnfd-a'})

    assert api.package_get_by_vnfd_id('vnfd-a')['id'] == first['id']
    assert api.package_get(second['id'])['vnfd_id'] is None


def test_json_and_text_round_trip_unicode(db_backend):
    nested = {
        'name': UNICODE,
        'list': [1, 2.5, None, True, {'k': UNICODE}],
        'empty': {},
    }
    inst = _instance(
        vnf_instance_name=UNICODE,
        metadata={UNICODE: UNICODE},
        instantiated_vnf_info=nested,
        vnf_instance_description=UNICODE * 100,
    )

    got = api.instance_get(inst['id'])

    assert got['vnf_instance_name'] == UNICODE
    assert got['vnf_instance_description'] == UNICODE * 100
    assert got['instantiated_vnf_info'] == nested
    assert got['metadata'] == {UNICODE: UNICODE}
    assert (
        api.instance_list({'vnf_instance_name': UNICODE})[0]['id']
        == inst['id']
    )


def test_datetimes_keep_microseconds(db_backend):
    when = datetime.datetime(2024, 5, 6, 7, 8, 9, 123456)
    op = _op(_instance()['id'], start_time=when, state_entered_time=when)

    api.op_update(op['id'], {'lease_expires_at': when})
    got = api.op_get(op['id'])

    assert got['start_time'] == when
    assert got['lease_expires_at'] == when
    assert got['created_at'].tzinfo is None


def test_expired_leases_and_unclaimed_ops(db_backend):
    now = datetime.datetime(2024, 1, 1, 12, 0, 0)
    inst_a, inst_b = _instance(), _instance()
    owned = _op(inst_a['id'], state_entered_time=now)
    waiting = _op(inst_b['id'], state_entered_time=now)
    api.op_update(
        owned['id'],
        {
            'owner': 'c1',
            'operation_state': 'PROCESSING',
            'lease_expires_at': now,
        },
    )

    expired = api.op_find_expired(
        now + datetime.timedelta(seconds=1), ['PROCESSING']
    )
    renewed = api.op_renew_leases(
        'c1',
        [owned['id'], waiting['id']],
        now + datetime.timedelta(minutes=1),
        ['PROCESSING'],
    )
    unclaimed = api.op_find_unclaimed(
        now + datetime.timedelta(seconds=1), ['STARTING']
    )

    assert [o['id'] for o in expired] == [owned['id']]
    assert renewed == 1
    assert (
        api.op_find_expired(
            now + datetime.timedelta(seconds=1), ['PROCESSING']
        )
        == []
    )
    assert [o['id'] for o in unclaimed] == [waiting['id']]
    assert (
        api.op_find_unclaimed(
            now + datetime.timedelta(seconds=1), ['STARTING'], limit=0
        )
        == []
    )


def test_ops_of_a_host_name_match_it_exactly(db_backend):
    owners = ['c_1', 'c_1/p1', 'c_1/p2', 'cx1/p1', 'c_10/p1', 'c%/p1']
    ops = {}
    for owner in owners:
        op = _op(_instance()['id'])
        ops[owner] = api.op_update(
            op['id'], {'owner': owner, 'operation_state': 'PROCESSING'}
        )['id']

    found = api.op_find_of_host('c_1', ['PROCESSING'])

    assert sorted(o['owner'] for o in found) == ['c_1', 'c_1/p1', 'c_1/p2']
    assert [o['owner'] for o in api.op_find_of_host('c%', ['PROCESSING'])] == [
        'c%/p1'
    ]
    assert api.op_find_of_host('c_1', ['ROLLING_BACK']) == []


def test_vim_name_is_unique_per_project(db_backend):
    vim = {
        'name': 'k8s',
        'type': 'kubernetes',
        'status': 'ACTIVE',
        'is_default': False,
        'project_id': 'p1',
    }
    registry.vim_create(vim)

    with pytest.raises(exceptions.AlreadyExists, match='k8s'):
        registry.vim_create(vim)
    registry.vim_create(dict(vim, project_id='p2'))


def test_vim_name_is_unique_without_project(db_backend):
    vim = {
        'name': 'k8s',
        'type': 'kubernetes',
        'status': 'ACTIVE',
        'is_default': False,
        'project_id': None,
    }
    registry.vim_create(vim)

    with pytest.raises(exceptions.AlreadyExists, match='k8s'):
        registry.vim_create(vim)


_LOCK_WAITS = {
    'postgresql': 'SELECT count(*) FROM pg_stat_activity WHERE '
    "wait_event_type = 'Lock' AND datname = current_database()",
    'mysql': 'SELECT count(*) FROM information_schema.innodb_trx '
    "WHERE trx_state = 'LOCK WAIT'",
}


def _wait_for_a_lock_wait(backend: str, deadline_s: float = 10) -> None:
    deadline = time.monotonic() + deadline_s
    while True:
        with session.reader() as conn:
            if conn.exec_driver_sql(_LOCK_WAITS[backend]).scalar():
                return
        assert time.monotonic() < deadline, 'the delete never waited'
        # InnoDB refreshes innodb_trx only after 0.1 s without a read.
        time.sleep(0.15)


def test_delete_racing_an_op_start_never_loses_the_op(db_backend, monkeypatch):
    if db_backend == 'sqlite':
        pytest.skip('SQLite serialises writers: no interleaving possible')
    inst = _instance()
    inserted, go = threading.Event(), threading.Event()
    real_insert = crud.insert

    def insert_then_hold(conn, table, values):
        row = real_insert(conn, table, values)
        if table is api.OPS:  # hold the op's transaction open
            inserted.set()
            go.wait(timeout=10)
        return row

    monkeypatch.setattr(crud, 'insert', insert_then_hold)
    starter = threading.Thread(target=_op, args=(inst['id'],))
    starter.start()
    assert inserted.wait(timeout=10)
    outcome: list = []

    def delete() -> None:
        try:
            api.instance_delete(inst['id'])
            outcome.append('deleted')
        except exceptions.OpInProgress:
            outcome.append('conflict')

    deleter = threading.Thread(target=delete)
    deleter.start()
    _wait_for_a_lock_wait(db_backend)
    go.set()
    starter.join(timeout=10)
    deleter.join(timeout=10)

    assert outcome == ['conflict']
    assert len(api.op_list({'vnf_instance_id': inst['id']})) == 1


def test_scan_reads_in_chunks_every_row_once_in_order(db_backend):
    same = datetime.datetime(2026, 1, 1)
    made = [_instance(vnf_instance_name=f'i{n}') for n in range(7)]
    for row in made[2:5]:  # ties on created_at are ordered by id
        api.instance_update(row['id'], {'created_at': same})
    expected = [r['id'] for r in api.instance_list()]

    rows = list(crud.scan(api.INSTANCES, chunk=2))
    assert [r['id'] for r in rows] == expected
    after = list(
        crud.scan(
            api.INSTANCES,
            after=expected[3],
            chunk=2,
            columns=['vnf_instance_name'],
        )
    )
    assert [r['id'] for r in after] == expected[4:]
    assert set(after[0]) == {'vnf_instance_name', 'created_at', 'id'}


def test_scan_after_an_unknown_row_is_bad_request(db_backend):
    with pytest.raises(exceptions.BadRequest, match='list again'):
        list(api.instance_scan(after='no-such-id'))


def _cluster_vim(name: str = 'k8s') -> dict:
    return {
        'id': '5d1e4c0a-2b4f-4c7e-9a51-0f3e2d1c6b77',
        'name': name,
        'type': 'kubernetes',
        'status': 'ACTIVE',
        'is_default': False,
        'project_id': 'p1',
        'auth_url': 'https://198.18.0.10:6443',
        'auth_cred': 'sealed',
    }


def test_op_update_registers_and_deletes_vims_with_the_op(db_backend):
    inst = _instance(project_id='p1')
    op = _op(inst['id'])
    vim = _cluster_vim()

    api.op_update(op['id'], {'owner': 'c1'}, vims={vim['id']: vim})
    api.op_update(
        op['id'], {'owner': 'c1'}, vims={vim['id']: dict(vim, name='k8s2')}
    )
    assert registry.vim_get(vim['id'])['name'] == 'k8s2'

    api.op_update(op['id'], {'owner': None}, vims={vim['id']: None})
    api.op_update(op['id'], {'owner': None}, vims={vim['id']: None})
    assert registry.vim_list({'id': vim['id']}) == []


def test_a_taken_vim_name_rolls_the_whole_update_back(db_backend):
    inst = _instance(project_id='p1')
    op = _op(inst['id'])
    vim = _cluster_vim()
    registry.vim_create({k: v for k, v in vim.items() if k != 'id'})

    with pytest.raises(exceptions.OperationFailed, match="'k8s' already"):
        api.op_update(
            op['id'],
            {'owner': 'c1'},
            instance_values={'vnf_instance_name': 'changed'},
            vims={vim['id']: vim},
        )

    assert api.op_get(op['id'])['owner'] is None
    assert api.instance_get(inst['id'])['vnf_instance_name'] is None
    assert registry.vim_list({'id': vim['id']}) == []


@pytest.mark.parametrize('change', ['overwrite', 'delete'])
def test_an_op_never_writes_another_projects_vim(db_backend, change):
    """A hook of p2's instance returned p1's VIM id: nothing of the op is
    written, p1's VIM stays as it was."""
    vim = _cluster_vim()
    registry.vim_create(vim)
    inst = _instance(project_id='p2')
    op = _op(inst['id'])
    row = dict(vim, project_id='p2', auth_url='https://198.18.0.9:1')
    vims = {vim['id']: row if change == 'overwrite' else None}

    with pytest.raises(exceptions.OperationFailed, match='project p2'):
        api.op_update(
            op['id'],
            {'owner': 'c1'},
            instance_values={'vnf_instance_name': 'changed'},
            vims=vims,
        )

    kept = registry.vim_get(vim['id'])
    assert (kept['project_id'], kept['auth_url']) == ('p1', vim['auth_url'])
    assert api.op_get(op['id'])['owner'] is None
    assert api.instance_get(inst['id'])['vnf_instance_name'] is None


def _lock_waiters(backend: str) -> int:
    """Transactions of this database waiting for a row lock."""
    query = {
        'postgresql': 'SELECT count(*) FROM pg_stat_activity WHERE '
        "wait_event_type = 'Lock' AND datname = current_database()",
        'mysql': 'SELECT count(*) FROM information_schema.innodb_trx '
        "WHERE trx_state = 'LOCK WAIT'",
    }[backend]
    with session.reader() as conn:
        return conn.execute(sa.text(query)).scalar()


def test_op_finishing_while_a_new_op_starts_does_not_deadlock(db_backend):
    # A conductor finishes an op (op row and instance row in one
    # transaction) while the API starts the next op on that instance
    # (instance row, then the new op row). Both must take the rows in the
    # same order: the new op gets its Conflict, the finish commits.
    if db_backend == 'sqlite':
        pytest.skip('SQLite has no row locks')
    inst = _instance()
    op = _op(inst['id'], operation='MODIFY_INFO')
    finished: list = []

    def finish() -> None:
        finished.append(
            api.op_update(
                op['id'],
                {'operation_state': 'COMPLETED', 'active_instance_id': None},
                instance_values={'vnf_instance_name': 'done'},
            )
        )

    finisher = threading.Thread(target=finish)
    with session.transaction() as conn:
        crud.lock(conn, api.INSTANCES, inst['id'])  # what op_create does
        finisher.start()
        deadline = time.monotonic() + 20
        while _lock_waiters(db_backend) < 1:
            assert time.monotonic() < deadline, 'the finish never waited'
            time.sleep(0.2)  # InnoDB refreshes innodb_trx 0.1 s after a read
        with pytest.raises(sa_exc.IntegrityError), conn.begin_nested():
            crud.insert(
                conn,
                api.OPS,
                {
                    'vnf_instance_id': inst['id'],
                    'active_instance_id': inst['id'],
                    'operation': 'TERMINATE',
                    'operation_state': 'STARTING',
                    'state_entered_time': op['state_entered_time'],
                    'start_time': op['start_time'],
                    'api_version': '2',
                    'is_automatic_invocation': False,
                    'is_cancel_pending': False,
                },
            )
    finisher.join(20)

    assert finished and finished[0]['operation_state'] == 'COMPLETED'
    assert api.instance_get(inst['id'])['vnf_instance_name'] == 'done'
