"""Unit tests for vnfm-localcloud and the local cloud's configuration."""

from __future__ import annotations

import configparser
from pathlib import Path

from vnfm_testbed.openstack import files
from vnfm_testbed.openstack import localcloud
from vnfm_testbed.openstack.cloud import LocalCloud


def _layout(tmp_path: Path) -> files.CloudLayout:
    return files.CloudLayout(
        state_dir=tmp_path,
        venv=Path('/venv'),
        keystone_port=5000,
        heat_port=8004,
        keystone_db_url='postgresql+psycopg2://postgres@127.0.0.1/ks',
        heat_db_url='postgresql+psycopg2://postgres@127.0.0.1/heat',
        transport_url='rabbit://guest:guest@127.0.0.1:5672/v',
        heat_password='hp%w',
        domain_admin_password='dp',
        plugin_dirs=(Path('/plugins/a'), Path('/plugins/b')),
    )


def _read(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(path)
    return parser


def test_default_state_dir_by_name() -> None:
    args = localcloud.parse_args(['up', '--name', 'demo'])
    assert args.state_dir == Path.home() / '.cache/vnfm/localcloud/demo'


def test_heat_authenticates_with_keystone_and_uses_trusts(
    tmp_path: Path,
) -> None:
    conf = _read(files.write_heat_conf(_layout(tmp_path)))

    assert conf['keystone_authtoken']['auth_url'] == 'http://127.0.0.1:5000'
    assert conf['keystone_authtoken']['password'] == 'hp%w'
    assert conf['DEFAULT']['deferred_auth_method'] == 'trusts'
    assert conf['DEFAULT']['stack_user_domain_name'] == 'heat'
    assert conf['DEFAULT']['plugin_dirs'] == '/plugins/a,/plugins/b'
    assert conf['paste_deploy']['api_paste_config'] == (
        '/venv/etc/heat/api-paste.ini'
    )
    # No paste flavor: the default pipeline (keystonemiddleware), not noauth.
    assert not conf.has_option('paste_deploy', 'flavor')
    assert (tmp_path / 'heat' / 'heat.conf').stat().st_mode & 0o077 == 0


def test_keystone_issues_fernet_tokens_from_its_own_database(
    tmp_path: Path,
) -> None:
    conf = _read(files.write_keystone_conf(_layout(tmp_path)))

    assert conf['token']['provider'] == 'fernet'
    assert conf['database']['connection'].endswith('/ks')
    assert conf['fernet_tokens']['key_repository'].startswith(str(tmp_path))


def test_credentials_name_the_v3_endpoint_and_project() -> None:
    cloud = LocalCloud('/nonexistent', name='x')
    cloud.ports = {'keystone': 5000, 'heat': 8004}
    cloud.passwords = {'demo': 'pw'}

    creds = cloud.credentials('demo')

    assert creds['auth_url'] == 'http://127.0.0.1:5000/v3'
    assert (creds['username'], creds['project_name']) == ('demo', 'demo')
    assert creds['role'] == 'member'
    assert cloud.prefix == 'vnfm_lc_x'
