"""Set up a local Keystone in one process: what ``keystone-manage db_sync``,
``fernet_setup``, ``credential_setup`` and ``bootstrap`` do, one after the
other, with keystone imported once (each import costs seconds).

Run by the Python of the OpenStack virtualenv, not vnfm's; the bootstrap
password comes in ``OS_BOOTSTRAP_PASSWORD`` as for keystone-manage::

    python keystone_setup.py CONFIG_FILE [--db-sync] [--no-bootstrap] \
        [bootstrap options of keystone-manage]
"""

from __future__ import annotations

import sys
from typing import Any


def _steps(cli: Any) -> type:
    """keystone-manage's bootstrap command, preceded by the other steps."""
    from keystone.common import fernet_utils
    from keystone.common.sql import upgrades
    from keystone.credential.providers import fernet as credential_fernet

    conf = cli.CONF

    def key_repository(path: str, max_keys: int, group: str) -> None:
        # As fernet_setup and credential_setup, owned by the running user.
        keys = fernet_utils.FernetUtils(path, max_keys, group)
        keys.create_key_directory(None, None)
        if keys.validate_key_repository(requires_write=True):
            keys.initialize_key_repository(None, None)

    class LocalSetUp(cli.BootStrap):
        name = 'localcloud_setup'

        @classmethod
        def add_argument_parser(cls, subparsers: Any) -> Any:
            parser = super().add_argument_parser(subparsers)
            parser.add_argument('--db-sync', action='store_true')
            parser.add_argument('--no-bootstrap', action='store_true')
            return parser

        @classmethod
        def main(cls) -> None:
            if conf.command.db_sync:
                upgrades.offline_sync_database_to_version()
            if conf.command.no_bootstrap:
                return
            for group in ('fernet_tokens', 'fernet_receipts'):
                opts = getattr(conf, group)
                key_repository(
                    opts.key_repository, opts.max_active_keys, group
                )
            key_repository(
                conf.credential.key_repository,
                credential_fernet.MAX_ACTIVE_KEYS,
                'credential',
            )
            super().main()

    return LocalSetUp


def main(argv: list[str]) -> int:
    """Run the steps through keystone-manage's own command line parser."""
    config_file, *options = argv
    from keystone.cmd import cli

    cli.CMDS.append(_steps(cli))
    cli.main(
        argv=[
            'keystone-manage',
            '--config-file',
            config_file,
            'localcloud_setup',
            *options,
        ]
    )
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
