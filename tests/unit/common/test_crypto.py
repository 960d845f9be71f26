"""vnfm.common.crypto: Fernet encryption of stored credentials, sealing and
masking of vimConnectionInfo."""

import json
import os
import stat

import pytest
from cryptography import fernet

from vnfm.common import crypto
from vnfm.conf import CONF

SECRET = 'b3arer-t0ken-n3ver-shown'
PASSWORD = 'pa55w0rd-n3ver-shown'


@pytest.fixture(autouse=True)
def state_path(tmp_path):
    """An empty state_path and no configured keys."""
    CONF.set_override('state_path', str(tmp_path / 'state'))
    CONF.set_override('keys', [], group='crypto')
    crypto._file_keys.clear()
    yield tmp_path / 'state'
    CONF.clear_override('state_path')
    CONF.clear_override('keys', group='crypto')
    crypto._file_keys.clear()


def _keys(*keys: bytes) -> None:
    CONF.set_override('keys', [k.decode() for k in keys], group='crypto')


def test_round_trip_with_configured_key():
    _keys(fernet.Fernet.generate_key())
    data = {'bearer_token': SECRET, 'nested': {'n': 1}, 'unicode': 'ü日本'}

    token = crypto.encrypt(data)

    assert SECRET not in token
    assert crypto.decrypt(token) == data


def test_key_file_is_created_private_and_reused(state_path, caplog):
    token = crypto.encrypt({'password': PASSWORD})

    key_file = state_path / 'crypto.key'
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    assert 'Production deployments should set [crypto] keys' in caplog.text
    # Another process (an empty cache) decrypts with the same file.
    crypto._file_keys.clear()
    assert crypto.decrypt(token) == {'password': PASSWORD}
    assert [p.name for p in state_path.iterdir()] == ['crypto.key']


def test_rotation_first_key_encrypts_every_key_decrypts():
    old, new = fernet.Fernet.generate_key(), fernet.Fernet.generate_key()
    _keys(old)
    old_token = crypto.encrypt({'password': PASSWORD})

    _keys(new, old)
    assert crypto.decrypt(old_token) == {'password': PASSWORD}
    new_token = crypto.encrypt({'password': PASSWORD})
    rotated = crypto.rotate(old_token)

    _keys(new)
    assert crypto.decrypt(new_token) == {'password': PASSWORD}
    assert crypto.decrypt(rotated) == {'password': PASSWORD}
    with pytest.raises(crypto.DecryptionError) as e:
        crypto.decrypt(old_token)
    assert e.value.status == 500
    assert 'with its [crypto] keys' in e.value.detail


def test_bad_configured_key_is_reported_without_echoing_it():
    CONF.set_override('keys', ['not-a-fernet-key-but-secret'], group='crypto')

    with pytest.raises(ValueError) as e:
        crypto.encrypt({'a': 1})

    assert 'entry 0' in str(e.value)
    assert 'not-a-fernet-key-but-secret' not in str(e.value)


def test_tampered_token_is_rejected():
    token = crypto.encrypt({'password': PASSWORD})
    tampered = token[:-6] + ('A' if token[-6] != 'A' else 'B') + token[-5:]

    with pytest.raises(crypto.DecryptionError):
        crypto.decrypt(tampered)


def _vci() -> dict:
    return {
        'vim1': {
            'vimId': 'v-1',
            'vimType': 'ETSINFV.KUBERNETES.V_1',
            'interfaceInfo': {'endpoint': 'https://k8s:6443'},
            'accessInfo': {'bearer_token': SECRET},
        },
        'vim2': {
            'vimType': 'ETSINFV.OPENSTACK_KEYSTONE.V_3',
            'accessInfo': {
                'username': 'admin',
                'password': PASSWORD,
                'region': 'RegionOne',
                'project': 'nfv',
                'projectDomain': 'Default',
                'userDomain': 'Default',
            },
        },
        'vim3': {'vimId': 'v-3'},
    }


def test_seal_hides_secrets_and_unseal_restores_them():
    sealed = crypto.seal_vim_connection_info(_vci())

    text = json.dumps(sealed)
    assert SECRET not in text and PASSWORD not in text
    assert sealed['vim2']['accessInfo']['username'] == 'admin'
    assert sealed['vim2']['accessInfo']['region'] == 'RegionOne'
    assert sealed['vim2']['accessInfo']['password'] == crypto.MASK
    assert sealed['vim3'] == {'vimId': 'v-3'}
    assert crypto.unseal_vim_connection_info(sealed) == _vci()


def test_seal_is_idempotent_and_merges_new_secrets():
    sealed = crypto.seal_vim_connection_info(_vci())
    assert (
        crypto.unseal_vim_connection_info(
            crypto.seal_vim_connection_info(sealed)
        )
        == _vci()
    )

    # A merge patch of the stored value: one secret changed, the masked
    # one sent back unchanged.
    access = dict(
        sealed['vim2']['accessInfo'],
        password='new-pass',
        client_secret=crypto.MASK,
    )
    resealed = crypto.seal_vim_connection_info(
        {'vim2': {'accessInfo': access}}
    )
    plain = crypto.unseal_vim_connection_info(resealed)
    assert plain['vim2']['accessInfo']['password'] == 'new-pass'
    assert 'client_secret' not in plain['vim2']['accessInfo']


def test_v1_list_shape_is_sealed_too():
    v1 = [
        {
            'id': 'vim1',
            'vimType': 'kubernetes',
            'accessInfo': {'bearer_token': SECRET},
        }
    ]

    sealed = crypto.seal_vim_connection_info(v1)

    assert SECRET not in json.dumps(sealed)
    assert crypto.unseal_vim_connection_info(sealed) == v1


@pytest.mark.parametrize('sealed', [True, False], ids=['sealed', 'legacy'])
def test_mask_never_leaks(sealed):
    stored = crypto.seal_vim_connection_info(_vci()) if sealed else _vci()

    masked = crypto.mask_vim_connection_info(stored)

    text = json.dumps(masked)
    assert SECRET not in text and PASSWORD not in text
    assert crypto.SEALED not in text
    assert masked['vim1']['accessInfo'] == {'bearer_token': crypto.MASK}
    assert masked['vim2']['accessInfo'] == {
        'username': 'admin',
        'password': crypto.MASK,
        'region': 'RegionOne',
        'project': 'nfv',
        'projectDomain': 'Default',
        'userDomain': 'Default',
    }
    assert masked['vim1']['interfaceInfo'] == {'endpoint': 'https://k8s:6443'}


def test_mask_needs_no_key(state_path):
    sealed = crypto.seal_vim_connection_info(_vci())
    (state_path / 'crypto.key').unlink()
    crypto._file_keys.clear()
    _keys(fernet.Fernet.generate_key())

    masked = crypto.mask_vim_connection_info(sealed)

    assert masked['vim1']['accessInfo'] == {'bearer_token': crypto.MASK}
    with pytest.raises(crypto.DecryptionError):
        crypto.unseal_vim_connection_info(sealed)


@pytest.mark.parametrize('value', [None, 'text', 3, {'k': 'not-a-dict'}])
def test_non_maps_pass_through(value):
    assert crypto.mask_vim_connection_info(value) == value
    assert crypto.seal_vim_connection_info(value) == value


def test_a_token_of_another_host_names_the_shared_keys_setting():
    """What a conductor whose key differs from the API's reports."""
    _keys(fernet.Fernet.generate_key())
    token = crypto.encrypt({'password': PASSWORD})
    CONF.set_override('host', 'conductor-2')
    try:
        _keys(fernet.Fernet.generate_key())
        with pytest.raises(crypto.DecryptionError) as e:
            crypto.decrypt(token)
    finally:
        CONF.clear_override('host')
    assert e.value.detail == (
        'Stored credentials cannot be decrypted on host conductor-2 with its '
        '[crypto] keys: they were encrypted with another key. [crypto] keys '
        'must be the same on every vnfm-api and vnfm-conductor (keep an old '
        'key listed after the new one until nothing encrypted with it is '
        'left).'
    )
    assert PASSWORD not in str(e.value.to_problem())


def test_a_host_local_key_is_named_as_such():
    token = fernet.Fernet(fernet.Fernet.generate_key()).encrypt(b'{}')
    with pytest.raises(crypto.DecryptionError) as e:
        crypto.decrypt(token.decode())
    assert (
        'with the key it generated for itself ([crypto] keys is not set)'
    ) in e.value.detail


def test_split_processes_require_shared_keys(state_path):
    with pytest.raises(crypto.KeysNotConfigured) as e:
        crypto.require_shared_keys('vnfm-api')
    assert e.value.detail.startswith('vnfm-api needs [crypto] keys: ')
    assert 'Fernet.generate_key()' in e.value.detail
    assert not state_path.exists()  # no host-local key generated
    CONF.set_override('keys', ['not-a-key'], group='crypto')
    with pytest.raises(crypto.KeysNotConfigured) as e:
        crypto.require_shared_keys('vnfm-api')
    assert 'is not a Fernet key' in e.value.detail
    _keys(fernet.Fernet.generate_key())
    crypto.require_shared_keys('vnfm-api')


# -- additionalParams ---------------------------------------------------------

_PARAMS = {
    'k8s_cluster_installation_param': {
        'script_path': 'Scripts/install.sh',
        'master_node': {'username': 'ubuntu', 'password': PASSWORD},
        'worker_node': {'username': 'ubuntu', 'password': 'w0rker-pw-x'},
        'nodes': [{'private_key': SECRET}, {'name': 'plain'}],
    },
    'lcm-operation-user-data': 'UserData/base.py',
}


def test_params_are_sealed_at_any_depth_and_unsealed_exactly():
    sealed = crypto.seal_params(_PARAMS)
    text = json.dumps(sealed)
    for secret in (PASSWORD, 'w0rker-pw-x', SECRET):
        assert secret not in text
    inner = sealed['k8s_cluster_installation_param']
    assert inner['master_node'] == {
        'username': 'ubuntu',
        'password': '********',
    }
    assert inner['nodes'][1] == {'name': 'plain'}
    assert crypto.unseal_params(sealed) == _PARAMS


def test_params_sealed_twice_keep_their_secrets():
    sealed = crypto.seal_params(crypto.seal_params(_PARAMS))
    assert crypto.unseal_params(sealed) == _PARAMS


def test_params_without_secrets_are_stored_as_given():
    plain = {'lcm-kubernetes-def-files': ['a.yaml'], 'password': None}
    assert crypto.seal_params(plain) == plain
    assert crypto.unseal_params(plain) == plain
