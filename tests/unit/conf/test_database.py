"""[database] connection holds the database password: never written to
the log when a service logs its configuration at start."""

from __future__ import annotations

from vnfm.conf import database

from .logged import logged_with


def test_the_connection_option_is_secret():
    [connection] = [o for o in database.opts if o.name == 'connection']

    assert connection.secret


def test_the_database_password_never_reaches_the_log(caplog):
    text = logged_with(
        caplog,
        'connection',
        'postgresql+psycopg2://vnfm:DB-PASSW0RD@198.18.0.5/vnfm',
        'database',
    )

    assert 'database.connection' in text
    assert 'DB-PASSW0RD' not in text


def test_pool_sizes_and_timeouts_are_bounded():
    by_name = {o.name: o for o in database.opts}

    for name in ('pool_size', 'pool_timeout', 'connect_timeout'):
        assert by_name[name].type.min is not None
        assert by_name[name].type.min >= 1, name
