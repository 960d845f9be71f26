"""``openstack vim register|list|show|set|delete`` (python-tackerclient)
against a running vnfm-api; the VIM's credentials never come back out."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
import yaml

from vnfm_testbed import procs
from vnfm_testbed.client import ClientError
from vnfm_testbed.client import TackerClient
from vnfm_testbed.k8s import certs

TOKEN = 'vim-bearer-t0ken-' + uuid.uuid4().hex
PASSWORD = 'vim-passw0rd-' + uuid.uuid4().hex


def _config(path: Path, **values: object) -> str:
    path.write_text(yaml.safe_dump(values))
    return str(path)


@pytest.fixture
def k8s_config(tmp_path: Path) -> dict:
    """A Kubernetes vim.yaml as Tacker documents it."""
    return {
        'auth_url': 'https://127.0.0.1:6443',
        'type': 'kubernetes',
        'project_name': 'default',
        'bearer_token': TOKEN,
        'ssl_ca_cert': certs.make_ca().cert_pem.decode(),
    }


def _assert_never_shown(
    client: TackerClient, services: procs.VnfmServices
) -> None:
    printed = client.printed()
    assert TOKEN not in printed and PASSWORD not in printed
    logs = services.logs['api'].read_text(errors='replace')
    assert TOKEN not in logs and PASSWORD not in logs
    stored = repr(services.sql('SELECT auth_cred, extra FROM vims'))
    assert TOKEN not in stored and PASSWORD not in stored


def test_vim_lifecycle(
    client: TackerClient,
    services: procs.VnfmServices,
    tmp_path: Path,
    k8s_config: dict,
) -> None:
    name = f'k8s-{uuid.uuid4().hex[:8]}'
    vim = _register(client, tmp_path, k8s_config, name)
    _listed_and_shown(client, k8s_config, name, vim['id'])
    _set_new_credentials_and_name(client, tmp_path, name)
    out = client.run('vim', 'delete', name + '-new')
    assert 'deleted successfully' in out
    with pytest.raises(ClientError):
        client.run('vim', 'show', vim['id'])
    _assert_never_shown(client, services)


def _register(
    client: TackerClient, tmp_path: Path, k8s_config: dict, name: str
) -> dict:
    """``openstack vim register``: ACTIVE, the token masked."""
    config = _config(tmp_path / 'vim.yaml', **k8s_config)
    vim = client.json(
        'vim',
        'register',
        '--config-file',
        config,
        '--description',
        'edge cluster',
        name,
    )
    assert vim['name'] == name and vim['type'] == 'kubernetes'
    assert vim['status'] == 'ACTIVE'
    assert vim['description'] == 'edge cluster'
    assert vim['auth_cred']['bearer_token'] == '***'
    assert vim['auth_url'] == 'https://127.0.0.1:6443'
    return vim


def _listed_and_shown(
    client: TackerClient, k8s_config: dict, name: str, vim_id: str
) -> None:
    """``vim list`` shows it ACTIVE; ``vim show`` by name, with its CA."""
    listed = client.json('vim', 'list')
    assert [v['Status'] for v in listed if v['Name'] == name] == ['ACTIVE']
    shown = client.json('vim', 'show', name)
    assert shown['id'] == vim_id
    assert shown['auth_cred']['ssl_ca_cert'] == k8s_config['ssl_ca_cert']


def _set_new_credentials_and_name(
    client: TackerClient, tmp_path: Path, name: str
) -> None:
    """``vim set`` to a password and a new name: the password masked."""
    new_config = _config(
        tmp_path / 'new.yaml',
        project_name='default',
        username='admin',
        password=PASSWORD,
    )
    updated = client.json(
        'vim',
        'set',
        '--config-file',
        new_config,
        '--name',
        name + '-new',
        name,
    )
    assert updated['name'] == name + '-new'
    assert updated['auth_cred']['password'] == '***'
    assert updated['auth_cred']['username'] == 'admin'


def test_default_flag(
    client: TackerClient,
    services: procs.VnfmServices,
    tmp_path: Path,
    k8s_config: dict,
) -> None:
    name = f'default-{uuid.uuid4().hex[:8]}'
    config = _config(tmp_path / 'vim.yaml', **k8s_config)

    vim = client.json(
        'vim', 'register', '--config-file', config, '--is-default', name
    )
    try:
        assert vim['is_default'] is True
        with pytest.raises(ClientError) as e:
            client.run(
                'vim',
                'register',
                '--config-file',
                config,
                '--is-default',
                name + '-2',
            )
        assert 'already the default kubernetes VIM' in e.value.output
        unset = client.json('vim', 'set', '--is-default', 'False', name)
        assert unset['is_default'] is False
    finally:
        client.run('vim', 'delete', name)
    _assert_never_shown(client, services)


def test_rejected_registrations(
    client: TackerClient,
    services: procs.VnfmServices,
    tmp_path: Path,
    k8s_config: dict,
) -> None:
    name = f'bad-{uuid.uuid4().hex[:8]}'
    bad_ca = _config(
        tmp_path / 'bad.yaml',
        **dict(k8s_config, ssl_ca_cert='not a certificate'),
    )
    good = _config(tmp_path / 'good.yaml', **k8s_config)

    with pytest.raises(ClientError) as e:
        client.run('vim', 'register', '--config-file', bad_ca, name)
    assert 'ssl_ca_cert is not a valid PEM certificate' in e.value.output

    client.run('vim', 'register', '--config-file', good, name)
    try:
        with pytest.raises(ClientError) as e:
            client.run('vim', 'register', '--config-file', good, name)
        assert 'already exists' in e.value.output
    finally:
        client.run('vim', 'delete', name)
    assert name not in client.run('vim', 'list')
    _assert_never_shown(client, services)
