"""Configuration files of the local Keystone and Heat."""

from __future__ import annotations

import configparser
import io
from dataclasses import dataclass
from pathlib import Path

REGION = 'RegionOne'
SERVICE_PROJECT = 'service'
HEAT_USER = 'heat'
STACK_DOMAIN = 'heat'
STACK_DOMAIN_ADMIN = 'heat_domain_admin'


@dataclass(frozen=True)
class CloudLayout:
    """Where one local cloud's files are, its ports, databases and secrets."""

    state_dir: Path
    venv: Path
    keystone_port: int
    heat_port: int
    keystone_db_url: str
    heat_db_url: str
    transport_url: str
    heat_password: str
    domain_admin_password: str
    plugin_dirs: tuple[Path, ...] = ()

    @property
    def keystone_url(self) -> str:
        """Root URL of Keystone (what ``--os-auth-url`` takes)."""
        return f'http://127.0.0.1:{self.keystone_port}'

    @property
    def heat_url(self) -> str:
        """Root URL of the Heat API."""
        return f'http://127.0.0.1:{self.heat_port}'

    @property
    def keystone_conf(self) -> Path:
        """keystone.conf of this cloud."""
        return self.state_dir / 'keystone' / 'keystone.conf'

    @property
    def heat_conf(self) -> Path:
        """heat.conf of this cloud."""
        return self.state_dir / 'heat' / 'heat.conf'

    def bin(self, name: str) -> str:
        """A console script of the OpenStack virtualenv."""
        return str(self.venv / 'bin' / name)


def _write(path: Path, sections: dict[str, dict[str, object]]) -> Path:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    for section, opts in sections.items():
        if section != 'DEFAULT':
            parser.add_section(section)
        for key, value in opts.items():
            parser.set(section, key, str(value))
    buf = io.StringIO()
    parser.write(buf)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(buf.getvalue())
    path.chmod(0o600)  # holds the service passwords
    return path


def write_keystone_conf(lay: CloudLayout) -> Path:
    """keystone.conf: PostgreSQL, fernet tokens, keys in the state dir."""
    base = lay.keystone_conf.parent
    return _write(
        lay.keystone_conf,
        {
            'DEFAULT': {'use_stderr': 'true'},
            'database': {'connection': lay.keystone_db_url},
            'token': {'provider': 'fernet', 'expiration': 3600},
            'fernet_tokens': {'key_repository': base / 'fernet-keys'},
            'fernet_receipts': {'key_repository': base / 'fernet-receipts'},
            'credential': {'key_repository': base / 'credential-keys'},
            # In-process cache: without it every request runs ~200 queries.
            'cache': {'enabled': 'true', 'backend': 'dogpile.cache.memory'},
            # bcrypt's fewest rounds: test passwords need no slow hashing.
            'identity': {'password_hash_rounds': 4},
        },
    )


def write_heat_conf(lay: CloudLayout) -> Path:
    """heat.conf: Keystone auth (no noauth), trusts and a stack domain."""
    auth: dict[str, object] = {
        'auth_type': 'password',
        'auth_url': lay.keystone_url,
        'username': HEAT_USER,
        'password': lay.heat_password,
        'user_domain_name': 'Default',
    }
    base = lay.heat_conf.parent
    default: dict[str, object] = {
        'host': 'localcloud',
        'use_stderr': 'true',
        'transport_url': lay.transport_url,
        'num_engine_workers': 1,
        'region_name_for_services': REGION,
        'deferred_auth_method': 'trusts',
        'stack_user_domain_name': STACK_DOMAIN,
        'stack_domain_admin': STACK_DOMAIN_ADMIN,
        'stack_domain_admin_password': lay.domain_admin_password,
        'heat_metadata_server_url': lay.heat_url,
        'heat_waitcondition_server_url': f'{lay.heat_url}/v1/waitcondition',
        'convergence_engine': 'true',
        'observe_on_update': 'false',
        'periodic_interval': 5,
    }
    if lay.plugin_dirs:
        default['plugin_dirs'] = ','.join(str(p) for p in lay.plugin_dirs)
    return _write(
        lay.heat_conf,
        {
            'DEFAULT': default,
            'database': {'connection': lay.heat_db_url},
            'keystone_authtoken': {
                **auth,
                'www_authenticate_uri': f'{lay.keystone_url}/v3',
                'project_name': SERVICE_PROJECT,
                'project_domain_name': 'Default',
            },
            'trustee': auth,
            'clients_keystone': {'auth_uri': lay.keystone_url},
            'ec2authtoken': {'auth_uri': f'{lay.keystone_url}/v3'},
            'paste_deploy': {
                'api_paste_config': lay.venv / 'etc' / 'heat' / 'api-paste.ini'
            },
            'oslo_messaging_notifications': {'driver': 'noop'},
            # heat-engine may start before its vhost exists: retry each
            # second, not with a growing pause.
            'oslo_messaging_rabbit': {'rabbit_retry_backoff': 0},
            'oslo_concurrency': {'lock_path': base / 'lock'},
            'cache': {'enabled': 'true', 'backend': 'dogpile.cache.memory'},
        },
    )
