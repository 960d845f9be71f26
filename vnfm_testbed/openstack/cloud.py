"""A real Keystone and Heat on loopback, on RabbitMQ and PostgreSQL, and
the image service of ``glance.py``."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import secrets
import signal
import subprocess  # nosec B404 - our own daemons and keystone-manage
import time
from collections.abc import Callable
from concurrent import futures
from pathlib import Path
from typing import Any

import requests

from vnfm_testbed import procs
from vnfm_testbed.k8s import certs
from vnfm_testbed.openstack import build
from vnfm_testbed.openstack import catalogue
from vnfm_testbed.openstack import databases
from vnfm_testbed.openstack import files
from vnfm_testbed.openstack import identity
from vnfm_testbed.openstack import outside

_DAEMONS = ('keystone', 'heat-engine', 'heat-api', 'glance')
_WSGI_HOST = Path(__file__).resolve().with_name('wsgi_host.py')
_KEYSTONE_SETUP = _WSGI_HOST.with_name('keystone_setup.py')
PLUGIN_DIR = Path(__file__).resolve().with_name('heat_plugin')
ADMIN = 'admin'
#: Test accounts besides the admin: (user, project, role).
USERS = (
    ('demo', 'demo', 'member'),
    ('demo-reader', 'demo', 'reader'),
    ('other', 'other', 'member'),
)


class CloudError(RuntimeError):
    """The local cloud failed to start or is not in the expected state."""


def _together(*steps: Callable[[], object]) -> None:
    """Run ``steps`` in threads; raise the first failure after all end."""
    with futures.ThreadPoolExecutor(len(steps)) as pool:
        for done in [pool.submit(step) for step in steps]:
            done.result()


def _password() -> str:
    return secrets.token_urlsafe(18)


class LocalCloud:
    """Runs Keystone, heat-api and heat-engine; stops by pid and drops its
    databases and RabbitMQ vhost."""

    def __init__(
        self,
        state_dir: str | Path,
        name: str = 'default',
        die_with_parent: bool = False,
        plugin_dirs: tuple[Path, ...] = (PLUGIN_DIR,),
    ) -> None:
        self.state_dir = Path(state_dir).resolve()
        self.name = name
        self.die_with_parent = die_with_parent
        self.plugin_dirs = plugin_dirs
        self.pids: dict[str, int] = {}
        self.ports: dict[str, int] = {}
        self.passwords: dict[str, str] = {}
        self.venv: Path | None = None
        self.startup_seconds = 0.0

    # -- facts --------------------------------------------------------------

    @property
    def prefix(self) -> str:
        """Prefix of this cloud's databases and RabbitMQ vhost."""
        return f'vnfm_lc_{self.name}'

    @property
    def auth_url(self) -> str:
        """Keystone's root URL (``--os-auth-url`` takes it with ``/v3``)."""
        return f'http://127.0.0.1:{self.ports["keystone"]}'

    @property
    def heat_url(self) -> str:
        """Root URL of the Heat API."""
        return f'http://127.0.0.1:{self.ports["heat"]}'

    @property
    def image_url(self) -> str:
        """Root URL of the image service (Glance's v2 API)."""
        return f'http://127.0.0.1:{self.ports["glance"]}'

    def account(self, user: str = 'demo') -> identity.Account:
        """The admin (``admin``) or a test user of :data:`USERS`."""
        if user == ADMIN:
            return identity.Account(
                ADMIN, self.passwords[ADMIN], ADMIN, 'admin'
            )
        _, project, role = next(u for u in USERS if u[0] == user)
        return identity.Account(user, self.passwords[user], project, role)

    def credentials(self, user: str = 'demo') -> dict[str, str]:
        """``auth_url``, ``username``, ``password``... of ``user``."""
        return self.account(user).credentials(self.auth_url) | {
            'region_name': files.REGION
        }

    def client_env(self, user: str = 'demo') -> dict[str, str]:
        """The ``OS_*`` variables of the openstack client as ``user``."""
        creds = self.credentials(user)
        return {
            f'OS_{key.upper()}': creds[key]
            for key in (*identity.CLIENT_KEYS, 'region_name')
        } | {'OS_IDENTITY_API_VERSION': '3'}

    def session(self, user: str = 'demo') -> Any:
        """A keystoneauth1 session of ``user``."""
        return identity.session(self.auth_url, self.account(user))

    def describe(self) -> dict[str, Any]:
        """JSON-able description of the running cloud."""
        return {
            'name': self.name,
            'endpoints': {
                'identity': f'{self.auth_url}/v3',
                'orchestration': f'{self.heat_url}/v1',
                'image': self.image_url,
            },
            'region_name': files.REGION,
            'admin': self.credentials(ADMIN),
            'users': {u: self.credentials(u) for u, _, _ in USERS},
            'ca_cert_path': None,
            'catalogue': self.catalogue(),
            'networks': catalogue.networks(self.state_dir),
            'state_dir': str(self.state_dir),
            'pids': dict(self.pids),
            'ports': dict(self.ports),
            'startup_seconds': round(self.startup_seconds, 2),
        }

    def catalogue(self) -> dict[str, Any]:
        """Images, flavours and networks (with subnets and ids)."""
        path = self.state_dir / 'catalogue.json'
        return json.loads(path.read_text()) if path.exists() else {}

    def add_keypair(self, name: str, public_key: str) -> None:
        """Register a Nova keypair that templates can name in key_name."""
        keys = self.state_dir / 'keypairs'
        keys.mkdir(exist_ok=True)
        (keys / f'{name}.pub').write_text(public_key.strip() + '\n')

    def delete_server(self, server_id: str) -> None:
        """Delete a server behind Heat's back, as ``openstack server
        delete`` would (see ``outside``)."""
        outside.delete_server(self.state_dir, server_id)

    def set_host_capacity(self, max_servers: int | None) -> None:
        """At most ``max_servers`` VMs run (None: no limit): a server
        created beyond fails as Nova's "No valid host was found"."""
        path = self.state_dir / 'host.json'
        if max_servers is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(json.dumps({'max_servers': max_servers}))

    def vm_dirs(self) -> list[Path]:
        """Directories of the VMs running now (one per server)."""
        vms = self.state_dir / 'vms'
        return sorted(vms.iterdir()) if vms.exists() else []

    def _layout(self) -> files.CloudLayout:
        assert self.venv is not None
        return files.CloudLayout(
            state_dir=self.state_dir,
            venv=self.venv,
            keystone_port=self.ports['keystone'],
            heat_port=self.ports['heat'],
            keystone_db_url=f'{procs.POSTGRES_URL}/{self.prefix}_keystone',
            heat_db_url=f'{procs.POSTGRES_URL}/{self.prefix}_heat',
            transport_url=f'rabbit://{procs.RABBIT}/{self.prefix}',
            heat_password=self.passwords['heat'],
            domain_admin_password=self.passwords['heat_domain_admin'],
            plugin_dirs=self.plugin_dirs,
        )

    # -- lifecycle ----------------------------------------------------------

    def start(self, timeout: float = 180.0) -> LocalCloud:
        """Copy the databases, set up Keystone, start Heat and wait until
        a user can reach it; on failure undo everything."""
        self.venv = build.ensure_built()
        begin = time.monotonic()
        deadline = begin + timeout
        try:
            self._prepare()
            lay = self._layout()
            files.write_keystone_conf(lay)
            files.write_heat_conf(lay)
            _together(
                lambda: self._database('keystone', lay, deadline),
                lambda: self._database('heat', lay, deadline),
            )
            # Keystone's keys and bootstrap run while heat-api and
            # heat-engine import and rabbitmqctl makes the vhost (Heat asks
            # Keystone nothing before the first request). Daemons are
            # spawned by this thread only: die_with_parent follows it.
            setup = self._launch('keystone-manage', self._keystone_setup(lay))
            try:
                self._spawn_heat(lay)  # RPC reconnects until the vhost is
                procs.create_vhost(self.prefix)
            finally:
                self._finish(setup, 'keystone-manage', deadline)
            self._spawn_keystone(lay)
            self._wait(
                lambda: self._answers(f'{lay.keystone_url}/v3'),
                deadline,
                'Keystone',
            )
            self._create_accounts(lay)
            self._wait(
                lambda: self._engine_answers(self.session(ADMIN)),
                deadline,
                'heat-api and heat-engine',
            )
        except BaseException:
            self.stop()
            raise
        self.startup_seconds = time.monotonic() - begin
        self._save_state()
        (self.state_dir / 'starting').unlink(missing_ok=True)
        return self

    def stop(self) -> None:
        """Stop the daemons, drop the databases and the vhost."""
        procs.stop_all(
            [self.pids[d] for d in reversed(_DAEMONS) if d in self.pids]
        )
        self.pids.clear()
        catalogue.destroy(self.state_dir, self.prefix)
        self._drop_backends()
        for done in ('state.json', 'starting'):
            (self.state_dir / done).unlink(missing_ok=True)

    def running(self) -> bool:
        """Tell whether every daemon is still alive."""
        return bool(self.pids) and all(
            procs.is_running(pid) for pid in self.pids.values()
        )

    def memory_kib(self) -> dict[str, int]:
        """Resident memory of each daemon in KiB."""
        return {d: procs.rss_kib(pid) for d, pid in self.pids.items()}

    def __enter__(self) -> LocalCloud:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @classmethod
    def load(cls, state_dir: str | Path) -> LocalCloud:
        """Rebuild the handle of a cloud started by ``vnfm-localcloud up``."""
        data = json.loads((Path(state_dir) / 'state.json').read_text())
        cloud = cls(state_dir, name=data['name'])
        cloud.pids, cloud.ports, cloud.passwords = (
            data['pids'],
            data['ports'],
            data['passwords'],
        )
        cloud.venv = Path(data['venv'])
        cloud.startup_seconds = data.get('startup_seconds', 0.0)
        return cloud

    # -- internals ----------------------------------------------------------

    def _save_state(self) -> None:
        data = {
            'name': self.name,
            'pids': self.pids,
            'ports': self.ports,
            'passwords': self.passwords,
            'venv': str(self.venv),
            'startup_seconds': self.startup_seconds,
        }
        certs.write_private(
            self.state_dir / 'state.json', json.dumps(data, indent=2).encode()
        )

    def _drop_backends(self) -> None:
        _together(
            lambda: procs.drop_database(f'{self.prefix}_keystone'),
            lambda: procs.drop_database(f'{self.prefix}_heat'),
            self._delete_vhost,
        )

    def _delete_vhost(self) -> None:
        with contextlib.suppress(RuntimeError):  # not there: nothing to do
            procs.delete_vhost(self.prefix)

    def _prepare(self) -> None:
        (self.state_dir / 'logs').mkdir(parents=True, exist_ok=True)
        catalogue.destroy(self.state_dir, self.prefix)
        marker = self.state_dir / 'starting'
        if marker.exists() or (self.state_dir / 'state.json').exists():
            self._drop_backends()  # leftovers of a crashed run of this name
        marker.touch()
        catalogue.create(self.state_dir, self.prefix)
        self.ports = {
            k: procs.free_port() for k in ('keystone', 'heat', 'glance')
        }
        self.passwords = {
            u: _password()
            for u in (
                ADMIN,
                'heat',
                'heat_domain_admin',
                *(u[0] for u in USERS),
            )
        }

    def _database(
        self, service: str, lay: files.CloudLayout, deadline: float
    ) -> None:
        """The service's database, a copy of its migrated template."""
        assert self.venv is not None
        template = databases.ensure_template(
            service,
            self.venv,
            lambda url: self._migrate(service, lay, url, deadline),
        )
        databases.copy(f'{self.prefix}_{service}', template)

    def _migrate(
        self, service: str, lay: files.CloudLayout, url: str, deadline: float
    ) -> None:
        """Migrate the empty database at ``url`` (a template to be)."""
        work = dataclasses.replace(
            lay,
            state_dir=self.state_dir / 'migrate',
            keystone_db_url=url,
            heat_db_url=url,
        )
        if service == 'keystone':
            conf = files.write_keystone_conf(work)
            argv = [lay.bin('python'), str(_KEYSTONE_SETUP), str(conf)]
            self._run(
                'keystone-manage',
                [*argv, '--db-sync', '--no-bootstrap'],
                deadline,
            )
        else:
            conf = files.write_heat_conf(work)
            argv = [lay.bin('heat-manage'), '--config-file', str(conf)]
            self._run('heat-manage', [*argv, 'db_sync'], deadline)

    def _run(self, what: str, argv: list[str], deadline: float) -> None:
        self._finish(self._launch(what, argv), what, deadline)

    def _launch(self, what: str, argv: list[str]) -> subprocess.Popen[bytes]:
        """Start a set-up command; :meth:`_finish` waits for it."""
        # The admin password goes by environment: not on a command line
        # (ps shows those), where one starting with "-" is an option.
        env = {**os.environ, 'OS_BOOTSTRAP_PASSWORD': self.passwords[ADMIN]}
        with open(self.state_dir / 'logs' / f'{what}.log', 'ab') as out:
            return subprocess.Popen(  # nosec B603 - fixed argv
                argv,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
            )

    def _finish(
        self, proc: subprocess.Popen[bytes], what: str, deadline: float
    ) -> None:
        logs = self.state_dir / 'logs' / f'{what}.log'
        try:
            rc = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired as e:
            proc.kill()
            proc.wait()
            raise CloudError(f'{what} timed out; see {logs}') from e
        if rc:
            raise CloudError(f'{what} failed ({rc}); see {logs}')

    def _spawn(
        self, daemon: str, argv: list[str], env: dict[str, str] | None = None
    ) -> None:
        log = self.state_dir / 'logs' / f'{daemon}.log'
        # SIGKILL: the servers' own SIGTERM handling (oslo.service's graceful
        # shutdown, cheroot's stop) outlived a killed test run.
        self.pids[daemon] = procs.spawn(
            argv,
            log,
            env=env,
            die_with_parent=self.die_with_parent,
            death_signal=signal.SIGKILL,
        )

    def _keystone_setup(self, lay: files.CloudLayout) -> list[str]:
        """Keys and bootstrap (admin, catalog) in one keystone process."""
        url = f'{lay.keystone_url}/v3/'
        argv = [
            lay.bin('python'),
            str(_KEYSTONE_SETUP),
            str(lay.keystone_conf),
        ]
        for interface in ('admin', 'public', 'internal'):
            argv += [f'--bootstrap-{interface}-url', url]
        return [*argv, '--bootstrap-region-id', files.REGION]

    def _spawn_keystone(self, lay: files.CloudLayout) -> None:
        python, host = lay.bin('python'), str(_WSGI_HOST)
        port, conf = str(lay.keystone_port), str(lay.keystone_conf)
        self._spawn('keystone', [python, host, 'keystone', port, conf])

    def _spawn_heat(self, lay: files.CloudLayout) -> None:
        self._spawn(
            'heat-engine',
            [lay.bin('heat-engine'), '--config-file', str(lay.heat_conf)],
            # The resource plugin finds the catalogue and VMs here.
            env={**os.environ, 'VNFM_LOCALCLOUD_STATE': str(self.state_dir)},
        )
        python, host = lay.bin('python'), str(_WSGI_HOST)
        port, conf = str(lay.heat_port), str(lay.heat_conf)
        self._spawn('heat-api', [python, host, 'heat', port, conf])
        # The image service checks tokens as Heat's service user does.
        port = str(self.ports['glance'])
        self._spawn(
            'glance',
            [python, host, 'glance', port, conf],
            env={**os.environ, 'VNFM_LOCALCLOUD_STATE': str(self.state_dir)},
        )

    def _create_accounts(self, lay: files.CloudLayout) -> None:
        # One after another: Keystone's in-process cache answered 403 to
        # the admin now and then when grants ran beside other requests.
        admin = identity.Admin(lay.keystone_url, self.account(ADMIN))
        admin.set_up_heat(
            self.passwords['heat'],
            self.passwords['heat_domain_admin'],
            lay.heat_url,
        )
        admin.service('image', 'glance', self.image_url)
        for user, _, _ in USERS:
            admin.account(self.account(user))

    def _engine_answers(self, sess: Any) -> bool:
        """build_info goes through keystonemiddleware and the engine's RPC."""
        try:
            project = sess.get_project_id()
            resp = sess.get(
                f'{self.heat_url}/v1/{project}/build_info', raise_exc=False
            )
        except Exception:  # noqa: BLE001 - not up yet, whatever the cause
            return False
        return resp.status_code == 200

    @staticmethod
    def _answers(url: str) -> bool:
        try:
            return requests.get(url, timeout=2).status_code < 500
        except requests.RequestException:
            return False

    def _wait(self, predicate: Any, deadline: float, what: str) -> None:
        def check() -> bool:
            dead = [
                d for d, pid in self.pids.items() if not procs.is_running(pid)
            ]
            if dead:
                raise CloudError(
                    f'{", ".join(dead)} exited; see {self.state_dir / "logs"}'
                )
            return bool(predicate())

        if not procs.wait_for(
            check, max(0.0, deadline - time.monotonic()), interval=0.2
        ):
            raise CloudError(
                f'timed out waiting for {what}; see {self.state_dir / "logs"}'
            )
