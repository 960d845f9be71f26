"""vnfm-db-manage on a temp-file SQLite database."""

import pytest

from vnfm.cmd import dbsync
from vnfm.db import migration


@pytest.fixture
def conf_file(tmp_path):
    path = tmp_path / 'vnfm.conf'
    path.write_text(f'[database]\nconnection = sqlite:///{tmp_path}/db\n')
    return str(path)


def test_upgrade_then_current_shows_head(conf_file, capsys, tmp_path):
    assert dbsync.main(['--config-file', conf_file, 'current']) == 0
    assert 'empty' in capsys.readouterr().out

    assert dbsync.main(['--config-file', conf_file, 'upgrade']) == 0
    assert dbsync.main(['--config-file', conf_file, 'current']) == 0

    assert (
        capsys.readouterr().out.splitlines()[-1]
        == f'{migration.head()} (head)'
    )
    assert (
        migration.current(url=f'sqlite:///{tmp_path}/db') == migration.head()
    )


def test_revision_refuses_a_database_behind_head(conf_file, capsys):
    assert (
        dbsync.main(['--config-file', conf_file, 'revision', '-m', 'x']) == 1
    )
    assert 'upgrade' in capsys.readouterr().err


def test_unknown_command_exits_with_usage(conf_file):
    with pytest.raises(SystemExit) as e:
        dbsync.main(['--config-file', conf_file, 'downgrade'])
    assert e.value.code == 2
