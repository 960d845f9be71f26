"""Throw-away databases on SQLite, PostgreSQL and MariaDB for tests.

The servers are the ones every vnfm machine runs on loopback (see
doc/source/design.rst §7); ``VNFM_TEST_POSTGRESQL_URL`` and
``VNFM_TEST_MYSQL_URL`` point elsewhere. An unreachable server skips its
tests, unless ``VNFM_REQUIRE_DBS`` is set or vnfm_testbed.prereqs is strict
(CI, tools/run-tests): then it fails them. Use from a conftest.py::

    from vnfm_testbed.db import db_backend  # noqa: F401
    from vnfm_testbed.db import migrated_database  # noqa: F401

and a test taking ``db_backend`` runs once per database, with vnfm.db.api
bound to an empty, migrated schema.
"""

from __future__ import annotations

import contextlib
import os
import socket
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib import parse

import pytest

from vnfm.conf import CONF
from vnfm.db import migration
from vnfm.db import models
from vnfm.db import session
from vnfm_testbed import prereqs

BACKENDS = ('sqlite', 'postgresql', 'mysql')

_SERVERS = {
    'postgresql': (
        'VNFM_TEST_POSTGRESQL_URL',
        'postgresql+psycopg2://postgres@127.0.0.1:5432',
    ),
    'mysql': ('VNFM_TEST_MYSQL_URL', 'mysql+pymysql://root@127.0.0.1:3306'),
}
# The database an admin connection opens to create and drop others.
_ADMIN_DB = {'postgresql': 'postgres', 'mysql': ''}
_CREATE = {
    'postgresql': 'CREATE DATABASE {}',
    'mysql': 'CREATE DATABASE {} CHARACTER SET utf8mb4',
}
# FORCE: a test that leaked a connection must not keep its database alive.
_DROP = {
    'postgresql': 'DROP DATABASE IF EXISTS {} WITH (FORCE)',
    'mysql': 'DROP DATABASE IF EXISTS {}',
}
_QUERY = {'postgresql': '', 'mysql': '?charset=utf8mb4'}


def server_url(backend: str, database: str = '') -> str:
    """The SQLAlchemy URL of ``database`` on the ``backend`` test server."""
    env, default = _SERVERS[backend]
    base = os.environ.get(env, default).rstrip('/')
    return f'{base}/{database}{_QUERY[backend]}'


def required() -> bool:
    """Whether an unreachable database server fails tests (CI)."""
    return prereqs.strict() or (
        os.environ.get('VNFM_REQUIRE_DBS', '') not in ('', '0')
    )


def reachable(backend: str, timeout: float = 1.0) -> bool:
    """Whether the ``backend`` server accepts TCP connections."""
    if backend == 'sqlite':
        return True
    url = parse.urlsplit(server_url(backend))
    try:
        with socket.create_connection(
            (url.hostname, url.port or 0), timeout=timeout
        ):
            return True
    except OSError:
        return False


def skip_unless_reachable(backend: str) -> None:
    """Skip the test when ``backend`` is down; fail if DBs are required."""
    if reachable(backend):
        return
    message = f'{backend} test server at {server_url(backend)} unreachable'
    if required():
        pytest.fail(
            message + ' (required in CI, under tools/run-tests and '
            'with VNFM_REQUIRE_DBS)',
            pytrace=False,
        )
    pytest.skip(message)


def _admin(backend: str, statement: str) -> None:
    engine = session.create_engine(server_url(backend, _ADMIN_DB[backend]))
    try:
        with engine.connect() as conn:
            conn = conn.execution_options(isolation_level='AUTOCOMMIT')
            conn.exec_driver_sql(statement)
    finally:
        engine.dispose()


@contextlib.contextmanager
def throwaway_database(backend: str, tmp_dir: Path) -> Iterator[str]:
    """An empty database with a unique name; yields its URL, then drops it."""
    if backend == 'sqlite':
        path = tmp_dir / f'vnfm_test_{uuid.uuid4().hex[:12]}.sqlite'
        yield f'sqlite:///{path}'
        for suffix in ('', '-wal', '-shm'):
            Path(f'{path}{suffix}').unlink(missing_ok=True)
        return
    skip_unless_reachable(backend)
    name = f'vnfm_test_{uuid.uuid4().hex[:12]}'
    _admin(backend, _CREATE[backend].format(name))
    try:
        yield server_url(backend, name)
    finally:
        _admin(backend, _DROP[backend].format(name))


@contextlib.contextmanager
def use_database(url: str) -> Iterator[None]:
    """Make ``url`` vnfm's configured database and engine for a while."""
    CONF.set_override('connection', url, group='database')
    session.set_engine(session.create_engine(url))
    try:
        yield
    finally:
        session.set_engine(None)
        CONF.clear_override('connection', group='database')


@pytest.fixture(scope='session')
def migrated_database(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Callable[[str], str]]:
    """A function giving the URL of a migrated database per backend.

    One per backend and test session, dropped at its end: a new database per
    test would cost about a second each on the servers.
    """
    with contextlib.ExitStack() as stack:
        urls: dict[str, str] = {}

        def get(backend: str) -> str:
            if backend not in urls:
                url = stack.enter_context(
                    throwaway_database(backend, tmp_path_factory.mktemp('db'))
                )
                migration.upgrade(url=url)
                urls[backend] = url
            return urls[backend]

        yield get


@pytest.fixture(params=BACKENDS)
def db_backend(
    request: pytest.FixtureRequest, migrated_database: Callable[[str], str]
) -> Iterator[str]:
    """vnfm's engine on an empty migrated database, once per backend.

    Yields the backend name ('sqlite', 'postgresql' or 'mysql'); vnfm.db.api
    calls in the test use that database. Rows are deleted afterwards.
    """
    backend = request.param
    skip_unless_reachable(backend)
    with use_database(migrated_database(backend)):
        try:
            yield backend
        finally:
            delete_all_rows()


def delete_all_rows() -> None:
    """Empty every vnfm table of the configured database."""
    with session.transaction() as conn:
        for table in reversed(models.Base.metadata.sorted_tables):
            conn.execute(table.delete())
