"""The one engine of a process: where the database is by default, SQLite
set up for concurrent conductors, transactions all or nothing."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from vnfm.db import session


@pytest.fixture
def engine_reset():
    session.set_engine(None)
    yield
    session.set_engine(None)


def test_without_a_connection_the_database_is_sqlite_in_state_path(
    conf, tmp_path
):
    conf('connection', None, 'database')
    conf('state_path', str(tmp_path / 'state'))

    url = session.connection_url()

    assert url == f'sqlite:///{tmp_path}/state/vnfm.sqlite'
    assert (tmp_path / 'state').is_dir()


def test_the_configured_connection_is_used(conf):
    conf(
        'connection', 'postgresql+psycopg2://vnfm@198.18.0.5/vnfm', 'database'
    )

    assert session.connection_url() == (
        'postgresql+psycopg2://vnfm@198.18.0.5/vnfm'
    )


def test_sqlite_enforces_foreign_keys_and_waits_for_locks(tmp_path):
    engine = session.create_engine(f'sqlite:///{tmp_path / "x.sqlite"}')
    try:
        with engine.connect() as conn:
            pragma = {
                name: conn.exec_driver_sql(f'PRAGMA {name}').scalar()
                for name in ('foreign_keys', 'journal_mode', 'busy_timeout')
            }
    finally:
        engine.dispose()

    assert pragma == {
        'foreign_keys': 1,
        'journal_mode': 'wal',
        'busy_timeout': 30000,
    }


def test_the_engine_is_made_once_from_the_configuration(
    conf, tmp_path, engine_reset
):
    conf('connection', f'sqlite:///{tmp_path / "a.sqlite"}', 'database')

    first = session.get_engine()

    assert session.get_engine() is first
    assert first.url.database == str(tmp_path / 'a.sqlite')


def test_a_transaction_is_committed_or_rolled_back_whole(
    conf, tmp_path, engine_reset
):
    conf('connection', f'sqlite:///{tmp_path / "t.sqlite"}', 'database')
    with session.transaction() as conn:
        conn.exec_driver_sql('CREATE TABLE t (v INTEGER)')

    with pytest.raises(RuntimeError), session.transaction() as conn:
        conn.exec_driver_sql('INSERT INTO t VALUES (1)')
        raise RuntimeError('the op failed half way')
    with session.transaction() as conn:
        conn.exec_driver_sql('INSERT INTO t VALUES (2)')

    with session.reader() as conn:
        rows = conn.execute(sa.text('SELECT v FROM t')).scalars().all()
    assert rows == [2]


def test_set_engine_replaces_and_disposes_the_old_one(
    conf, tmp_path, engine_reset
):
    conf('connection', f'sqlite:///{tmp_path / "a.sqlite"}', 'database')
    old = session.get_engine()
    with old.connect():
        pass
    assert old.pool.checkedin() == 1
    new = session.create_engine(f'sqlite:///{tmp_path / "b.sqlite"}')

    session.set_engine(new)

    assert session.get_engine() is new
    assert old.pool.checkedin() == 0
