"""vnfm-db-manage: create and upgrade vnfm's database schema.

vnfm-db-manage --config-file /etc/vnfm/vnfm.conf upgrade [--revision R]
vnfm-db-manage --config-file /etc/vnfm/vnfm.conf current
vnfm-db-manage --config-file /etc/vnfm/vnfm.conf revision -m MESSAGE
"""

from __future__ import annotations

import sys

from oslo_config import cfg

from vnfm.conf import CONF
from vnfm.db import migration
from vnfm.db import session


def _upgrade() -> int:
    migration.upgrade(CONF.command.revision)
    print(f'Database upgraded; now at {migration.current()}.')
    return 0


def _current() -> int:
    rev = migration.current()
    head = migration.head()
    if rev is None:
        print(
            f'Database is empty; run "vnfm-db-manage upgrade" (head: {head}).'
        )
    else:
        print(f'{rev}{" (head)" if rev == head else f" (head: {head})"}')
    return 0


def _revision() -> int:
    # Autogenerate compares the models with the database: it must be at
    # head, or the new revision would repeat older ones.
    if CONF.command.autogenerate and migration.current() != migration.head():
        print(
            'The database is not at head; run "vnfm-db-manage upgrade" first.',
            file=sys.stderr,
        )
        return 1
    path = migration.revision(
        CONF.command.message, autogenerate=CONF.command.autogenerate
    )
    print(f'Wrote {path}; review it before committing.')
    return 0


def _add_commands(subparsers) -> None:
    up = subparsers.add_parser('upgrade', help='Upgrade the schema.')
    up.add_argument(
        '--revision',
        default='head',
        help='Revision to upgrade to (default: head).',
    )
    up.set_defaults(func=_upgrade)
    cur = subparsers.add_parser('current', help='Show the schema revision.')
    cur.set_defaults(func=_current)
    rev = subparsers.add_parser(
        'revision', help='Write a new migration (developers).'
    )
    rev.add_argument(
        '-m', '--message', required=True, help='What the migration does.'
    )
    rev.add_argument(
        '--no-autogenerate',
        dest='autogenerate',
        action='store_false',
        help='Write an empty migration instead of one '
        'generated from the models.',
    )
    rev.set_defaults(func=_revision)


_COMMAND = cfg.SubCommandOpt(
    'command',
    title='Commands',
    handler=_add_commands,
    help='What to do with the database.',
)


def main(argv: list[str] | None = None) -> int:
    """Entry point of vnfm-db-manage."""
    CONF.register_cli_opt(_COMMAND)
    try:
        CONF(sys.argv[1:] if argv is None else argv, project='vnfm')
        return CONF.command.func()
    finally:
        session.set_engine(None)
        CONF.reset()
        CONF.unregister_opt(_COMMAND)


if __name__ == '__main__':
    sys.exit(main())
