"""The migrations build exactly the schema of vnfm.db.models, on every DB."""

import pytest
from alembic import autogenerate
from alembic.runtime import migration as alembic_migration

from vnfm.db import migration
from vnfm.db import models
from vnfm.db import session
from vnfm_testbed import db as testing_db


@pytest.fixture(params=testing_db.BACKENDS)
def empty_url(request, tmp_path):
    """The URL of a new, empty database on each backend."""
    with testing_db.throwaway_database(request.param, tmp_path) as url:
        yield url


def _differences(url: str) -> list:
    engine = session.create_engine(url)
    try:
        with engine.connect() as conn:
            ctx = alembic_migration.MigrationContext.configure(
                conn, opts={'compare_type': True}
            )
            return autogenerate.compare_metadata(ctx, models.Base.metadata)
    finally:
        engine.dispose()


def test_upgrade_from_empty_matches_models(empty_url):
    assert migration.current(url=empty_url) is None

    migration.upgrade(url=empty_url)

    assert migration.current(url=empty_url) == migration.head()
    assert _differences(empty_url) == []


def test_datetimes_have_microseconds_on_mysql(tmp_path):
    # compare_metadata does not see DATETIME vs DATETIME(6) on MariaDB.
    with testing_db.throwaway_database('mysql', tmp_path) as url:
        migration.upgrade(url=url)
        engine = session.create_engine(url)
        try:
            with engine.connect() as conn:
                rows = conn.exec_driver_sql(
                    'SELECT table_name, column_name, datetime_precision '
                    'FROM information_schema.columns WHERE table_schema = '
                    "DATABASE() AND data_type = 'datetime'"
                ).all()
        finally:
            engine.dispose()

    assert len(rows) >= 10
    assert [r for r in rows if r[2] != 6] == []


def test_upgrade_twice_is_a_no_op(empty_url):
    migration.upgrade(url=empty_url)
    migration.upgrade(url=empty_url)

    assert migration.current(url=empty_url) == migration.head()


def test_head_is_single_and_linear():
    from alembic import script

    scripts = script.ScriptDirectory(migration._SCRIPTS)
    assert len(scripts.get_heads()) == 1
    revisions = list(scripts.walk_revisions())
    assert revisions[-1].down_revision is None


def test_subscriptions_made_before_0004_stay_lcm_ones(empty_url):
    migration.upgrade('0003', url=empty_url)
    engine = session.create_engine(empty_url)
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql(
                'INSERT INTO subscriptions (id, callback_uri, api_version, '
                "created_at) VALUES ('s1', 'http://cb', '1', "
                "'2026-01-01 00:00:00')"
            )
        migration.upgrade(url=empty_url)
        with engine.connect() as conn:
            rows = conn.exec_driver_sql(
                'SELECT id, interface FROM subscriptions'
            ).all()
    finally:
        engine.dispose()

    assert [tuple(r) for r in rows] == [('s1', 'vnflcm')]
