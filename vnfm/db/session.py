"""Engines and transactions. The one place that builds a SQLAlchemy engine."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator

import sqlalchemy as sa
from sqlalchemy import event

from vnfm.conf import CONF

_lock = threading.Lock()
_engine: sa.Engine | None = None


def connection_url() -> str:
    """The configured database URL, SQLite in state_path by default."""
    if CONF.database.connection:
        return CONF.database.connection
    os.makedirs(CONF.state_path, exist_ok=True)
    return 'sqlite:///' + os.path.join(CONF.state_path, 'vnfm.sqlite')


def _sqlite_pragmas(dbapi_conn, _record) -> None:
    cur = dbapi_conn.cursor()
    cur.execute('PRAGMA foreign_keys=ON')
    cur.execute('PRAGMA journal_mode=WAL')
    cur.execute('PRAGMA synchronous=NORMAL')
    cur.execute('PRAGMA busy_timeout=30000')
    cur.close()


def create_engine(url: str | None = None) -> sa.Engine:
    """A new engine for ``url`` (default: the configured one)."""
    url = url or connection_url()
    db = CONF.database
    if url.startswith('sqlite'):
        engine = sa.create_engine(
            url,
            connect_args={'check_same_thread': False, 'timeout': 30},
            pool_size=db.pool_size,
            max_overflow=db.max_overflow,
            pool_timeout=db.pool_timeout,
        )
        event.listen(engine, 'connect', _sqlite_pragmas)
        return engine
    connect_args = {'connect_timeout': db.connect_timeout}
    return sa.create_engine(
        url,
        pool_size=db.pool_size,
        max_overflow=db.max_overflow,
        pool_timeout=db.pool_timeout,
        pool_pre_ping=True,
        pool_recycle=3600,
        connect_args=connect_args,
    )


def get_engine() -> sa.Engine:
    """The process-wide engine, created on first use."""
    global _engine
    if _engine is None:
        with _lock:
            if _engine is None:
                _engine = create_engine()
    return _engine


def set_engine(engine: sa.Engine | None) -> None:
    """Replace the process-wide engine (tests, tools)."""
    global _engine
    with _lock:
        old, _engine = _engine, engine
    if old is not None and old is not engine:
        old.dispose()


@contextlib.contextmanager
def transaction() -> Iterator[sa.Connection]:
    """A connection in a transaction committed on success."""
    with get_engine().begin() as conn:
        yield conn


@contextlib.contextmanager
def reader() -> Iterator[sa.Connection]:
    """A connection for reads."""
    with get_engine().connect() as conn:
        yield conn
