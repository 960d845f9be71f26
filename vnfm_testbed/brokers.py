"""Private PostgreSQL and RabbitMQ servers for tests that stop and restart
them: the machine-wide ones serve other tests at the same time and are never
touched.

Each runs from a temporary directory on a free loopback port, in its own
process group that dies with the test process; ``stop()`` removes every
process. A server that does not start raises ``RuntimeError`` with the tail
of its log (a test fails; it never skips).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import subprocess  # nosec B404 - launching our own test servers
import tempfile
from pathlib import Path

from vnfm_testbed import procs


def _pg_bin(name: str) -> str:
    found = sorted(
        glob.glob(f'/usr/lib/postgresql/*/bin/{name}'),
        key=lambda p: int(p.split('/')[4]),
    )
    if not found:
        raise RuntimeError(
            f"PostgreSQL's {name} is not installed under "
            '/usr/lib/postgresql/*/bin (apt-get install '
            'postgresql)'
        )
    return found[-1]


class PrivatePostgres:
    """A PostgreSQL cluster of its own (trust authentication, user
    ``postgres``); run as the ``postgres`` account when started by root,
    as PostgreSQL refuses to run as root. ``address``: listen there too
    (a bridge's, for network namespaces: :mod:`vnfm_testbed.hostns`),
    trusting clients of its /24; ``stat_statements``: load
    pg_stat_statements (queries counted per database)."""

    def __init__(
        self,
        workdir: Path,
        address: str = '127.0.0.1',
        stat_statements: bool = False,
    ) -> None:
        self.workdir = Path(workdir)
        self.address = address
        self.stat_statements = stat_statements
        self.log = self.workdir / 'postgres.log'
        self.port = procs.free_port()
        self.pid = 0
        self.user = 'postgres' if os.geteuid() == 0 else None
        # The data directory and socket live where ``user`` can reach them
        # (test work directories are private to root).
        self.home = Path(tempfile.mkdtemp(prefix='vnfm-pg-'))
        self._own(self.home)
        self.data = self.home / 'data'

    @property
    def url(self) -> str:
        """SQLAlchemy URL of the server (no database)."""
        return f'postgresql+psycopg2://postgres@{self.address}:{self.port}'

    def _own(self, path: Path) -> None:
        if self.user:
            account = pwd.getpwnam(self.user)
            os.chown(path, account.pw_uid, account.pw_gid)

    def start(self, timeout: float = 60.0) -> None:
        """initdb (first time), then start the server; wait until it
        accepts connections."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        if not self.data.exists():
            self._run(
                [
                    _pg_bin('initdb'),
                    '-D',
                    str(self.data),
                    '-A',
                    'trust',
                    '-U',
                    'postgres',
                    '--no-sync',
                ],
                timeout,
            )
            self._trust_address()
        listen = ','.join(dict.fromkeys(['127.0.0.1', self.address]))
        argv = [
            _pg_bin('postgres'),
            '-D',
            str(self.data),
            '-p',
            str(self.port),
            '-c',
            f'listen_addresses={listen}',
            '-c',
            f'unix_socket_directories={self.home}',
            '-c',
            'fsync=off',
            '-c',
            'max_connections=200',
        ]
        if self.stat_statements:
            argv += ['-c', 'shared_preload_libraries=pg_stat_statements']
        self.pid = procs.spawn(
            argv, self.log, die_with_parent=True, user=self.user
        )
        self._wait(timeout)

    def _trust_address(self) -> None:
        if self.address == '127.0.0.1':
            return
        hba = self.data / 'pg_hba.conf'
        net = '.'.join(self.address.split('.')[:3]) + '.0/24'
        with open(hba, 'a') as f:
            f.write(f'host all all {net} trust\n')

    def _run(self, argv: list[str], timeout: float) -> None:
        with open(self.log, 'ab') as log:
            rc = subprocess.run(  # nosec B603 - fixed argv
                argv,
                stdout=log,
                stderr=subprocess.STDOUT,
                check=False,
                timeout=timeout,
                user=self.user,
                cwd=self.home,
            ).returncode
        if rc:
            raise RuntimeError(
                f'{argv[0]} failed ({rc}):\n' + procs.tail(self.log)
            )

    def _wait(self, timeout: float) -> None:
        import psycopg2  # only the harness needs it

        def ready() -> bool:
            if not procs.is_running(self.pid):
                raise RuntimeError(
                    'PostgreSQL exited during start-up:\n'
                    + procs.tail(self.log)
                )
            try:
                psycopg2.connect(
                    host=self.address,
                    port=self.port,
                    user='postgres',
                    dbname='postgres',
                    connect_timeout=2,
                ).close()
            except psycopg2.OperationalError:
                return False
            return True

        if not procs.wait_for(ready, timeout):
            raise RuntimeError(
                f'PostgreSQL not ready after {timeout}s:\n'
                + procs.tail(self.log)
            )

    def stop(self, mode: int = signal.SIGINT) -> None:
        """Stop the server: SIGINT is a fast shutdown (clients cut off),
        SIGQUIT an immediate one (a crash, recovered at the next start)."""
        if self.pid and procs.is_running(self.pid):
            os.kill(self.pid, mode)
            if not procs.wait_for(
                lambda: not procs.is_running(self.pid), 30.0, interval=0.05
            ):
                procs.kill_group(self.pid)
        self.pid = 0

    def restart(
        self, mode: int = signal.SIGINT, timeout: float = 60.0
    ) -> None:
        """Stop (``mode`` as for ``stop``) and start again."""
        self.stop(mode)
        self.start(timeout)

    def remove(self) -> None:
        """Stop the server and delete its data."""
        self.stop(signal.SIGQUIT)
        shutil.rmtree(self.home, ignore_errors=True)


class PrivateRabbit:
    """A RabbitMQ node of its own (``guest`` on 127.0.0.1, the default
    vhost, no plugins); its Erlang cookie and data live in the work
    directory. ``address``: listen there too (a bridge's, for network
    namespaces), where ``guest`` may log in as on loopback. ``cookie``:
    its Erlang cookie (the same on the nodes of a cluster), else one
    RabbitMQ makes."""

    SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server'
    CTL = '/usr/lib/rabbitmq/bin/rabbitmqctl'

    def __init__(
        self, workdir: Path, address: str = '127.0.0.1', cookie: str = ''
    ) -> None:
        self.workdir = Path(workdir)
        self.address = address
        self.cookie = cookie
        self.log = self.workdir / 'rabbitmq.log'
        self.port = procs.free_port()
        self.dist_port = procs.free_port()
        self.node = f'vnfmtest{self.port}@localhost'
        self.pid = 0

    @property
    def transport_url(self) -> str:
        """oslo.messaging transport_url of the node's default vhost."""
        return f'rabbit://guest:guest@{self.address}:{self.port}/'

    def _env(self) -> dict[str, str]:
        base = self.workdir
        conf = f'listeners.tcp.local = 127.0.0.1:{self.port}\n'
        if self.address != '127.0.0.1':
            conf += (
                f'listeners.tcp.bridge = {self.address}:{self.port}\n'
                'loopback_users = none\n'
            )
        (base / 'rabbitmq.conf').write_text(conf)
        (base / 'enabled_plugins').write_text('[].\n')
        cookie = base / '.erlang.cookie'
        if self.cookie and not cookie.exists():
            cookie.write_text(self.cookie)
            cookie.chmod(0o400)
        (base / 'rabbitmq-env.conf').write_text('')
        env = {
            **os.environ,
            'HOME': str(base),
            'RABBITMQ_NODENAME': self.node,
            'RABBITMQ_DIST_PORT': str(self.dist_port),
            'RABBITMQ_CONF_ENV_FILE': str(base / 'rabbitmq-env.conf'),
            'RABBITMQ_CONFIG_FILE': str(base / 'rabbitmq.conf'),
            'RABBITMQ_ENABLED_PLUGINS_FILE': str(base / 'enabled_plugins'),
            'RABBITMQ_MNESIA_BASE': str(base / 'mnesia'),
            'RABBITMQ_LOG_BASE': str(base / 'log'),
            'RABBITMQ_LOGS': '-',
            'RABBITMQ_PID_FILE': str(base / 'rabbitmq.pid'),
            'ERL_EPMD_ADDRESS': '127.0.0.1',
        }
        if self.address == '127.0.0.1':
            # The environment's listener replaces those of rabbitmq.conf.
            env['RABBITMQ_NODE_IP_ADDRESS'] = '127.0.0.1'
            env['RABBITMQ_NODE_PORT'] = str(self.port)
        return env

    def start(self, timeout: float = 90.0) -> None:
        """Start the node; wait until AMQP clients can connect."""
        if not os.path.exists(self.SERVER) or not shutil.which('erl'):
            raise RuntimeError(
                f'{self.SERVER} is not installed '
                '(apt-get install rabbitmq-server)'
            )
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.pid = procs.spawn(
            [self.SERVER], self.log, env=self._env(), die_with_parent=True
        )

        def ready() -> bool:
            if not procs.is_running(self.pid):
                raise RuntimeError(
                    'RabbitMQ exited during start-up:\n' + procs.tail(self.log)
                )
            return self.answers()

        if not procs.wait_for(ready, timeout, interval=0.2):
            raise RuntimeError(
                f'RabbitMQ not ready after {timeout}s:\n'
                + procs.tail(self.log)
            )

    def answers(self) -> bool:
        """Whether an AMQP connection can be opened now."""
        import amqp  # only the harness needs it
        import kombu

        url = self.transport_url.replace('rabbit://', 'amqp://', 1)
        try:
            with kombu.Connection(url, connect_timeout=2) as conn:
                conn.connect()
        except (
            OSError,
            amqp.exceptions.AMQPError,
            kombu.exceptions.KombuError,
        ):
            return False
        return True

    def ctl(self, *args: str, timeout: float = 60.0) -> str:
        """Run ``rabbitmqctl`` on this node; its output."""
        out = subprocess.run(  # nosec B603 - fixed argv
            [self.CTL, '-q', '-n', self.node, *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env=self._env(),
        )
        if out.returncode:
            raise RuntimeError(
                f'rabbitmqctl {" ".join(args)} on {self.node}: '
                f'{out.stderr or out.stdout}'
            )
        return out.stdout

    def stop(self) -> None:
        """Stop the node and every process of its group."""
        if self.pid:
            procs.stop(self.pid, timeout=20.0)
        self.pid = 0

    def restart(self, timeout: float = 90.0) -> None:
        """Stop and start again (queues that are not durable are gone)."""
        self.stop()
        self.start(timeout)
