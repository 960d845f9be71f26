"""Encryption of the credentials vnfm stores, and their masking in views.

Secrets are Fernet tokens (AES-128-CBC + HMAC-SHA256) under the ``[crypto]
keys``; MultiFernet lets a new key encrypt while old ones still decrypt.

A vimConnectionInfo is stored *sealed*: in each ``accessInfo`` the values
that identify (``username``, ``region``, ...) stay readable, every other
value is replaced by ``MASK`` and the real values travel encrypted under
``_sealed``. Views mask without a key; only drivers unseal.
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
from collections.abc import Callable
from typing import Any

from cryptography import fernet
from oslo_log import log as logging

from vnfm.common import exceptions
from vnfm.conf import CONF

LOG = logging.getLogger(__name__)

MASK = '********'
SEALED = '_sealed'
KEY_FILE = 'crypto.key'
# accessInfo keys that identify rather than authenticate: kept readable.
PUBLIC_ACCESS_KEYS = frozenset(
    {
        'username',
        'userName',
        'region',
        'project',
        'projectId',
        'projectName',
        'projectDomain',
        'userDomain',
        'projectDomainName',
        'userDomainName',
        'authUrl',
    }
)
# Keys whose values are secrets wherever they appear in a request or a VIM.
SECRET_KEYS = frozenset(
    {
        'password',
        'bearer_token',
        'bearerToken',
        'client_secret',
        'clientSecret',
        'secret',
        'token',
        'private_key',
        'privateKey',
        'ssh_private_key',
        'client_key',
        'clientKey',
        'paramsOauth2ClientCredentials',
        'paramsBasic',
    }
)


# What an operator must configure so that every process reads what any
# other one sealed.
SHARED_KEYS = (
    '[crypto] keys must be the same on every vnfm-api and vnfm-conductor'
)
_NEW_KEY = (
    'python3 -c "from cryptography.fernet import Fernet; '
    'print(Fernet.generate_key().decode())"'
)


class DecryptionError(exceptions.VnfmError):
    """Stored credentials cannot be read with the configured keys."""

    title = 'Stored Credentials Unreadable'


class KeysNotConfigured(exceptions.VnfmError):
    """A process of a split deployment has no usable shared keys."""

    title = 'Encryption Keys Not Configured'


def _undecryptable() -> DecryptionError:
    source = (
        'its [crypto] keys'
        if _configured_keys()
        else 'the key it generated for itself ([crypto] keys is not set)'
    )
    return DecryptionError(
        f'Stored credentials cannot be decrypted on host {CONF.host} with '
        f'{source}: they were encrypted with another key. {SHARED_KEYS} '
        '(keep an old key listed after the new one until nothing '
        'encrypted with it is left).'
    )


def require_shared_keys(process: str) -> None:
    """KeysNotConfigured unless ``[crypto] keys`` holds valid Fernet keys:
    a process that shares the database with processes on other hosts must
    read what they encrypt (only vnfm-all may use a host-local key)."""
    keys = _configured_keys()
    if not keys:
        raise KeysNotConfigured(
            f'{process} needs [crypto] keys: without them each host '
            'generates its own key and cannot read the credentials the '
            f'others store. Generate a key once ({_NEW_KEY}) and set it; '
            f'{SHARED_KEYS}.'
        )
    try:
        _multi_fernet(keys)
    except ValueError as e:
        raise KeysNotConfigured(str(e)) from None


# Key files read so far, by path (state_path differs between tests).
_file_keys: dict[str, str] = {}


def _configured_keys() -> tuple[str, ...]:
    # Item access: ``CONF.crypto.keys`` is the group's Mapping.keys method.
    return tuple(k.strip() for k in CONF.crypto['keys'] if k.strip())


def _key_from_file() -> str:
    path = os.path.join(CONF.state_path, KEY_FILE)
    if path not in _file_keys:
        _file_keys[path] = _read_or_create_key_file(path)
    return _file_keys[path]


def _read_or_create_key_file(path: str) -> str:
    try:
        with open(path, encoding='ascii') as f:
            return f.read().strip()
    except FileNotFoundError:
        pass
    os.makedirs(CONF.state_path, mode=0o700, exist_ok=True)
    # Written whole to a private temp file, then linked into place: a
    # process racing us either wins the link or reads a complete key.
    fd, tmp = tempfile.mkstemp(dir=CONF.state_path, prefix='.crypto-')
    try:
        with os.fdopen(fd, 'w', encoding='ascii') as f:
            f.write(fernet.Fernet.generate_key().decode())
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)
            LOG.warning(
                'No [crypto] keys configured: generated a key in %s. '
                'Production deployments should set [crypto] keys '
                '(the same on every vnfm host).',
                path,
            )
        except FileExistsError:
            pass
    finally:
        os.unlink(tmp)
    with open(path, encoding='ascii') as f:
        return f.read().strip()


@functools.lru_cache(maxsize=4)
def _multi_fernet(keys: tuple[str, ...]) -> fernet.MultiFernet:
    ciphers = []
    for index, key in enumerate(keys):
        try:
            ciphers.append(fernet.Fernet(key))
        except ValueError:
            # Never echo the key itself.
            raise ValueError(
                f'[crypto] keys entry {index} is not a Fernet key (url-safe '
                'base64 of 32 bytes).'
            ) from None
    return fernet.MultiFernet(ciphers)


def _cipher() -> fernet.MultiFernet:
    keys = _configured_keys() or (_key_from_file(),)
    return _multi_fernet(keys)


def encrypt(data: dict) -> str:
    """A Fernet token of ``data`` (JSON) under the first configured key."""
    plain = json.dumps(data, separators=(',', ':'), sort_keys=True)
    return _cipher().encrypt(plain.encode()).decode('ascii')


def decrypt(token: str) -> dict:
    """The dict sealed in ``token`` by ``encrypt`` under any configured key."""
    try:
        plain = _cipher().decrypt(token.encode('ascii'))
    except (fernet.InvalidToken, UnicodeEncodeError):
        raise _undecryptable() from None
    return json.loads(plain)


def rotate(token: str) -> str:
    """``token`` re-encrypted under the first key (for key rotation)."""
    try:
        return _cipher().rotate(token.encode('ascii')).decode('ascii')
    except fernet.InvalidToken:
        raise _undecryptable() from None


# -- vimConnectionInfo --------------------------------------------------------


def _map_entries(vci: Any, fn: Callable[[dict], dict]) -> Any:
    """Apply ``fn`` to the accessInfo of each VimConnectionInfo of a v2 map
    (or a v1 list); anything else is returned unchanged."""

    def one(info: Any) -> Any:
        if isinstance(info, dict) and isinstance(info.get('accessInfo'), dict):
            return dict(info, accessInfo=fn(info['accessInfo']))
        return info

    if isinstance(vci, dict):
        return {key: one(info) for key, info in vci.items()}
    if isinstance(vci, list):
        return [one(info) for info in vci]
    return vci


def _secrets_of(access: dict) -> dict:
    """The secret values of an accessInfo, sealed or not."""
    secrets = decrypt(access[SEALED]) if SEALED in access else {}
    for key, value in access.items():
        # MASK means "unchanged": a view sent back keeps the sealed value.
        if key not in PUBLIC_ACCESS_KEYS and key != SEALED and value != MASK:
            secrets[key] = value
    return secrets


def _seal_access(access: dict) -> dict:
    secrets = _secrets_of(access)
    sealed = {k: v for k, v in access.items() if k in PUBLIC_ACCESS_KEYS}
    if secrets:
        sealed.update(dict.fromkeys(secrets, MASK))
        sealed[SEALED] = encrypt(secrets)
    return sealed


def _unseal_access(access: dict) -> dict:
    plain = {k: v for k, v in access.items() if k in PUBLIC_ACCESS_KEYS}
    plain.update(_secrets_of(access))
    return plain


def _mask_access(access: dict) -> dict:
    return {
        k: (v if k in PUBLIC_ACCESS_KEYS else MASK)
        for k, v in access.items()
        if k != SEALED
    }


def seal_vim_connection_info(vci: Any) -> Any:
    """A copy of a vimConnectionInfo map (or v1 list) fit to store: secret
    accessInfo values encrypted. Already sealed entries are merged with the
    new values; a value equal to ``MASK`` keeps the sealed one."""
    return _map_entries(vci, _seal_access)


def unseal_vim_connection_info(stored: Any) -> Any:
    """The vimConnectionInfo with its secrets in clear, for drivers only.
    Unsealed (legacy) entries come back as they are."""
    return _map_entries(stored, _unseal_access)


def mask_vim_connection_info(stored: Any) -> Any:
    """The vimConnectionInfo for API views: every secret accessInfo value
    is ``MASK``; works on sealed and unsealed data, without a key."""
    return _map_entries(stored, _mask_access)


# -- secrets in request parameters (additionalParams) -------------------------


def _secret_paths(
    value: Any, path: tuple, found: list[tuple[tuple, Any]]
) -> Any:
    """``value`` with every secret masked; (path, secret) pairs collected."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key == SEALED:
                continue
            if key in SECRET_KEYS and item is not None and item != MASK:
                found.append(((*path, key), item))
                out[key] = MASK
            else:
                out[key] = _secret_paths(item, (*path, key), found)
        return out
    if isinstance(value, list):
        return [
            _secret_paths(v, (*path, i), found) for i, v in enumerate(value)
        ]
    return value


def seal_params(params: Any) -> Any:
    """A copy of a JSON object (a request's additionalParams) fit to store:
    every value under a key of ``SECRET_KEYS``, at any depth, is ``MASK``
    and travels encrypted under ``_sealed``. Sealing sealed data again
    keeps its secrets."""
    if not isinstance(params, dict):
        return params
    found: list[tuple[tuple, Any]] = []
    sealed = _secret_paths(unseal_params(params), (), found)
    if found:
        sealed[SEALED] = encrypt({'secrets': [[list(p), v] for p, v in found]})
    return sealed


def unseal_params(stored: Any) -> Any:
    """The parameters ``seal_params`` stored, with their secrets in clear
    (for drivers only); unsealed data comes back as it is."""
    if not isinstance(stored, dict) or SEALED not in stored:
        return stored
    plain = json.loads(json.dumps(stored))
    token = plain.pop(SEALED)
    for path, secret in decrypt(token)['secrets']:
        node = plain
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = secret
    return plain
